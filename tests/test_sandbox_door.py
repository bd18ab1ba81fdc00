"""The sandbox is a one-way door (issue 34): once repository code ran, the host treats its tree
as data. The door attack (tests/data/door_repo/conftest.py) goes, from inside the sandbox, for
what the host does with the tree afterwards:

| row | attempt |
|---|---|
| git | the tree's `.git` made a repository whose config runs a command for every filter, hook, monitor and helper, `* filter=evil` in `.gitattributes` |
| link-source | the fixed source made a link to a host file, for the host to write a mutant through |
| link-results | every plugin result file made a link to `/proc/self/environ` |
| link-fix | the fix patch itself turns the source into a link to a host file |
| forge | fake verdicts written wherever results could be read from, and by a subprocess |

through `spice validate` and `spice test-strength` (bubblewrap, and Docker where a daemon runs)
and through the App (a merged pull request validated by the worker; an open one measured),
under the worker's umask 077. The clean instance of the same repository still validates with
the right FAIL_TO_PASS, and the weak test's honest score (0.5) stands.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from spice_engine.validate.docker import DEFAULT_IMAGE, DockerSandbox
from tests.door_attack import Door, attacking, door_repo, linking_fix, secrets_in

ROOT = Path(__file__).resolve().parents[1]
F2P = ["tests/test_victim.py::test_add"]


@contextmanager
def umask(mask: int) -> Iterator[None]:
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


@pytest.fixture(scope="module")
def door(tmp_path_factory: pytest.TempPathFactory) -> Door:
    return door_repo(tmp_path_factory.mktemp("door"))


def _executors() -> list[Any]:
    docker = pytest.param("docker", marks=pytest.mark.docker)
    return ["local", docker]


def _docker_or_skip(executor: str) -> list[str]:
    if executor != "docker":
        return []
    box = DockerSandbox(os.environ.get("SPICE_DOCKER_IMAGE", DEFAULT_IMAGE))
    if why := box.problem():
        pytest.skip(f"Docker suite: {why}")
    return ["--executor", "docker"]


def _strength_row(row: dict[str, Any]) -> dict[str, Any]:
    return row | {"FAIL_TO_PASS": json.dumps(F2P), "PASS_TO_PASS": json.dumps([])}


def _rows(door: Door, variants: list[tuple[str, ...]]) -> list[dict[str, Any]]:
    return [door.row if v == ("clean",) else attacking(door, *v) for v in variants]


VALIDATION_ROWS = [("clean",), ("git",), ("results", "forge"), ("source",)]
STRENGTH_ROWS = [("clean",), ("git",), ("source",), ("results",), ("forge",)]


@pytest.mark.parametrize("executor", _executors())
def test_validation_ignores_what_the_tests_did_to_the_tree(door: Door, executor: str) -> None:
    """Rows git, link-results, forge and link-source through `spice validate`, each alone,
    beside the clean instance: every one validates with the right lists; no command of the
    tree's ran on the host, no host file was touched, no secret came out."""
    flags = _docker_or_skip(executor)
    with umask(0o077):  # the worker's
        done, said = door.cli("validate", _rows(door, VALIDATION_ROWS), *flags)
    for row in done:
        validation = row["spice"]["validation"]
        assert validation["status"] == "valid", (row["instance_id"], validation["detail"])
        assert json.loads(row["FAIL_TO_PASS"]) == F2P
        assert json.loads(row["PASS_TO_PASS"]) == ["tests/test_victim.py::test_mul"]
        assert secrets_in(_logs(validation)) == []
        assert "forged" not in json.dumps(validation)
    assert len(done) == len(VALIDATION_ROWS)
    assert door.untouched() == []
    assert secrets_in(said) == []


@pytest.mark.parametrize("executor", _executors())
def test_test_strength_is_not_swayed_by_links_or_forged_verdicts(door: Door, executor: str) -> None:
    """Rows git, link-source, link-results and forge through `spice test-strength`, each alone:
    the host runs nothing of the tree's, never writes a mutant through the link nor reads the
    environ link, and the weak test's honest score stands (its wrong fix `a - b` survives)."""
    flags = _docker_or_skip(executor)
    rows = [_strength_row(r) for r in _rows(door, STRENGTH_ROWS)]
    with umask(0o077):
        done, said = door.cli("test-strength", rows, *flags, "--budget", "300")
    for row in done:
        strength = row["spice"]["test_strength"]
        assert strength["status"] == "measured", (row["instance_id"], strength["detail"])
        assert strength["score"] == 0.5 and strength["mutants_tried"] == 2, row["instance_id"]
        [survivor] = [m for m in strength["mutants"] if m["verdict"] == "survived"]
        assert "+    return a - b" in survivor["diff"]
        assert {m["killed_by"] for m in strength["mutants"]} == {None, F2P[0]}  # none forged
    assert len(done) == len(STRENGTH_ROWS)
    assert door.untouched() == []
    assert secrets_in(said) == []


def test_a_fix_that_makes_a_link_is_refused_before_anything_runs(door: Door) -> None:
    """Row link-fix: the patch alone would make the host write through a link (no code runs
    at all); it is refused, naming why, and the host file is neither read nor changed."""
    row = linking_fix(door)
    [validated], said = door.cli("validate", [row])
    validation = validated["spice"]["validation"]
    assert validation["status"] == "patch_does_not_apply"
    assert "symbolic link" in validation["detail"]
    [measured], said_too = door.cli("test-strength", [_strength_row(row)])
    assert measured["spice"]["test_strength"]["status"] == "patch_does_not_apply"
    assert door.untouched() == []
    assert "the host's own file" not in said + said_too


def _logs(validation: dict[str, Any]) -> str:
    """The kept run logs of a validation, as text."""
    import gzip

    where = validation.get("logs")
    if not where or not Path(where).is_dir():
        return ""
    return "".join(gzip.open(p, "rt").read() for p in sorted(Path(where).glob("*.log.gz")))


def test_the_engine_writes_trees_only_through_the_door() -> None:
    """No host write of a tree path in the engine's execution code but the door's own (the
    plugins run inside the sandbox, on the project's Python); test statuses are one enum."""
    writes = re.compile(
        r"(?<!door)\.write_(?:text|bytes)\(|open\([^)]*[\"'][wax]b?\+?[\"']|copyfile\(|\.touch\("
    )
    found = []
    for folder in ("spice_engine/validate", "spice_engine/strength"):
        for path in sorted((ROOT / folder).glob("*.py")):
            if path.name in ("door.py", "rerun_plugin.py", "mutant_plugin.py", "plugin_support.py"):
                continue
            for n, line in enumerate(path.read_text().splitlines(), 1):
                if writes.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert found == []
    statuses = []
    for path in sorted((ROOT / "spice_engine").rglob("*.py")) + sorted(
        (ROOT / "app").rglob("*.py")
    ):
        if path.name in ("outcomes.py", "rerun_plugin.py", "mutant_plugin.py"):
            continue  # the enum itself; the plugins print pytest's words in the sandbox
        statuses += [
            f"{path.name}:{n}"
            for n, line in enumerate(path.read_text().splitlines(), 1)
            if '"PASSED"' in line
        ]
    assert statuses == []


def test_execution_modules_stay_small() -> None:
    sizes = {
        str(p.relative_to(ROOT)): len(p.read_text().splitlines())
        for folder in ("spice_engine/validate", "spice_engine/strength")
        for p in (ROOT / folder).glob("*.py")
    }
    assert {p: n for p, n in sizes.items() if n > 300} == {}


def test_git_on_the_host_names_its_directory_and_reads_no_config_of_ours(tmp_path: Path) -> None:
    """The host's git runs with the repository named and no system or user config: a user's
    `~/.gitconfig` with a filter (or a GIT_DIR in the worker's environment) steers nothing."""
    from spice_engine.validate import gitwork
    from spice_engine.validate.tree import checkout

    repo = door_repo(tmp_path / "r").repo
    marker = tmp_path / "global-filter-ran"
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(f'[filter "evil"]\n\tsmudge = touch {marker}\n')
    (repo / ".gitattributes").write_text("* filter=evil\n")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(
        ["git", "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "attrs"],
        cwd=repo,
        check=True,
        env=os.environ | {"HOME": str(home)},
    )
    head = gitwork.git(repo, "rev-parse", "HEAD").strip()
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    saved = {k: os.environ.get(k) for k in ("HOME", "GIT_DIR")}
    os.environ["HOME"], os.environ["GIT_DIR"] = str(home), str(tmp_path / "nowhere")
    try:
        with checkout(repo, head, scratch) as tree:
            assert tree.source("victim.py").startswith("def add")
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    assert not marker.exists()
