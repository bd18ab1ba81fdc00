"""The sandbox under the App's real conditions: a umask of 077 (the worker's and the web
service's, app.store.private_files), as root and as a non-root user.

`spice validate` (the real CLI, in a child process with that umask and user) validates the calc
instance with bubblewrap; the probe behind /healthz says validation is on in the same process
conditions, and off, with the reason, when the data directory cannot hold a job's scratch (a
read-only mount, in a mount namespace of the child's own). Under umask 077 as root every job
once failed `bwrap: Can't chdir to /testbed` while the probe said on."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from spice_engine.validate.bubblewrap import Bubblewrap
from tests.fakes.sample_project import make_calc_repo
from tests.sandbox_attack import SPICE
from tests.validation_support import sandbox_fixture  # noqa: F401

NON_ROOT = 10001
"""Not the sandbox's own uid (65534): the image's `spice` user."""
APP_UMASK = 0o077
_PROBE = (
    "from app.settings import Settings\n"
    "from app.sandboxing import live_validation_problem\n"
    "print(live_validation_problem(Settings()) or 'on')\n"
)


def _as(user: str) -> list[str]:
    """The prefix running a command as `user`, with no capabilities left once it starts."""
    if user == "root":
        return []
    return [
        *("setpriv", f"--reuid={NON_ROOT}", f"--regid={NON_ROOT}", "--clear-groups"),
        *("--inh-caps=-all", "--bounding-set=-all", "--"),
    ]


@pytest.fixture(params=["root", "non-root"])
def user(request: pytest.FixtureRequest) -> str:
    if os.geteuid() != 0:
        pytest.skip("runs the CLI as root and as another user: the suite must run as root")
    if shutil.which("setpriv") is None or shutil.which("unshare") is None:
        pytest.skip("needs util-linux's setpriv and unshare")
    name = str(request.param)
    # The CLI starts the interpreter again (the index proxy): a path the kernel let through
    # once (setpriv's own exec) may still be refused then, as under a 0700 /root.
    again = "import subprocess, sys; subprocess.run([sys.executable, '-c', 'import app.cli.main'], check=True)"
    ran = subprocess.run(
        [*_as(name), sys.executable, "-c", again],
        capture_output=True,
        text=True,
        cwd="/",
    )
    if ran.returncode != 0:
        pytest.skip(f"{name} cannot run this interpreter ({sys.executable}): {ran.stderr[-300:]}")
    return name


@pytest.fixture
def home(user: str) -> Iterator[Path]:
    """A directory `user` owns (pytest's own tmp_path is root's alone)."""
    where = Path(tempfile.mkdtemp(prefix="spice-umask-"))
    yield where
    shutil.rmtree(where, ignore_errors=True)


def _run(
    user: str, home: Path, *args: str, around: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    """`args` as `user` under the App's umask (`around`: a command wrapping that)."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "SPICE_DATA_DIR": str(home / "data")}
    return subprocess.run(
        [*around, *_as(user), *args],
        env=env,
        cwd=home,
        capture_output=True,
        text=True,
        timeout=600,
        umask=APP_UMASK,
    )


def test_the_cli_validates_and_the_probe_agrees_under_the_apps_umask(
    user: str,
    home: Path,
    sandbox: Bubblewrap,
) -> None:
    row = make_calc_repo(home / "calc")
    (home / "rows.jsonl").write_text(json.dumps(row) + "\n")
    if user != "root":
        subprocess.run(["chown", "-R", f"{NON_ROOT}:{NON_ROOT}", str(home)], check=True)

    done = _run(
        user,
        home,
        SPICE,
        "validate",
        "rows.jsonl",
        "--out",
        "out.jsonl",
        "--repo",
        f"octo/calc={home / 'calc'}",
    )
    assert done.returncode == 0, done.stderr[-3000:]
    [out] = [json.loads(line) for line in (home / "out.jsonl").read_text().splitlines()]
    assert out["spice"]["validation"]["status"] == "valid", out["spice"]["validation"]
    assert json.loads(out["FAIL_TO_PASS"]) == ["tests/test_calc.py::test_add"]
    assert (home / "data").stat().st_mode & 0o077 == 0  # made by the child, under its umask

    probe = _run(user, home, sys.executable, "-c", _PROBE)
    assert probe.stdout.strip() == "on", probe.stderr[-2000:]

    # A data directory that cannot hold a job's scratch: validation is off, saying why.
    read_only = (
        "unshare",
        "--mount",
        "--propagation",
        "private",
        "--",
        "sh",
        "-c",
        'mount --bind -o ro "$0" "$0" && exec "$@"',
        str(home / "data"),
    )
    broken = _run(user, home, sys.executable, "-c", _PROBE, around=read_only)
    said = broken.stdout.strip()
    assert said.startswith("live validation is off: no sandbox"), broken.stderr[-2000:]
    assert "cannot make a job's scratch directory" in said and "Read-only file system" in said
