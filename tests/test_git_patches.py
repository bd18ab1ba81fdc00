"""Harvested patches apply with `git apply` at base_commit, for every kind of change.

A real repository is made in a temporary directory with a PR commit that adds, deletes,
renames, changes the mode of, and edits binary and text files in source and test paths. Its
git diff is served as the PR's `.diff` by the fake GitHub; the harvested `patch` and
`test_patch` must apply (alone and together) and rebuild the PR's tree exactly.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.github.client import PullFile, pull_diff
from app.harvest.build import Built, build_instance
from app.harvest.source import PullSummary
from spice_engine.langs.python_recipe import Recipe
from spice_engine.runs.validator import Job, validate
from spice_engine.validate import gitwork
from spice_engine.validate.tree import checkout
from tests.fakes.github_server import FakeGitHub
from tests.harvest_support import fake_source

REPO = "acme/kinds"
PNG = bytes(range(256)) * 4


def sh(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


@pytest.fixture
def history(tmp_path: Path) -> tuple[Path, str, str]:
    """A repository with a base commit and a PR commit holding every change kind."""
    repo = tmp_path / "repo"
    repo.mkdir()
    sh(repo, "init", "-q", "-b", "main")
    sh(repo, "config", "user.email", "t@example.com")
    sh(repo, "config", "user.name", "t")
    files = {
        "src/pkg/mod.py": "VALUE = 1\n",
        "src/pkg/old_name.py": "".join(f"line {i}\n" for i in range(20)),
        "src/pkg/gone.py": "GONE = True\n",
        "scripts/run.sh": "#!/bin/sh\necho run\n",
        "tests/test_mod.py": "def test_mod():\n    assert True\n",
        "tests/test_gone.py": "def test_gone():\n    pass\n",
    }
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    (repo / "tests" / "data.bin").write_bytes(PNG)
    sh(repo, "add", "-A")
    sh(repo, "commit", "-qm", "base")
    base = sh(repo, "rev-parse", "HEAD").strip()
    (repo / "src/pkg/mod.py").write_text("VALUE = 2\n")
    sh(repo, "mv", "src/pkg/old_name.py", "src/pkg/new_name.py")
    with (repo / "src/pkg/new_name.py").open("a") as fh:
        fh.write("line 20\n")
    sh(repo, "rm", "-q", "src/pkg/gone.py", "tests/test_gone.py")
    (repo / "scripts/run.sh").chmod(0o755)
    (repo / "src/pkg/empty.py").write_text("")
    (repo / "tests/test_new.py").write_text("def test_new():\n    assert 2 == 2\n")
    (repo / "tests" / "data.bin").write_bytes(PNG[::-1])
    sh(repo, "add", "-A")
    sh(repo, "commit", "-qm", "the fix")
    head = sh(repo, "rev-parse", "HEAD").strip()
    return repo, base, head


@pytest.fixture
def gh() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        yield fake


def harvest(gh: FakeGitHub, diff: str, base: str) -> dict[str, str]:
    gh.add_repo(REPO)
    gh.add_issue(REPO, 1, "Bug", "It breaks.")
    gh.add_pull(REPO, 2, "Fix", "Fixes #1", files=[{"filename": "x", "git_diff": diff}])
    gh.repos[REPO].pulls[2].update(merged_at="2024-01-02T00:00:00Z", merged=True)
    pull = PullSummary(
        number=2,
        title="Fix",
        body="Fixes #1",
        created_at="2024-01-01T00:00:00Z",
        merged_at="2024-01-02T00:00:00Z",
        base_sha=base,
    )
    built = build_instance(fake_source(gh), REPO, pull)
    assert isinstance(built, Built), built
    return built.instance.model_dump()


def test_every_change_kind_applies_and_rebuilds_the_pr_tree(
    history: tuple[Path, str, str], gh: FakeGitHub, tmp_path: Path
) -> None:
    repo, base, head = history
    diff = sh(repo, "diff", "--binary", base, head)
    for marker in ("new file mode", "deleted file mode", "rename from", "new mode 100755"):
        assert marker in diff  # the fixture really has every kind
    inst = harvest(gh, diff, base)
    assert "tests/test_new.py" in inst["test_patch"] and "src/pkg/mod.py" in inst["patch"]
    assert "new file mode 100644" in inst["test_patch"]
    for patches in ([inst["test_patch"]], [inst["patch"]], [inst["test_patch"], inst["patch"]]):
        assert gitwork.apply_problem(repo, base, patches) is None
    (tmp_path / "scratch").mkdir()
    with checkout(repo, base, tmp_path / "scratch") as tree:
        tree.apply(inst["test_patch"])
        tree.apply(inst["patch"])
        # The sandbox's own git directory in the tree (the host never uses it) sees the PR.
        sh(tree.path, "add", "-A")
        assert sh(tree.path, "diff", "--cached", head) == ""  # byte for byte, modes included
    assert list((tmp_path / "scratch").iterdir()) == []  # the scratch tree is gone


def test_a_binary_change_without_full_index_is_refused_not_exported(
    history: tuple[Path, str, str], gh: FakeGitHub, tmp_path: Path
) -> None:
    """GitHub's .diff shows binaries as `Binary files ... differ`: such a PR cannot be a task."""
    repo, base, head = history
    inst = harvest(gh, sh(repo, "diff", base, head), base)
    assert "Binary files" in inst["test_patch"]
    assert gitwork.apply_problem(repo, base, [inst["test_patch"]]) is not None
    job = Job(instance=inst, git_dir=repo, version="0.0", recipe=Recipe(python="3.12"))
    result = validate(job, _NoExecutor(), tmp_path / "scratch")
    assert result.validation.status == "patch_does_not_apply"
    assert "test_patch" in result.validation.detail and result.fail_to_pass == []


def test_files_api_fallback_declares_added_and_deleted_files(
    history: tuple[Path, str, str],
) -> None:
    repo, base, head = history
    new = sh(repo, "diff", base, head, "--", "tests/test_new.py").split("@@", 1)[1]
    gone = sh(repo, "diff", base, head, "--", "src/pkg/gone.py").split("@@", 1)[1]
    files = [
        PullFile(filename="tests/test_new.py", status="added", patch="@@" + new),
        PullFile(filename="src/pkg/gone.py", status="removed", patch="@@" + gone),
    ]
    assert gitwork.apply_problem(repo, base, [pull_diff(files)]) is None


class _NoExecutor:
    """An executor that must not be reached (the patch check comes first)."""

    def prepare(self, *args: object) -> object:
        raise AssertionError("environment built for a patch that does not apply")

    def run(self, *args: object) -> object:
        raise AssertionError("tests run for a patch that does not apply")


def test_a_moved_tag_or_a_rewritten_branch_does_not_poison_a_cached_clone(tmp_path: Path) -> None:
    """The App keeps one clone per repository and fetches it on reuse: upstream moving a tag
    (deleted and made again on another commit) or force-pushing a branch must not make every
    later fetch fail ("would clobber existing tag")."""
    from spice_engine.validate.clone_cache import clone_from_github

    upstream = tmp_path / "mirror" / "octo" / "calc.git"
    upstream.mkdir(parents=True)
    sh(upstream, "init", "-q", "-b", "main")
    (upstream / "a.txt").write_text("1\n")
    sh(upstream, "add", "-A")
    sh(upstream, "commit", "-qm", "one")
    sh(upstream, "tag", "v1.0")
    cache = tmp_path / "cache"
    first = clone_from_github("octo/calc", cache, f"file://{tmp_path / 'mirror'}")
    old = gitwork.git(first, "rev-parse", "v1.0^{commit}").strip()
    (upstream / "a.txt").write_text("2\n")
    sh(upstream, "commit", "-qam", "two")
    sh(upstream, "tag", "-f", "v1.0")  # the tag moved
    sh(upstream, "reset", "-q", "--hard", "HEAD")
    for _ in range(2):  # and every fetch after it works too
        again = clone_from_github("octo/calc", cache, f"file://{tmp_path / 'mirror'}")
        moved = gitwork.git(again, "rev-parse", "v1.0^{commit}").strip()
        assert again == first and moved != old
        assert moved == sh(upstream, "rev-parse", "HEAD").strip()
