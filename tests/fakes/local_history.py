"""A project's history as a benchmark builder's mirror holds it, bundled: pull #12 merged (its
test and fix, `Fixes #7`), a squash of #15 that changes no test, and a branch merged without a
number whose pull ref names #16. The project is one of the language samples in `tests/data`
(Go's by default). `python -m tests.fakes.local_history OUT.bundle` writes Go's for the offline
tour; the tests make them in a temporary folder."""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from tests.fakes.sample_project import git

DATA = Path(__file__).resolve().parents[1] / "data"


def _commit_step(repo: Path, sample: Path, step: str, message: str) -> None:
    """The sample's `step` (`test` or `fix`): a folder laid over the tree, or a patch."""
    if (sample / step).is_dir():
        # Fresh mtimes: a file the same size with its old mtime would look unchanged to git.
        shutil.copytree(sample / step, repo, dirs_exist_ok=True, copy_function=shutil.copyfile)
    else:
        git(repo, "apply", str(sample / f"{step}.patch"))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)


def make_history(work: Path, bundle: Path, project: str = "lang_go/calc") -> str:
    """The repository built at `work` from the sample `project` (`base/`, `test/`, `fix/`
    folders, or `project/` with `test.patch` and `fix.patch`), bundled (every ref) at
    `bundle`; returns #12's base."""
    sample = DATA / project
    shutil.copytree(sample / "base" if (sample / "base").is_dir() else sample / "project", work)
    git(work, "init", "-q", "-b", "main")
    git(work, "add", "-A")
    git(work, "commit", "-qm", "base")
    base = git(work, "rev-parse", "HEAD").strip()
    git(work, "checkout", "-qb", "fix-sub")
    _commit_step(work, sample, "test", "Test the fix")
    _commit_step(work, sample, "fix", "Fix it\n\nFixes #7")
    git(work, "checkout", "-q", "main")
    git(work, "update-ref", "refs/pull/12/head", "fix-sub")
    message = "Merge pull request #12 from acme/fix-sub\n\nFix the sample"
    git(work, "merge", "-q", "--no-ff", "-m", message, "fix-sub")
    (work / "NOTES.md").write_text("How the sample is meant to work.\n")
    git(work, "add", "-A")
    git(work, "commit", "-qm", "Write notes (#15)\n\nCloses #8")
    git(work, "checkout", "-qb", "docs")
    (work / "CHANGES.md").write_text("Nothing yet.\n")
    git(work, "add", "-A")
    git(work, "commit", "-qm", "Readme")
    git(work, "checkout", "-q", "main")
    git(work, "update-ref", "refs/pull/16/head", "docs")
    git(work, "merge", "-q", "--no-ff", "-m", "Merge branch 'docs'", "docs")
    bundle.parent.mkdir(parents=True, exist_ok=True)
    git(work, "bundle", "create", "-q", str(bundle.resolve()), "--all")
    return base


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "tour/mathx.bundle")
    with tempfile.TemporaryDirectory() as scratch:
        make_history(Path(scratch) / "mathx", target)
    print(f"wrote {target}: acme/mathx, pull #12 merged (Fixes #7)")
