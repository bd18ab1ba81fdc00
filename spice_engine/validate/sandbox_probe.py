"""Whether a job's commands can run here as jobs run them: not just any command in an empty
sandbox, but one in a tree made the way a job's tree is made, under this process's umask, as the
sandbox's user, writing a file the host then reads through the door."""

from __future__ import annotations

import tempfile
from pathlib import Path

from spice_engine.validate import door
from spice_engine.validate.job_commands import TESTBED
from spice_engine.validate.sandbox import Bind, Sandbox
from spice_engine.validate.tree import tree_dir


def job_problem(sandbox: Sandbox, scratch: Path) -> str | None:
    """Why a job could not use its tree in `sandbox` (None: it can). `scratch` is where jobs
    make their trees (under the data directory)."""
    if why := sandbox.problem():
        return why
    try:
        return _tree_problem(sandbox, scratch)
    except OSError as exc:
        return f"a job's tree cannot be made under {scratch}: {exc.strerror or exc}"


def _tree_problem(sandbox: Sandbox, scratch: Path) -> str | None:
    scratch.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=scratch, prefix="probe-") as where:
        tree = Path(where) / "tree"
        tree_dir(tree)
        door.write_text(tree, "given.txt", "given\n")
        sandbox.prepare_writable(tree)
        done = sandbox.run(
            ["/bin/sh", "-c", "cat given.txt && echo written > written.txt"],
            binds=[Bind(source=tree, target=TESTBED, writable=True)],
            cwd=TESTBED,
            env={},
            timeout_s=60,
        )
        if done.returncode == 0 and door.is_file(tree, "written.txt"):
            return None
        last = done.log.strip().splitlines()[-1:] or [f"exit {done.returncode}"]
        return f"a job's sandbox cannot use its tree here: {last[0]}"
