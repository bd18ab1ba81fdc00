"""A project of any language as an instance: `base/` committed, `test/` and `fix/` (files laid
over the base) as its test patch and gold patch."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from tests.fakes.sample_project import git


def _overlay_diff(repo: Path, overlay: Path) -> str:
    for src in sorted(p for p in overlay.rglob("*") if p.is_file()):
        target = repo / src.relative_to(overlay)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, target)
    git(repo, "add", "-A")
    diff = git(repo, "diff", "--cached")
    git(repo, "reset", "-q", "--hard")
    git(repo, "clean", "-qfdx")
    return diff


def project_instance(data: Path, repo: Path, name: str = "acme/calc") -> dict[str, Any]:
    """The repository `repo` made from `data/base` (one commit) and the instance of its HEAD."""
    shutil.copytree(data / "base", repo)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    owner, project = name.split("/")
    return {
        "instance_id": f"{owner}__{project}-1",
        "repo": name,
        "base_commit": git(repo, "rev-parse", "HEAD").strip(),
        "test_patch": _overlay_diff(repo, data / "test"),
        "patch": _overlay_diff(repo, data / "fix"),
        "problem_statement": "Add subtracts.",
        "created_at": "2025-06-02T00:00:00Z",
    }


def go_sandbox(tmp_path: Path) -> Any:
    """The bubblewrap sandbox a Go test runs in; the test skipped, with the reason, where this
    machine has no Go toolchain or bubblewrap cannot run."""
    import pytest

    from spice_engine.validate.bubblewrap import Bubblewrap

    if shutil.which("go") is None and not Path("/usr/local/go/bin/go").exists():
        pytest.skip("no Go toolchain on this machine")
    box = Bubblewrap()
    if why := box.problem(tmp_path):
        pytest.skip(f"bubblewrap cannot run here: {why}")
    return box


def registry_problem(host: str) -> str | None:
    """Why the registry at `host` cannot be reached from here (None: it can). Asked from a
    process of its own: this one may reach loopback only (tests/network_guard.py), while the
    sandbox's installs go through the index proxy, a process of its own too."""
    import subprocess
    import sys

    probe = f"import socket; socket.create_connection(({host!r}, 443), timeout=5).close()"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    if done.returncode != 0:
        return f"{host}:443 unreachable ({done.stderr.strip().splitlines()[-1:]})"
    return None


class DictFiles:
    """`Files` (spice_engine.langs.base) from a dict: a tree for a language to read."""

    def __init__(self, files: dict[str, str]) -> None:
        self.files = files

    def paths(self) -> list[str]:
        return sorted(self.files)

    def text(self, path: str) -> str | None:
        return self.files.get(path)

    def changed(self) -> list[str]:
        return []


def lang_job(row: dict[str, Any], git_dir: Path, language: str, **extra: Any) -> Any:
    """The `Job` of `row` in `language` (no Python recipe: another executor builds it)."""
    from spice_engine.langs.python_recipe import Recipe
    from spice_engine.runs.session import Job

    return Job(
        instance=row,
        git_dir=git_dir,
        version="",
        recipe=Recipe(python="3"),
        language=language,
        timeout_s=600,
        **extra,
    )


def committed_files(tmp_path: Path, files: dict[str, str]) -> Any:
    """`files` committed to a new repository under `tmp_path`, read back as a commit's
    `Files` (spice_engine.langs.commit_files.CommitFiles)."""
    from spice_engine.langs.commit_files import CommitFiles

    repo = tmp_path / "repo"
    for path, text in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    return CommitFiles(repo / ".git", git(repo, "rev-parse", "HEAD").strip())


def patched_project(data: Path, repo: Path, name: str, more_manifest: str = "") -> dict[str, Any]:
    """The repository `repo` made from `data/project` (one commit; `more_manifest` appended
    to its Cargo.toml when given) and the instance of its HEAD with `data`'s test.patch and
    fix.patch."""
    shutil.copytree(data / "project", repo)
    if more_manifest:
        with (repo / "Cargo.toml").open("a") as manifest:
            manifest.write(more_manifest)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    return {
        "instance_id": f"{name.replace('/', '__')}-1",
        "repo": name,
        "base_commit": git(repo, "rev-parse", "HEAD").strip(),
        "test_patch": (data / "test.patch").read_text(),
        "patch": (data / "fix.patch").read_text(),
    }


def node_sandbox(tmp_path: Path, tools: tuple[str, ...] = ("node",)) -> Any:
    """The real sandbox for a JavaScript project's runs; the test skips, saying why, where this
    machine lacks `tools` or the sandbox cannot run."""
    import pytest

    from spice_engine.validate.bubblewrap import Bubblewrap

    if missing := [t for t in tools if shutil.which(t) is None]:
        pytest.skip(f"no {' and '.join(missing)} on this machine")
    box = Bubblewrap()
    if why := box.problem(tmp_path):
        pytest.skip(f"cannot run here: {why}")
    return box


def java_sandbox(tmp_path: Path) -> Any:
    """The real sandbox for a Maven project's runs; the test skips, saying why, where this
    machine has no JDK 17 or Maven, the sandbox cannot run, or Maven Central (the install
    fetches the build's plugins) cannot be reached."""
    import pytest

    from spice_engine.langs.java import JDKS, MAVEN
    from spice_engine.validate.bubblewrap import Bubblewrap

    java17 = Path(JDKS[17].env["JAVA_HOME"])
    if not (java17 / "bin" / "javac").exists() or not Path(MAVEN).exists():
        pytest.skip(f"no JDK 17 at {java17} or no Maven at {MAVEN}")
    box = Bubblewrap()
    if why := box.problem(tmp_path) or registry_problem("repo.maven.apache.org"):
        pytest.skip(f"cannot run here: {why}")
    return box
