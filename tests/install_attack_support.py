"""The install attacks' hostile program and harness: a program any tool setting may name, a
hostile sibling added to a repository, and the clean instance validated alone, then again
after its hostile siblings in one environments folder."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from spice_engine.runs.validator import validate
from spice_engine.validate.bubblewrap import Bubblewrap
from tests.fakes.sample_project import git
from tests.lang_projects import lang_job

MARK = "SPICE-PWNED"
TALLY_DEPENDENCY = "[target.'cfg(unix)'.dependencies]\nitoa = \"1\"\n"
# Run by whatever tool setting names it: marks every place it can write, makes the shared
# caches unusable, and plants itself as cargo's wrapper in the environment.
EVIL = f"""#!/bin/sh
for d in /spice/env /spice/cache/* /spice/job; do touch "$d/{MARK}" 2>/dev/null; done
mkdir -p /spice/env/cargo 2>/dev/null && cp "$0" /spice/env/evil.sh 2>/dev/null \\
  && printf '[build]\\nrustc-wrapper = "/spice/env/evil.sh"\\n' > /spice/env/cargo/config.toml
for d in /spice/cache/*; do chmod -R 000 "$d" 2>/dev/null; done
case "$*" in *"--crate-name tally"*) echo "{MARK}: no build for you" >&2; exit 1;; esac
[ -x "$1" ] && exec "$@"
exit 1
"""
EVIL_JS = f"""const fs = require("fs"), {{ execSync }} = require("child_process");
fs.writeFileSync("/testbed/evil.sh", {json.dumps(EVIL)}, {{ mode: 0o755 }});
try {{ execSync("/testbed/evil.sh"); }} catch (e) {{}}
"""


def every_attack() -> None:
    """The attacks that install from the registries several times over run in `.ci/run`'s
    own step (SPICE_ATTACKS=all), not in the default suite."""
    if os.environ.get("SPICE_ATTACKS") != "all":
        pytest.skip("SPICE_ATTACKS=all runs it (a few minutes of registry installs; .ci/run does)")


def _sandbox(tmp_path: Path) -> Bubblewrap:
    box = Bubblewrap()
    if why := box.problem(tmp_path):
        pytest.skip(f"bubblewrap cannot run here: {why}")
    return box


def _with_hostile(
    row: dict[str, Any], repo: Path, files: dict[str, str], branch: str = "hostile"
) -> dict[str, Any]:
    """A second instance of `row`'s repository: its base with `files` added."""
    git(repo, "checkout", "-q", "-b", branch, row["base_commit"])
    for path, text in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
        (repo / path).chmod(0o755)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "tooling")
    base = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "-")
    return row | {"instance_id": row["instance_id"] + "-hostile", "base_commit": base}


def _verdict(done: Any) -> tuple[str, list[str], list[str]]:
    return (str(done.validation.status), done.fail_to_pass, done.pass_to_pass)


def _marks(folder: Path) -> list[str]:
    found = []
    for path in folder.rglob("*"):
        if path.name == MARK or path.name == "evil.sh":
            found.append(str(path.relative_to(folder)))
    return found


def _after_a_hostile_sibling(
    tmp_path: Path, executor_of: Any, row: dict[str, Any], hostile: list[dict[str, Any]], lang: str
) -> None:
    """`row` alone, then each of `hostile` and `row` again in one environments folder."""
    repo = tmp_path / "repo"
    alone = validate(lang_job(row, repo, lang), executor_of(tmp_path / "alone"), tmp_path / "s1")
    assert alone.validation.status == "valid", alone.validation.detail
    shared = tmp_path / "shared"
    for sibling in hostile:
        validate(lang_job(sibling, repo, lang), executor_of(shared), tmp_path / "s2")
        # The tree's program never ran where another instance looks.
        assert _marks(shared) == [], sibling["instance_id"]
    after = validate(lang_job(row, repo, lang), executor_of(shared), tmp_path / "s3")
    assert _verdict(after) == _verdict(alone), after.validation.detail
