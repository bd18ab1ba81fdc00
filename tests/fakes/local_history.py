"""A Go module's history as a benchmark builder's mirror holds it, bundled: pull #12 merged
(its test and fix, `Fixes #7`), a squash of #15 that changes no test, and a branch merged
without a number whose pull ref names #16. `python -m tests.fakes.local_history OUT.bundle`
writes it for the offline tour; the tests make it in a temporary folder."""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from tests.fakes.sample_project import git

CALC = Path(__file__).resolve().parents[1] / "data" / "lang_go" / "calc"


def _commit_overlay(repo: Path, overlay: Path, message: str) -> None:
    shutil.copytree(overlay, repo, dirs_exist_ok=True)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)


def make_history(work: Path, bundle: Path) -> str:
    """The repository built at `work`, bundled (every ref) at `bundle`; returns #12's base."""
    shutil.copytree(CALC / "base", work)
    git(work, "init", "-q", "-b", "main")
    git(work, "add", "-A")
    git(work, "commit", "-qm", "base")
    base = git(work, "rev-parse", "HEAD").strip()
    git(work, "checkout", "-qb", "fix-sub")
    _commit_overlay(work, CALC / "test", "Test Sub")
    _commit_overlay(work, CALC / "fix", "Add Sub\n\nFixes #7")
    git(work, "checkout", "-q", "main")
    git(work, "update-ref", "refs/pull/12/head", "fix-sub")
    message = "Merge pull request #12 from acme/fix-sub\n\nAdd Sub to mathx"
    git(work, "merge", "-q", "--no-ff", "-m", message, "fix-sub")
    (work / "mathx" / "doc.go").write_text("// Package mathx does sums.\npackage mathx\n")
    git(work, "add", "-A")
    git(work, "commit", "-qm", "Document mathx (#15)\n\nCloses #8")
    git(work, "checkout", "-qb", "docs")
    (work / "README.md").write_text("mathx\n")
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
