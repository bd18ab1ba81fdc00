"""The bubblewrap sandbox's own guarantees, command by command: an explicit environment, no
network, the process tree gone at the timeout, output kept within its cap, a low disk stops
the command."""

from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path

from spice_engine.validate.bubblewrap import Bubblewrap
from spice_engine.validate.sandbox import Bind, Limits
from tests.validation_support import sandbox_fixture  # noqa: F401


def _alive(marker: str) -> list[str]:
    found = []
    for pid in os.listdir("/proc"):
        try:
            if marker.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(pid)
        except OSError:
            continue
    return found


def test_at_the_timeout_the_whole_tree_goes(sandbox: Bubblewrap) -> None:
    marker = f"spice-timeout-{uuid.uuid4().hex}"
    sleeper = f"python3 -c 'import time; time.sleep(300)' {marker}"
    script = f"(setsid {sleeper} &) ; {sleeper}"
    done = sandbox.run(["sh", "-c", script], binds=[], cwd=Path("/"), env={}, timeout_s=2)
    assert done.timed_out and done.returncode is None
    assert _alive(marker) == []


def test_the_environment_is_only_what_it_is_given(sandbox: Bubblewrap) -> None:
    os.environ["SPICE_CANARY_SECRET"] = "must-not-leak-3141"
    try:
        done = sandbox.run(["env"], binds=[], cwd=Path("/"), env={"A": "1"}, timeout_s=30)
    finally:
        del os.environ["SPICE_CANARY_SECRET"]
    names = {line.split("=", 1)[0] for line in done.log.splitlines() if "=" in line}
    assert names <= {"A", "PATH", "LANG", "PWD", "SHLVL", "_"}, names
    assert "must-not-leak" not in done.log


def test_output_is_kept_within_its_cap(tmp_path: Path) -> None:
    box = Bubblewrap(limits=Limits(output_bytes=1000))
    script = "echo first-line; head -c 100000 /dev/zero | tr '\\0' x; echo; echo last-line"
    done = box.run(["sh", "-c", script], binds=[], cwd=Path("/"), env={}, timeout_s=30)
    assert done.log.startswith("first-line") and done.log.rstrip().endswith("last-line")
    assert "bytes of output cut" in done.log and len(done.log) < 1200


def test_a_disk_running_low_stops_the_command(tmp_path: Path, sandbox: Bubblewrap) -> None:
    free = shutil.disk_usage(tmp_path).free
    # The floor sits 64 MiB under what is free now: writing 256 MiB crosses it.
    box = Bubblewrap(limits=Limits(min_free_disk_bytes=free - (64 << 20)))
    box.prepare_writable(tmp_path)
    script = "head -c 268435456 /dev/zero > /w/fill; sleep 30"
    done = box.run(
        ["sh", "-c", script],
        binds=[Bind(source=tmp_path, target=Path("/w"), writable=True)],
        cwd=Path("/"),
        env={},
        timeout_s=60,
    )
    # Killed for the disk, so before its `sleep 30` ended (no wall clock on a loaded machine).
    assert done.killed and done.killed.startswith("disk:"), done.log
