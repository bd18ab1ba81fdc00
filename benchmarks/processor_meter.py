"""Processor seconds of a command and every process it starts, and the least warm / bare ratio
they allow on this machine (`benchmarks/validate_langs.py`)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

CPUACCT = Path("/sys/fs/cgroup/cpuacct")
"""cgroup v1's processor accounting: a group of our own counts every process the run starts,
inside a sandbox's process namespace too (which hands no usage up to its parent)."""


@contextmanager
def processor_seconds() -> Iterator[Callable[[], float]]:
    """A meter of the processor seconds used since it started: by this process and every one
    it starts, from a cgroup of its own when this machine lets us make one, else the machine's
    busy seconds (/proc/stat: measure idle then)."""
    group = CPUACCT / f"spice-bench-{os.getpid()}"
    try:
        group.mkdir()
        (group / "cgroup.procs").write_text(str(os.getpid()))
    except OSError:
        with contextlib.suppress(OSError):
            group.rmdir()
        start = _machine_busy()
        yield lambda: _machine_busy() - start
        return
    try:
        start_ns = int((group / "cpuacct.usage").read_text())
        yield lambda: (int((group / "cpuacct.usage").read_text()) - start_ns) / 1e9
    finally:
        (CPUACCT / "cgroup.procs").write_text(str(os.getpid()))
        group.rmdir()


def _machine_busy() -> float:
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    ticks = [int(x) for x in fields[:8]]
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")  # less idle, iowait


def floor(bare_s: float, bare_cpu_s: float, cores: int) -> float:
    """The least warm / bare any validation can reach here: its two runs (before and after the
    fix) need twice the bare run's processor seconds, spread over `cores` at best, and no less
    than one run's time."""
    return max(1.0, 2 * bare_cpu_s / (cores * bare_s)) if bare_s else 1.0
