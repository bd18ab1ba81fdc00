"""A cached clone follows its upstream whatever the upstream rewrote: a tag moved to another
commit, a branch force-pushed, a tag deleted. A clone that cannot be fetched any more is made
again and swapped in; two callers at once leave one sound clone; the host's git configuration
(hooks included) plays no part. Real repositories throughout: an upstream and a pusher."""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from spice_engine.validate.clone_cache import CLONES, clone_from_github
from tests.fakes.sample_project import git

REPO = "octo/calc"


class Upstream:
    """A bare repository at `<root>/octo/calc.git` and a working copy that pushes to it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.bare = root / f"{REPO}.git"
        self.work = root.parent / "work"
        self.bare.parent.mkdir(parents=True)
        subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(self.bare)], check=True)
        self.work.mkdir()
        git(self.work, "init", "-q", "-b", "main")
        git(self.work, "remote", "add", "origin", str(self.bare))

    def commit(self, text: str) -> str:
        (self.work / "calc.py").write_text(text)
        git(self.work, "add", "calc.py")
        git(self.work, "commit", "-q", "-m", text)
        return git(self.work, "rev-parse", "HEAD").strip()

    def push(self, *args: str) -> None:
        git(self.work, "push", "-q", "--force", "origin", *args)

    def move_tag(self, tag: str, commit: str) -> None:
        """Delete `tag` upstream and make it again at `commit` (a re-release)."""
        git(self.work, "tag", "-f", tag, commit)
        self.push(f"refs/tags/{tag}")


def ref(git_dir: Path, name: str) -> str:
    done = subprocess.run(
        ["git", "--git-dir", str(git_dir), "rev-parse", "--verify", "-q", f"{name}^{{commit}}"],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.strip()


@pytest.fixture(name="upstream")
def upstream_fixture(tmp_path: Path) -> Upstream:
    return Upstream(tmp_path / "hub")


@pytest.mark.parametrize("scheme", ["file://", ""])
def test_a_moved_tag_and_a_force_pushed_branch_reach_the_cache(
    scheme: str, upstream: Upstream, tmp_path: Path
) -> None:
    first = upstream.commit("v = 1\n")
    second = upstream.commit("v = 2\n")
    upstream.move_tag("v1.0", first)
    upstream.move_tag("gone", first)
    upstream.push("main")
    cache, base = tmp_path / "cache", f"{scheme}{upstream.root}"
    git_dir = clone_from_github(REPO, cache, base)
    assert (ref(git_dir, "v1.0"), ref(git_dir, "main")) == (first, second)

    # The upstream re-releases v1.0 elsewhere, rewrites main and drops a tag.
    git(upstream.work, "reset", "-q", "--hard", first)
    rewritten = upstream.commit("v = 3\n")
    upstream.push("main")
    upstream.move_tag("v1.0", rewritten)
    git(upstream.work, "push", "-q", "origin", ":refs/tags/gone")

    assert clone_from_github(REPO, cache, base) == git_dir
    assert ref(git_dir, "v1.0") == rewritten
    assert ref(git_dir, "main") == rewritten
    assert ref(git_dir, "gone") == ""


def test_the_cache_of_the_old_fetch_took_a_moved_tag_too(
    upstream: Upstream, tmp_path: Path
) -> None:
    """A cache `gitwork.clone_from_github` made (a directory, not a link) and can no longer
    fetch once a tag moved: this one fetches into it."""
    first = upstream.commit("v = 1\n")
    upstream.move_tag("v1.0", first)
    upstream.push("main")
    cache = tmp_path / "cache"
    git_dir = clone_from_github(REPO, cache, f"file://{upstream.root}")
    upstream.move_tag("v1.0", upstream.commit("v = 2\n"))
    assert clone_from_github(REPO, cache, f"file://{upstream.root}") == git_dir
    assert ref(git_dir, "v1.0") == ref(upstream.bare, "v1.0")


def test_a_clone_that_cannot_be_fetched_is_made_again_and_swapped_in(
    upstream: Upstream, tmp_path: Path
) -> None:
    upstream.push(upstream.commit("v = 1\n") + ":refs/heads/main")
    # The cache sits inside another repository: a broken clone must not make git fetch there.
    outer = tmp_path / "outer"
    outer.mkdir()
    git(outer, "init", "-q")
    cache, base = outer / "cache", str(upstream.root)
    git_dir = clone_from_github(REPO, cache, base)
    before = git_dir.resolve()
    (git_dir / "config").write_text("[[[ not a config\n")
    (git_dir / "HEAD").write_text("garbage\n")
    latest = upstream.commit("v = 2\n")
    upstream.push("main")

    assert clone_from_github(REPO, cache, base) == git_dir
    assert git_dir.is_symlink() and git_dir.resolve() != before
    assert not before.exists()  # the broken clone is gone
    assert [p.name for p in (cache / CLONES).iterdir()] == [git_dir.resolve().parent.name]
    assert ref(git_dir, "main") == latest
    assert git(outer, "for-each-ref").strip() == ""  # nothing fetched into the outer repository


def test_two_callers_at_once_leave_one_sound_clone(upstream: Upstream, tmp_path: Path) -> None:
    upstream.push(upstream.commit("v = 0\n") + ":refs/heads/main")
    cache, base = tmp_path / "cache", f"file://{upstream.root}"
    clones: set[Path] = set()
    for round_ in range(6):
        tip = upstream.commit(f"v = {round_ + 1}\n")
        upstream.push("main")
        upstream.move_tag("latest", tip)
        got = _at_once(lambda: clone_from_github(REPO, cache, base), callers=4)
        assert len(set(got)) == 1
        assert (ref(got[0], "main"), ref(got[0], "latest")) == (tip, tip)
        subprocess.run(["git", "--git-dir", str(got[0]), "fsck", "--strict"], check=True)
        clones.add(got[0].resolve())
    # Each fetch went through: none failed on a ref another caller held and cloned again.
    assert len(clones) == 1 and len(list((cache / CLONES).iterdir())) == 1


def _at_once(call: Callable[[], Path], callers: int = 2) -> list[Path]:
    """What `call` returned in each of `callers` threads started together (raises the first
    error one met)."""
    start = threading.Barrier(callers)
    got: list[Path] = []
    errors: list[BaseException] = []

    def one() -> None:
        start.wait()
        try:
            got.append(call())
        except BaseException as exc:  # noqa: BLE001 - raised in the caller below
            errors.append(exc)

    threads = [threading.Thread(target=one) for _ in range(callers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return got


def test_the_hosts_git_configuration_and_hooks_play_no_part(
    upstream: Upstream, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A global configuration, and one passed in the environment, both naming hooks that would
    run on a fetch: neither is read."""
    upstream.push(upstream.commit("v = 1\n") + ":refs/heads/main")
    hooks, ran = tmp_path / "hooks", tmp_path / "hook-ran"
    hooks.mkdir()
    for name in ("reference-transaction", "post-checkout"):
        hook = hooks / name
        hook.write_text(f"#!/bin/sh\necho {name} >> {ran}\n")
        hook.chmod(0o755)
    config = tmp_path / "gitconfig"
    config.write_text(f"[core]\n\thooksPath = {hooks}\n")
    host = {
        "GIT_CONFIG_GLOBAL": str(config),
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "core.hooksPath",
        "GIT_CONFIG_VALUE_0": str(hooks),
    }
    cache, base = tmp_path / "cache", str(upstream.root)
    for _ in range(2):  # a clone, then a fetch of a moved tag
        with monkeypatch.context() as env:
            for key, value in host.items():
                env.setenv(key, value)
            clone_from_github(REPO, cache, base)
        upstream.move_tag("v1", upstream.commit(f"v = {_ + 2}\n"))
    assert not ran.exists()
    # The same configuration runs the hook for a plain git: the check above means something.
    with monkeypatch.context() as env:
        for key, value in host.items():
            env.setenv(key, value)
        git(upstream.work, "tag", "-f", "probe")
    assert ran.exists()
