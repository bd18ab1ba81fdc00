"""A hostile repository validated by `spice validate`: its build backend, `setup.py` and
`conftest.py` try to take the worker's secrets and files, reach its services, write outside
the worktree, exhaust the machine and outlive the job. In the sandbox every attempt fails, the
validation still gives the instance's lists, and the next jobs run clean. Without it (the
explicit `--no-sandbox`) the same probes see the worker: they are able to tell."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from spice_engine.validate.bubblewrap import Bubblewrap
from tests.sandbox_attack import (
    Scene,
    assert_the_attack_failed,
    attack_repo,
    leaked,
    loot,
    probes,
    validate,
)
from tests.validation_support import calc_repo_fixture, sandbox_fixture  # noqa: F401

SPICE = str(Path(sys.executable).with_name("spice"))


@pytest.fixture
def scene(tmp_path: Path) -> Iterator[Scene]:
    made = Scene.make(tmp_path)
    yield made
    made.close()


@pytest.mark.heavy  # every probe then three clean jobs: a minute; the App's attack test stays
def test_the_attack_fails_in_the_sandbox_and_the_next_jobs_run_clean(
    scene: Scene, sandbox: Bubblewrap, calc_repo: tuple[Path, dict[str, str]]
) -> None:
    repo, row = attack_repo(scene.root, scene.targets(mirror=scene.root / "attack" / ".git"))
    [first], said = validate(scene, [row], repo)
    assert_the_attack_failed(scene, first, said)

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
    # Unsandboxed, the tests have the machine's network: their probes are named `tests_net`.
    seen = {k.replace("tests_net:", "tests:"): v for k, v in probes(done).items()}
    assert seen["tests:read_worker_ssh"] == seen["tests:read_payloads"] == "read"
    assert seen["tests:write_worker_cache"] == seen["tests:write_app_site"] == "wrote"
    assert int(seen["tests:processes_seen"]) > 5  # the worker's processes and their environ
    assert seen["tests:connect_app_127.0.0.1"] == "open"  # the probe knows a real answer
    # PostgreSQL and Redis run on 127.0.0.1 here and in CI: the probes speak their protocols.
    assert (
        seen["tests:connect_postgres_127.0.0.1"] == seen["tests:connect_redis_127.0.0.1"] == "open"
    )
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
