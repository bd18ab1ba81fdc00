"""A shared environment's name (its key: everything it was asked to be) and what its folder
records of its install (spice_engine.langs.plan_environments)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from spice_engine.langs.base import Plan
from spice_engine.validate import door

PLAN = "spice-plan.json"


def plan_key(repo: str, plan: Plan) -> str:
    """The shared environment's folder name: readable, and unique for what it depends on."""
    # The whole plan counts, not only the manifests: an environment built by another install
    # (or for other cache locations) is not this one. What the install left out is found by
    # building it, and what it may reach changes what fails, not what a successful install
    # built: neither is part of what the environment is asked to be.
    asked = plan.model_dump_json(exclude={"left_out", "registries"})
    digest = hashlib.sha256("\0".join([repo, asked]).encode())
    return f"{repo.replace('/', '__')}-{plan.language}-{digest.hexdigest()[:12]}"


def left_out(shared: Path) -> dict[str, str]:
    """What the environment's install left out, as the host wrote it down after the install's
    sandbox ended (before any test saw the folder, read-only)."""
    if not door.is_file(shared, PLAN):
        return {}  # built before the plan was kept
    return Plan.model_validate_json(door.read_text(shared, PLAN)).left_out
