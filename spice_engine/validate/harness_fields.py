"""The per-instance fields SWE-bench's harness (5.x) reads to grade a run: the image to run
in, the evaluation script, the log parser and the evaluation type.

The script is what `spice validate` did, written for the harness's container (the repository
at `/testbed` at `base_commit`, the environment built from `spice.validation.recipe`): put the
test files back as they were, apply `test_patch`, run the touched test files between the
harness's output markers, put the test files back again.
"""

from __future__ import annotations

import shlex
from typing import Any

START = ">>>>> Start Test Output"
END = ">>>>> End Test Output"
LOG_PARSER = "parse_log_pytest"
"""SWE-bench's parser of `pytest -rA` output, the format FAIL_TO_PASS names come in."""
EVAL_TYPE = "pass_and_fail"
HEREDOC = "EOF_SPICE_TEST_PATCH"


def image_name(repo: str, version: str, python: str | None) -> str:
    """The image the instance runs in: one per (repository, version, Python), like the
    environments `spice validate` builds."""
    tag = f"{version}-py{python}" if python else version
    return f"spice-triage/{repo.replace('/', '__').lower()}:{tag}"


def eval_script(row: dict[str, Any], test_files: list[str], test_cmd: str) -> str:
    base = shlex.quote(str(row["base_commit"]))
    files = " ".join(shlex.quote(f) for f in test_files)
    patch = str(row["test_patch"])
    if not patch.endswith("\n"):
        patch += "\n"
    lines = [
        "cd /testbed",
        # Files the test patch adds do not exist at the base: checkout only restores the rest.
        f"git checkout {base} -- {files} 2>/dev/null || true",
        f"git apply -v - <<'{HEREDOC}'\n{patch}{HEREDOC}",
        f": '{START}'",
        f"{test_cmd} {files}",
        f": '{END}'",
        f"git checkout {base} -- {files} 2>/dev/null || true",
    ]
    return "\n".join(lines) + "\n"


def harness_fields(row: dict[str, Any], validation: dict[str, Any], version: str) -> dict[str, str]:
    """`image`, `eval_script`, `log_parser`, `eval_type` for a validated row."""
    recipe = validation.get("recipe") or {}
    test_cmd = str(recipe.get("test_cmd") or "python -m pytest -rA")
    return {
        "image": image_name(str(row["repo"]), version, validation.get("python")),
        "eval_script": eval_script(row, list(validation.get("test_files") or []), test_cmd),
        "log_parser": LOG_PARSER,
        "eval_type": EVAL_TYPE,
    }
