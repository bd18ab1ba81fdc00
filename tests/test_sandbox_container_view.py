"""What a sandboxed command sees of the machine, as a container would: its own cgroups,
read-only (runtimes read their limits there; Go programs that look for the cgroup root panic
at start-up without it), and a writable /dev/shm (multiprocessing's locks live there)."""

from __future__ import annotations

from pathlib import Path

import pytest

from spice_engine.validate.bubblewrap import Bubblewrap
from spice_engine.validate.sandbox_root import own_cgroups


def test_the_sandbox_sees_itsown_cgroups_and_cannot_change_them(tmp_path: Path) -> None:
    box = Bubblewrap()
    if why := box.problem(tmp_path):
        pytest.skip(f"bubblewrap cannot run here: {why}")
    if not own_cgroups():
        pytest.skip("this machine shows no cgroup of this process")
    script = (
        "test -d /sys/fs/cgroup && echo present; "
        "find /sys/fs/cgroup -maxdepth 2 -name cgroup.procs | head -1 | grep -q . && echo own; "
        "for f in $(find /sys/fs/cgroup -maxdepth 2 -type f | head -20); do "
        "(echo 1 > $f) 2>/dev/null && echo WROTE $f; done; "
        "ls /sys; ls /sys/fs"
    )
    done = box.run(["sh", "-c", script], binds=[], cwd=Path("/"), env={}, timeout_s=60)
    assert done.returncode == 0, done.log
    lines = done.log.split()
    assert "present" in lines and "own" in lines and "WROTE" not in lines
    assert lines[-2:] == ["fs", "cgroup"]  # nothing else of the host's /sys


def test_the_sandbox_has_a_writable_dev_shm_for_multiprocessing_locks(tmp_path: Path) -> None:
    box = Bubblewrap()
    if why := box.problem(tmp_path):
        pytest.skip(f"bubblewrap cannot run here: {why}")
    lock = "import multiprocessing; multiprocessing.Lock(); print('locked')"
    done = box.run(["python3", "-c", lock], binds=[], cwd=Path("/"), env={}, timeout_s=60)
    assert done.returncode == 0 and "locked" in done.log, done.log
