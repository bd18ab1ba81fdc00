"""bubblewrap's set-up of a sandbox's loopback: a networked sandbox is set up like any other
(nothing else configures its namespace); when the set-up fails for a moment all the same,
nothing of the command ran, so the sandbox starts it again (a stand-in `bwrap` fails twice,
then is the real one), and a failure that persists is reported as it is."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from spice_engine.validate.bubblewrap import SETUP_ATTEMPTS, Bubblewrap

FLAKY_BWRAP = """#!/bin/sh
n=$(cat {count} 2>/dev/null || echo 0)
echo $((n + 1)) > {count}
if [ "$n" -lt {failures} ]; then
  echo "bwrap: loopback: Failed RTM_NEWADDR: No child processes" >&2
  exit 1
fi
exec {real} "$@"
"""


def _stand_in(tmp_path: Path, failures: int) -> tuple[Bubblewrap, Path]:
    real = shutil.which("bwrap")
    if real is None:
        pytest.skip("no bwrap here: install Debian's bubblewrap")
    count, script = tmp_path / "count", tmp_path / "bwrap"
    script.write_text(FLAKY_BWRAP.format(count=count, failures=failures, real=real))
    script.chmod(0o755)
    return Bubblewrap(bwrap=str(script), setup_wait_s=0.01), count


def test_a_passing_loopback_failure_is_run_again(tmp_path: Path) -> None:
    box, count = _stand_in(tmp_path, failures=2)
    done = box.run(["echo", "ran"], binds=[], cwd=Path("/"), env={}, timeout_s=30)
    assert done.returncode == 0, done.log
    assert "ran" in done.log
    assert count.read_text().strip() == "3"


def test_a_lasting_one_is_reported_after_the_last_attempt(tmp_path: Path) -> None:
    box, count = _stand_in(tmp_path, failures=1000)
    done = box.run(["echo", "ran"], binds=[], cwd=Path("/"), env={}, timeout_s=30)
    assert done.returncode == 1 and "RTM_NEWADDR" in done.log and "ran" not in done.log
    assert count.read_text().strip() == str(SETUP_ATTEMPTS)


def test_networked_sandboxes_start_first_time(tmp_path: Path) -> None:
    """No retry needed: the index proxy is outside the sandbox's namespace (slirp4netns,
    configuring the namespace while bubblewrap did, failed one start in two)."""
    box = Bubblewrap(setup_attempts=1)
    if why := box.problem() or box.network_problem():
        pytest.skip(f"no sandbox here: {why}")
    for _ in range(12):
        done = box.run(["true"], binds=[], cwd=Path("/"), env={}, timeout_s=30, network=True)
        assert done.returncode == 0, done.log
