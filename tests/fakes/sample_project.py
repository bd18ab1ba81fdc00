"""A tiny real project with a bug, its fix and a test that shows it, and the pull request that
fixed it as GitHub shows it: the instance the tests validate and the offline tours harvest."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from tests.fakes.github_server import FakeGitHub


def git(repo: Path, *args: str) -> str:
    env = os.environ | {
        "GIT_AUTHOR_DATE": "2025-06-01T00:00:00",
        "GIT_COMMITTER_DATE": "2025-06-01T00:00:00",
    }
    done = subprocess.run(
        ["git", "-c", "user.email=t@t", "-c", "user.name=t", *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def commit_later(repo: Path, message: str, *args: str) -> None:
    """A commit of what is staged (and `args`, e.g. `-a`), dated after the project's others."""
    later = {"GIT_COMMITTER_DATE": "2025-06-05T00:00:00", "GIT_AUTHOR_DATE": "2025-06-05T00:00:00"}
    subprocess.run(
        ["git", "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", *args, "-m", message],
        cwd=repo,
        env=os.environ | later,
        check=True,
        capture_output=True,
    )


OWN_RUNNER = Path(__file__).parent.parent / "data" / "own_runner"


def own_runner_calc(repo: Path, init: str, setup_py: str) -> None:
    """The calc package run by its own runner (sympy's `bin/test` manner: `bin/test` calls
    `calc.test`), its package's `__init__.py` (`init`, after the runner's import), `setup.py`
    and `calc/tests/`, committed with whatever `repo` holds already."""
    (repo / "bin").mkdir(parents=True, exist_ok=True)
    (repo / "calc" / "tests").mkdir(parents=True, exist_ok=True)
    shutil.copy(OWN_RUNNER / "bin_test.py", repo / "bin" / "test")
    (repo / "bin" / "test").chmod(0o755)
    shutil.copy(OWN_RUNNER / "get_calc.py", repo / "bin" / "get_calc.py")
    shutil.copy(OWN_RUNNER / "testing.py", repo / "calc" / "testing.py")
    (repo / "calc" / "__init__.py").write_text("from calc.testing import test\n" + init)
    (repo / "calc" / "tests" / "__init__.py").write_text("")
    (repo / "calc" / "tests" / "test_calc.py").write_text(
        "from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n"
    )
    (repo / "setup.py").write_text(setup_py)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")


CALC_FIX = {"calc.py": "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"}
"""The calc project's fix: `add` adds."""


def instance_of(
    repo: Path, name: str, fix: dict[str, str], test: tuple[str, str], problem: str
) -> dict[str, str]:
    """The instance of the repository's HEAD: the fix (files rewritten) as its gold patch and
    `test` (a path and text appended to it) as its test patch; the tree is left at HEAD."""
    base = git(repo, "rev-parse", "HEAD").strip()
    for path, text in fix.items():
        (repo / path).write_text(text)
    gold = git(repo, "diff")
    git(repo, "checkout", "-q", ".")
    new = not (repo / test[0]).exists()
    with (repo / test[0]).open("a") as tests:
        tests.write(test[1])
    git(repo, "add", "--intent-to-add", test[0])  # a new file shows in the diff too
    test_patch = git(repo, "diff")
    git(repo, "reset", "-q")
    git(repo, "checkout", "-q", ".")
    if new:
        (repo / test[0]).unlink()
    owner, project = name.split("/")
    return {
        "instance_id": f"{owner}__{project}-1",
        "repo": name,
        "base_commit": base,
        "patch": gold,
        "test_patch": test_patch,
        "problem_statement": problem,
        "hints_text": "",
        "created_at": "2025-06-02T00:00:00Z",
    }


def calc_project(repo: Path, modules: tuple[str, ...] = ("calc",), **files: str) -> None:
    """A committed, tagged (v0.1.0) calc project at `repo`: its packaging, the test of `mul`,
    and `files` (name -> text, `calc` as `calc.py`)."""
    (repo / "tests").mkdir(parents=True)
    listed = ", ".join(f'"{m}"' for m in modules)
    (repo / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n'
        '[project]\nname = "calc"\nversion = "0.1.0"\nrequires-python = ">=3.11"\n'
        f"[tool.setuptools]\npy-modules = [{listed}]\n"
    )
    for name, text in files.items():
        (repo / f"{name}.py").write_text(text)
    (repo / "tests" / "test_calc.py").write_text(
        "from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n"
    )
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    git(repo, "tag", "v0.1.0")


def make_calc_repo(repo: Path, name: str = "octo/calc") -> dict[str, str]:
    """A git repository at `repo` whose `add` subtracts; returns the instance that fixes it."""
    calc_project(
        repo, calc="def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"
    )
    return instance_of(
        repo,
        name,
        fix=CALC_FIX,
        test=(
            "tests/test_calc.py",
            "\n\ndef test_add():\n    from calc import add\n    assert add(2, 3) == 5\n",
        ),
        problem="add() subtracts\nadd(2, 3) gives -1.",
    )


def hunks(diff: str) -> dict[str, str]:
    """`path -> patch` as GitHub lists a PR's files (the hunks, without git's headers)."""
    files: dict[str, str] = {}
    for part in re.split(r"^diff --git ", diff, flags=re.M)[1:]:
        path = part.split("\n", 1)[0].split(" b/", 1)[1]
        files[path] = part[part.index("\n@@") + 1 :]
    return files


def _first_line(hunk: str) -> int:
    found = re.match(r"@@ -(\d+)", hunk)
    return int(found.group(1)) if found else 0


def pull_files(row: dict[str, str]) -> list[dict[str, str]]:
    """The instance's patches as GitHub lists a pull request's files."""
    patches = hunks(row["patch"])
    for path, more in hunks(row["test_patch"]).items():
        # A file both patches change (a Rust source with its inline tests): one patch, its
        # hunks in line order as GitHub lists them.
        both = [h for h in (patches.get(path, ""), more) if h]
        patches[path] = "".join(sorted(both, key=_first_line))
    added = set(
        re.findall(r"^--- /dev/null\n\+\+\+ b/(\S+)", row["patch"] + row["test_patch"], re.M)
    )
    return [
        {"filename": path, "patch": hunk, "status": "added" if path in added else "modified"}
        for path, hunk in patches.items()
    ]


def merged_pull(gh: FakeGitHub, repo: str, number: int, row: dict[str, str]) -> None:
    """The instance as GitHub shows it: issue #5, and PR `number` fixing it (the instance's
    patches as its files, its base commit), merged."""
    gh.add_issue(repo, 5, "add() subtracts", "add(2, 3) gives -1.")
    gh.add_pull(
        repo,
        number,
        "Fix add",
        "Fixes #5",
        files=pull_files(row),
        commits=["fix add"],
        base_sha=row["base_commit"],
    )
    gh.edit_issue(repo, number, state="closed")
    stamp = "2026-02-01T00:00:00Z"
    gh.repos[repo].pulls[number].update(merged=True, merged_at=stamp, closed_at=stamp)
