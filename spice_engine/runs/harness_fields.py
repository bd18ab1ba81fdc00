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

from spice_engine.langs.python_runners import PYTEST, runner_named

START = ">>>>> Start Test Output"
END = ">>>>> End Test Output"
EVAL_TYPE = "pass_and_fail"
HEREDOC = "EOF_SPICE_TEST_PATCH"


def image_name(repo: str, version: str, python: str | None) -> str:
    """The image the instance runs in: one per (repository, version, Python), like the
    environments `spice validate` builds."""
    tag = f"{version}-py{python}" if python else version
    return f"spice-triage/{repo.replace('/', '__').lower()}:{tag}"


def eval_script(row: dict[str, Any], test_files: list[str], command: str) -> str:
    """The script for `command` (the whole test command) over the test patch's files."""
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
        command,
        f": '{END}'",
        f"git checkout {base} -- {files} 2>/dev/null || true",
    ]
    return "\n".join(lines) + "\n"


def harness_fields(row: dict[str, Any], validation: dict[str, Any], version: str) -> dict[str, str]:
    """`image`, `eval_script`, `log_parser`, `eval_type` for a validated row: Python's
    script runs its runner's command and names SWE-bench's parser of that runner. Another
    language's script runs its recorded test command in its recorded environment, and names
    our parser of that language's results (`spice_<language>`): SWE-bench 5 has none of its
    own for them."""
    recipe = validation.get("recipe")
    if not recipe:  # planned from the tree, not from a recipe: its recorded command and parser
        language = str(validation.get("language"))
        command = [str(a) for a in validation.get("test_command") or []]
        files = [str(f) for f in validation.get("test_files") or []]
        env = str(validation.get("environment") or "")
        return {
            "image": f"spice-triage/{env.lower()}",
            "eval_script": eval_script(row, files, shlex.join(command)),
            "log_parser": f"spice_{language}",
            "eval_type": EVAL_TYPE,
        }
    runner = runner_named(str(recipe.get("test_runner") or PYTEST))
    test_cmd = str(recipe.get("test_cmd") or runner.shell([]))
    files = [str(f) for f in validation.get("test_files") or []]
    return {
        "image": image_name(str(row["repo"]), version, validation.get("python")),
        "eval_script": eval_script(row, files, f"{test_cmd} {shlex.join(files)}"),
        "log_parser": str(recipe.get("log_parser") or runner.log_parser),
        "eval_type": EVAL_TYPE,
    }
