"""A long batch is never silent: each phase said as it starts, and off a terminal a heartbeat
naming what still runs, until the instance is done."""

from __future__ import annotations

import threading
import time

from app.cli.progress import PhaseReporter


def test_phases_are_said_and_a_heartbeat_names_what_still_runs() -> None:
    lines: list[str] = []
    lock = threading.Lock()

    def say(line: str) -> None:
        with lock:
            lines.append(line)

    with PhaseReporter("validate", say, heartbeat=True, every_s=0.05) as phases:
        phases.phase("a-1", "environment")
        phases.phase("a-1", "before")
        deadline = time.monotonic() + 10
        while not any("still in before" in line for line in lines):
            assert time.monotonic() < deadline, lines
            time.sleep(0.01)
        phases.done("a-1")
        with lock:
            seen = len(lines)
        time.sleep(0.3)
    assert lines[0].startswith("validate: a-1 environment (at ")
    assert lines[1].startswith("validate: a-1 before (at ")
    beat = next(line for line in lines if "still in before" in line)
    assert beat.startswith("validate: a-1 still in before for ") and "s in all)" in beat
    assert len(lines) == seen  # done: no more beats for it


def test_on_a_terminal_there_is_no_heartbeat() -> None:
    lines: list[str] = []
    with PhaseReporter("validate", lines.append, heartbeat=False, every_s=0.01) as phases:
        phases.phase("a-1", "after")
        time.sleep(0.1)
    assert [line.split(" (at ")[0] for line in lines] == ["validate: a-1 after"]
