"""Whether a sandbox can run a job's command here, found by doing what every job does.

Starting `true` in an empty sandbox says little: under the App's umask (077) that passed while
every job failed to enter its worktree. The probe makes a scratch directory the way jobs make
theirs (under the given parent, with this process's umask), hands it to the sandbox, binds it
writable, works in it, writes a file and reads it back there and from here, and checks who
wrote it.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from spice_engine.validate import door
from spice_engine.validate.sandbox import Bind, Sandbox, SandboxUnavailable

TARGET = Path("/spice/probe")
PROBE_TIMEOUT_S = 60
_SCRIPT = 'id -u > written && cat written && pwd && test "$(cat written)" = "$(id -u)"'


def job_problem(sandbox: Sandbox, parent: Path, uid: int | None = None) -> str | None:
    """Why a job's command cannot run in `sandbox` (None: it can), probed in a scratch
    directory under `parent`; `uid`: who sandboxed code must run as."""
    try:
        parent.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(dir=parent, prefix="sandbox-probe-"))
    except OSError as exc:
        return f"cannot make a job's scratch directory in {parent}: {exc.strerror}"
    try:
        sandbox.prepare_writable(scratch)
        done = sandbox.run(
            ["sh", "-c", _SCRIPT],
            binds=[Bind(source=scratch, target=TARGET, writable=True)],
            cwd=TARGET,
            env={},
            timeout_s=PROBE_TIMEOUT_S,
        )
        said = done.log.strip().splitlines()
        if done.returncode != 0:
            return f"{sandbox.name} cannot run a job's command here: {(said or ['no output'])[-1]}"
        written = door.read_text(scratch, "written", 64).strip()
        if uid is not None and written != str(uid):
            return f"{sandbox.name} ran a job's command as uid {written}, not {uid}"
        if said[:2] != [written, str(TARGET)]:
            return f"{sandbox.name} ran a job's command elsewhere: {' '.join(said[:2])}"
    except (OSError, SandboxUnavailable, door.DoorRefused) as exc:
        return f"{sandbox.name} cannot run a job's command here: {exc}"
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return None
