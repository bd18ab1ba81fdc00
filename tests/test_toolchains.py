"""Which languages this process's user can run: the probes run the real toolchains, a path that
is missing or not executable is unavailable with a one-line reason naming no host path, and
the App's image user (not root) cannot enter root's rustup."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest

from spice_engine.langs import languages
from spice_engine.langs.base import Toolchain
from spice_engine.langs.go import GOROOT
from spice_engine.langs.rust import RUSTUP
from spice_engine.langs.toolchains import (
    PROBES,
    Reach,
    go_reach,
    java_reach,
    node_reach,
    python_reach,
    reachable_languages,
    rust_reach,
    unreachable_line,
)
from tests.service.deliveries import SECRET
from tests.service.standin_handler import CONTROL_ENV

ROOT = Path(__file__).resolve().parents[1]
NON_ROOT = 10001
"""The image's `spice` user (Dockerfile)."""


def assert_public(reach: Reach, *hidden: Path) -> None:
    """Unavailable, saying why in one line that names no path (it is shown on /healthz)."""
    assert not reach.available
    assert reach.reason and "\n" not in reach.reason and "/" not in reach.reason, reach
    for path in hidden:
        assert str(path) not in reach.reason
        assert str(path) in reach.detail  # the log line keeps it


def not_executable(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\necho 1.0\n")
    path.chmod(0)  # not even root may execute a file with no execute bit
    return path


def test_every_language_has_a_probe_and_this_interpreter_counts() -> None:
    assert set(PROBES) == set(languages())
    assert [r.language for r in reachable_languages()] == list(PROBES)
    assert reachable_languages() is reachable_languages()  # asked once per process
    here = Path(sys.executable).resolve()
    assert python_reach({f"{sys.version_info[0]}.{sys.version_info[1]}": here}).available


def test_the_machines_go_is_available_when_it_is_installed() -> None:
    if not (GOROOT / "bin" / "go").exists():
        pytest.skip(f"no Go at {GOROOT} on this machine")
    assert go_reach() == Reach(language="go", available=True)


def test_missing_or_unexecutable_toolchains_are_unavailable_without_their_paths(
    tmp_path: Path,
) -> None:
    missing = tmp_path / "missing"
    reach = go_reach(missing)
    assert_public(reach, missing)
    assert reach.reason == "no Go toolchain is installed here"

    goroot = tmp_path / "go"
    (goroot / "VERSION").parent.mkdir()
    (goroot / "VERSION").write_text("go1.22.0\ntime 2024-02-06\n")
    go = not_executable(goroot / "bin" / "go")
    reach = go_reach(goroot)
    assert_public(reach, go)
    assert reach.reason.endswith(f"not reachable by this process's user (uid {os.geteuid()})")

    rustup = not_executable(tmp_path / "cargo" / "bin" / "rustup")
    assert_public(rust_reach(rustup), rustup)
    assert_public(node_reach(str(not_executable(tmp_path / "node"))), tmp_path / "node")
    python = not_executable(tmp_path / "python3.11")
    assert_public(python_reach({"3.11": python}), python)
    assert_public(python_reach({}))
    jdk = Toolchain(name="jdk", path=(str(tmp_path / "jdk" / "bin"),))
    not_executable(tmp_path / "jdk" / "bin" / "java")
    assert_public(java_reach({17: jdk}), tmp_path / "jdk")


def test_a_toolchain_that_fails_says_so_with_its_exit_status(tmp_path: Path) -> None:
    node = tmp_path / "node"
    node.write_text("#!/bin/sh\necho 'node: /opt/secret/lib missing' >&2\nexit 3\n")
    node.chmod(0o755)
    reach = node_reach(str(node))
    assert_public(reach, node)
    assert "exit 3" in reach.reason and "/opt/secret/lib missing" in reach.detail
    line = unreachable_line((Reach(language="go", available=True), reach))
    assert line is not None and "\n" not in line
    assert line.startswith("languages this process cannot run: javascript (")
    assert unreachable_line((Reach(language="go", available=True),)) is None


def _interpreter_for(uid: int) -> tuple[str, dict[str, str]] | None:
    """An interpreter of this minor version `uid` can run, and the environment that gives it
    this project's packages: this one, or the machine's own when this one is root's alone."""
    name = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    site = sysconfig.get_paths()["purelib"]
    for exe in (sys.executable, shutil.which(name, path="/usr/local/bin:/usr/bin:/bin")):
        if exe is None:
            continue
        env = {"PYTHONPATH": f"{ROOT}:{site}", "HOME": "/root", "PATH": "/usr/bin:/bin"}
        env["PATH"] = f"{Path(exe).parent}:{env['PATH']}"
        probe = [exe, "-c", "import spice_engine.langs.toolchains"]
        if subprocess.run(_as(uid, probe), env=env, cwd="/", capture_output=True).returncode == 0:
            return exe, env
    return None


def _as(uid: int, argv: list[str]) -> list[str]:
    return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", *argv]


def test_the_images_user_is_told_which_languages_it_cannot_run() -> None:
    """As the image's user, with root's HOME (what `setpriv` or `su` without `-` leave): root's
    pyenv is skipped rather than fatal, and Rust under 0700 /root is unavailable, no path
    said."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("runs the probe as another user: needs root and util-linux's setpriv")
    found = _interpreter_for(NON_ROOT)
    if found is None:
        pytest.skip(f"uid {NON_ROOT} can run no Python {sys.version_info[:2]} with our packages")
    exe, env = found
    code = (
        "import json, os\n"
        "from spice_engine.langs.rust import RUSTUP\n"
        "from spice_engine.langs.toolchains import reachable_languages\n"
        "print(json.dumps({'rustup': os.access(RUSTUP, os.X_OK),"
        " 'reach': [r.model_dump() for r in reachable_languages()]}))\n"
    )
    done = subprocess.run(
        _as(NON_ROOT, [exe, "-c", code]), env=env, cwd="/", capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    said = json.loads(done.stdout)
    reach = {r["language"]: Reach(**r) for r in said["reach"]}
    assert reach["python"].available  # the interpreter that ran this, found on PATH
    for one in reach.values():
        assert "/" not in one.reason and "\n" not in one.reason
    if said["rustup"]:
        print(f"uid {NON_ROOT} may run {RUSTUP} here: nothing to report for Rust")
    else:
        assert_public(reach["rust"], RUSTUP)
        assert f"(uid {NON_ROOT})" in reach["rust"].reason


def test_the_worker_says_at_start_which_languages_it_cannot_run(tmp_path: Path) -> None:
    """A worker whose PATH's `node` fails logs one line naming JavaScript (and only what this
    process cannot run either), with the path kept for the log."""
    fake = tmp_path / "bin" / "node"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'broken node' >&2\nexit 1\n")
    fake.chmod(0o755)
    env = os.environ | {
        "PATH": f"{fake.parent}:{os.environ['PATH']}",
        "SPICE_DATA_DIR": str(tmp_path / "data"),
        "SPICE_WEBHOOK_SECRET": SECRET.decode(),
        CONTROL_ENV: str(tmp_path / "control"),
        "PYTHONPATH": str(ROOT),
    }
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    log = tmp_path / "worker.log"
    spice = str(Path(sys.executable).parent / "spice")
    standin = "tests.service.standin_handler:make_handler"
    argv = [spice, "worker", "--threads", "1", "--handler", standin]
    with log.open("wb") as stderr:
        worker = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=stderr)
    try:
        deadline = time.monotonic() + 60
        while "worker up" not in log.read_text() and worker.poll() is None:
            assert time.monotonic() < deadline, log.read_text()[-2000:]
            time.sleep(0.1)
    finally:
        worker.kill()
        worker.wait(timeout=10)
    lines = [x for x in log.read_text().splitlines() if "languages this process cannot run" in x]
    assert len(lines) == 1, log.read_text()[-2000:]
    here = {r.language for r in reachable_languages() if not r.available}
    named = {name for name in PROBES if f" {name} (" in lines[0]}
    assert named == here | {"javascript"}, lines[0]
    assert "the Node.js runtime failed" in lines[0] and f"{fake}: broken node" in lines[0]
