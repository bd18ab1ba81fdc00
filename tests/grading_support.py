"""Predictions for the grading tests: a model's patch is files rewritten at the base, as a
diff; and `spice evaluate` run as a builder runs it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from app.cli.main import cli
from tests.fakes.sample_project import git


def rewrite_diff(repo: Path, base: str, files: dict[str, str]) -> str:
    """The diff that rewrites `files` (path -> text) at `base`; the tree left as it was."""
    git(repo, "checkout", "-q", base)
    for path, text in files.items():
        (repo / path).write_text(text)
    diff = git(repo, "diff")
    git(repo, "checkout", "-q", ".")
    return diff


def spice(env: dict[str, str], *args: str) -> str:
    done = CliRunner().invoke(cli, list(args), env=env)
    assert done.exit_code == 0, done.output
    return done.stdout


def write_predictions(path: Path, iid: str, patches: dict[str, str | None]) -> None:
    """One prediction per model (model name -> its patch), as SWE-bench's runs take them."""
    path.write_text(
        "".join(
            json.dumps({"instance_id": iid, "model_name_or_path": m, "model_patch": p}) + "\n"
            for m, p in patches.items()
        )
    )


def report_of(out: Path, model: str, iid: str) -> dict[str, Any] | None:
    path = out / model.replace("/", "__") / iid / "report.json"
    if not path.is_file():
        return None
    found: dict[str, Any] = json.loads(path.read_text())[iid]
    return found
