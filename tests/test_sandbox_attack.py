"""A hostile repository validated by `spice validate`: its build backend, `setup.py` and
`conftest.py` try to take the worker's secrets and files, reach its services, write outside
the worktree, exhaust the machine and outlive the job. In the sandbox every attempt fails, the
validation still gives the instance's lists, and the next jobs run clean. Without it (the
explicit `--no-sandbox`) the same probes see the worker: they are able to tell."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from spice_engine.validate.bubblewrap import Bubblewrap
from tests.sandbox_attack import Scene, attack_repo, leaked, loot, probes
from tests.validation_support import calc_repo_fixture, sandbox_fixture  # noqa: F401

SPICE = str(Path(sys.executable).with_name("spice"))
BLOCKED = "blocked"


@pytest.fixture
def scene(tmp_path: Path) -> Iterator[Scene]:
    made = Scene.make(tmp_path)
    yield made
    made.close()


def _listing(found: str) -> str:
    """What the attack listed of the data directory."""
    return " ".join(line for line in found.splitlines() if line.startswith("ls "))


def validate(scene: Scene, rows: list[dict[str, Any]], repo: Path, *flags: str) -> Any:
    instances = scene.root / f"in-{len(list(scene.root.glob('in-*')))}.jsonl"
    instances.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = instances.with_suffix(".out.jsonl")
    name = str(rows[0]["repo"])
    args = [SPICE, "validate", str(instances), "--out", str(out), "--repo", f"{name}={repo}"]
    done = subprocess.run(
        [*args, "--timeout", "300", *flags],
        env=scene.env(),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows_out = [json.loads(line) for line in out.read_text().splitlines()]
    return rows_out, done.stdout + done.stderr + out.read_text()


def test_the_attack_fails_in_the_sandbox_and_the_next_jobs_run_clean(
    scene: Scene, sandbox: Bubblewrap, calc_repo: tuple[Path, dict[str, str]]
) -> None:
    repo, row = attack_repo(scene.root, scene.targets(mirror=scene.root / "attack" / ".git"))
    [first], said = validate(scene, [row], repo)
    assert first["spice"]["validation"]["status"] == "valid", first["spice"]["validation"]
    assert json.loads(first["FAIL_TO_PASS"]) == ["tests/test_victim.py::test_add"]
    seen = probes(first)
    # It ran at every phase: the build backend and setup.py (resolving and installing the
    # project) and conftest.py (the tests).
    assert {p.split(":")[0] for p in seen} == {"backend", "setup_py", "tests"}, seen
    # The data directory's path exists in the sandbox (the job's scratch is under it), with
    # nothing of the App's in it.
    open_ = {
        k: v
        for k, v in seen.items()
        if k.split(":")[1].startswith(("read_", "connect_")) and "data_dir" not in k
    }
    assert sum("connect_" in k for k in open_) == 3 * 8 and set(open_.values()) == {BLOCKED}, open_
    assert not {"spice.db", "repos"} & set(re.findall(r"[\w.+-]+", _listing(loot(first))))
    writes = {
        k: v
        for k, v in seen.items()
        if k.split(":")[1].startswith("write_") and "site" not in k.split(":")[1]
    }
    assert set(writes.values()) == {BLOCKED}, writes
    assert seen["tests:fork_bomb"] == seen["tests:fill_disk"] == "limited"
    assert seen["tests:fill_tmp"] == "limited"
    assert all(int(seen[f"{p}:processes_seen"]) < 5 for p in ("backend", "setup_py", "tests"))
    assert seen["tests:uid"] != "0"
    assert leaked(loot(first)) == [] and leaked(said) == []
    assert all(lst.connections == 0 for lst in scene.listeners.values())
    assert scene.lingering() == []
    assert scene.planted() == []  # nothing it wrote outlived its job's scratch

    # The same repository's next job (its environment reused) and another repository's run
    # clean: nothing the attack planted runs there.
    [again], _ = validate(scene, [row], repo)
    assert again["spice"]["validation"]["status"] == "valid"
    assert not again["spice"]["validation"]["environment_built"]
    assert probes(again)["tests:planted_ran"] == "False"
    calc, calc_row = calc_repo
    [clean], _ = validate(scene, [calc_row], calc)
    assert clean["spice"]["validation"]["status"] == "valid"
    assert scene.lingering() == [] and scene.planted() == []


def test_without_the_sandbox_the_same_probes_see_the_worker(scene: Scene) -> None:
    """The control: `--no-sandbox` (trusted repositories only) protects nothing, and the
    probes above would have said so."""
    targets = scene.targets(mirror=scene.root / "attack" / ".git", decoy=True)
    repo, row = attack_repo(scene.root, targets)
    [done], said = validate(scene, [row], repo, "--no-sandbox")
    assert "warning: --no-sandbox" in said
    seen = probes(done)
    assert seen["tests:read_worker_ssh"] == seen["tests:read_payloads"] == "read"
    assert seen["tests:write_worker_cache"] == seen["tests:write_app_site"] == "wrote"
    assert int(seen["tests:processes_seen"]) > 5  # the worker's processes and their environ
    assert leaked(loot(done))  # the configured secrets, read from the CLI's /proc/*/environ
    assert scene.listeners["app"].connections > 0
    for pid in scene.lingering():  # it outlived the job: end it here
        subprocess.run(["kill", "-9", pid], check=False)


def test_without_bubblewrap_the_cli_refuses_unless_told(tmp_path: Path) -> None:
    instances = tmp_path / "in.jsonl"
    instances.write_text(json.dumps({"instance_id": "a__b-1", "repo": "a/b", "base_commit": "x"}))
    env = {"PATH": "/usr/bin:/bin", "SPICE_DATA_DIR": str(tmp_path / "data")}
    env |= {"SPICE_BWRAP_PATH": str(tmp_path / "no-bwrap"), "HOME": str(tmp_path)}
    args = [SPICE, "validate", str(instances), "--out", str(tmp_path / "out.jsonl")]
    args += ["--repo", f"a/b={tmp_path}"]
    refused = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120)
    assert refused.returncode != 0
    assert "no sandbox" in refused.stderr and "--no-sandbox" in refused.stderr
    assert not (tmp_path / "out.jsonl").exists()
    shutil.rmtree(tmp_path / "data", ignore_errors=True)
    told = subprocess.run(
        [*args, "--no-sandbox"], env=env, capture_output=True, text=True, timeout=120
    )
    assert "warning: --no-sandbox" in told.stderr
    assert (tmp_path / "out.jsonl").exists()
