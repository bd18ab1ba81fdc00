"""The host's door into a sandbox-touched tree, and the tree the host patches from its own
record: what sandboxed code leaves behind (links, FIFOs, huge files, a `.git` of its own with a
filter driver) never makes the host read, write or run anything outside the tree."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from spice_engine.validate import door, gitwork
from spice_engine.validate.tree import PatchRefused, checkout
from tests.validation_support import git

PATCH = (
    "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n"
    "@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n"
)
LINK = (
    "diff --git a/link b/link\nnew file mode 120000\n--- /dev/null\n+++ b/link\n"
    "@@ -0,0 +1 @@\n+/etc/passwd\n\\ No newline at end of file\n"
)


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, str]:
    where = tmp_path / "repo"
    where.mkdir()
    (where / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (where / "pkg").mkdir()
    (where / "pkg" / "mod.py").write_text("X = 1\n")
    git(where, "init", "-q")
    git(where, "add", "-A")
    git(where, "commit", "-qm", "base")
    return where, git(where, "rev-parse", "HEAD").strip()


def test_the_door_refuses_links_special_files_and_huge_files(tmp_path: Path) -> None:
    root, host = tmp_path / "tree", tmp_path / "host.txt"
    root.mkdir()
    host.write_text("host secret")
    (root / "link").symlink_to(host)
    (root / "dir").symlink_to(tmp_path)
    os.mkfifo(root / "fifo")
    (root / "big").write_bytes(b"x" * 2048)
    for rel in ("link", "dir/host.txt", "fifo", "../host.txt", "/etc/passwd"):
        with pytest.raises(door.DoorRefused):
            door.read_text(root, rel)
    with pytest.raises(door.DoorRefused):
        door.read_bytes(root, "big", limit=1024)
    # Writing replaces the link itself; a link in the way of a parent stops the write.
    door.write_text(root, "link", "mine")
    assert host.read_text() == "host secret" and not (root / "link").is_symlink()
    with pytest.raises(door.DoorRefused):
        door.write_text(root, "dir/host.txt", "mine")
    assert host.read_text() == "host secret"
    door.remove(root, "fifo")
    assert not (root / "fifo").exists()
    assert door.files(root) == ["big", "link"]  # no FIFO, no link, nothing through `dir`


def test_files_written_through_the_door_ignore_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o077)
    try:
        door.write_text(tmp_path, "a/b/c.txt", "x")
    finally:
        os.umask(old)
    assert (tmp_path / "a" / "b" / "c.txt").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "a").stat().st_mode & 0o777 == 0o755


def test_patches_are_applied_from_the_hosts_record_never_through_the_tree(
    repo: tuple[Path, str], tmp_path: Path
) -> None:
    where, base = repo
    host = tmp_path / "host.py"
    host.write_text("host file\n")
    marker = tmp_path / "filter-ran"
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    with checkout(where, base, scratch) as tree:
        # What a conftest could do: the source made a link to a host file, and the tree's
        # `.git` made a repository of its own whose filter, hooks and fsmonitor run a command.
        (tree.path / "calc.py").unlink()
        (tree.path / "calc.py").symlink_to(host)
        evil = tmp_path / "evil.git"
        subprocess.run(["git", "init", "-q", "--bare", str(evil)], check=True)
        config = f'[filter "evil"]\n\tclean = touch {marker}\n\tsmudge = touch {marker}\n'
        config += f"[core]\n\tfsmonitor = touch {marker}\n\thooksPath = {tmp_path}\n"
        (evil / "config").write_text((evil / "config").read_text() + config)
        git_dir = tree.path / ".git"
        subprocess.run(["rm", "-rf", str(git_dir)], check=True)
        git_dir.write_text(f"gitdir: {evil}\n")
        (tree.path / ".gitattributes").write_text("* filter=evil\n")
        tree.apply(PATCH)
        assert host.read_text() == "host file\n"  # not written through the link
        assert (tree.path / "calc.py").read_text().endswith("return a + b\n")
        assert tree.source("calc.py").endswith("return a + b\n")  # the host's record
        tree.put("calc.py", "mutant\n")
        tree.restore("calc.py")
        assert tree.untracked() == [".gitattributes"]
        tree.apply(PATCH, reverse=True)
        with pytest.raises(PatchRefused):
            tree.apply(LINK)
    assert not marker.exists()  # no command of the tree's ever ran
    assert host.read_text() == "host file\n"
    assert not (where / ".git" / "worktrees").exists()
    assert list(scratch.iterdir()) == []


@pytest.mark.parametrize(
    ("patch", "why"),
    [
        (LINK, "symbolic link"),
        (
            "diff --git a/calc.py b/calc.py\nold mode 100644\nnew mode 120000\n",
            "symbolic link",
        ),
        (
            "diff --git a/.git/config b/.git/config\nnew file mode 100644\n--- /dev/null\n"
            "+++ b/.git/config\n@@ -0,0 +1 @@\n+[core]\n",
            ".git",
        ),
        (
            "diff --git a/sub/.GIT/hooks/x b/sub/.GIT/hooks/x\nnew file mode 100755\n"
            "--- /dev/null\n+++ b/sub/.GIT/hooks/x\n@@ -0,0 +1 @@\n+boom\n",
            ".git",
        ),
    ],
)
def test_a_patch_that_makes_a_link_or_touches_git_is_refused_before_any_checkout(
    repo: tuple[Path, str], patch: str, why: str
) -> None:
    where, base = repo
    problem = gitwork.apply_problem(where, base, [patch])
    assert problem is not None and why in problem
