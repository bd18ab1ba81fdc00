"""Runs an issue's shell commands with the programs the tree just built, inside the sandbox
(spice_engine.strength.shell_examples): one session in a folder of its own, the commands in
the issue's order in one shell (a `cd` holds for the next), each one's output, errors and exit
status kept apart, the whole session run `runs` times afresh. Standard output is the results
channel: one JSON line per run. Runs under the machine's own Python 3 (3.6 and later), given
its settings as JSON in SPICE_SHELL_EXAMPLES; or, for a Python tree whose programs are its
environment's console scripts, as statements our example driver runs in each state
(spice_engine.strength.examples_plugin: `_session` called, the mutant's switch inherited).
"""

import hashlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
from typing import Dict, List, Optional, Tuple  # noqa: F401 (type comments)

SETTINGS = "SPICE_SHELL_EXAMPLES"
KEEP = 4000
"""What of one command's output is compared and sent (its start)."""
NEAR_S = 5
"""What a neighbour of the issue's commands may take (an argument left out may make a program
wait, say for input): killed then, under the fix and each survivor alike."""
DEPTH = 4
SKIPPED = {".git", "node_modules", "deps", "incremental", "build", ".fingerprint"}


def _programs(names, folders):
    # type: (List[str], List[str]) -> Dict[str, str]
    """name -> the built executable of that name nearest a folder's top (None: not built)."""
    found = {}  # type: Dict[str, Tuple[int, str]]
    for top in folders:
        base = top.rstrip("/").count("/")
        for here, dirs, files in os.walk(top):
            depth = here.rstrip("/").count("/") - base
            dirs[:] = [] if depth >= DEPTH else sorted(d for d in dirs if d not in SKIPPED)
            for name in names:
                path = os.path.join(here, name)
                built = name in files and os.path.isfile(path) and os.access(path, os.X_OK)
                if built and (name not in found or depth < found[name][0]):
                    found[name] = (depth, path)
    return {name: found[name][1] for name in found}


_ENTRY = """import importlib, sys
if sys.path and sys.path[0] in ("", "."):
    del sys.path[0]  # as an installed script runs: not from the folder it is run in
sys.argv[0] = %r
found = importlib.import_module(%r)
for part in %r.split("."):
    found = getattr(found, part)
sys.exit(found())
"""


def _wrappers(entries, python, folder):
    # type: (Dict[str, str], str, str) -> None
    """A script in `folder` for each console script of `entries` (name -> `module:function`),
    calling it with `python`: the tree's own code, as the environment's would."""
    for name, target in entries.items():
        module, _, attribute = target.partition(":")
        code = _ENTRY % (name, module, attribute)
        text = '#!/bin/sh\nexec %s -c %s "$@"\n' % (shlex.quote(python), shlex.quote(code))
        # Written by descriptor (in the sandbox, into our own temporary folder).
        fd = os.open(os.path.join(folder, name), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o755)
        try:
            os.write(fd, text.encode("utf-8"))
        finally:
            os.close(fd)


def _script(commands, outputs, near_from=None):
    # type: (List[str], str, Optional[int]) -> str
    """One bash script running `commands` in turn, each one's streams into files of its own;
    those from `near_from` on (the neighbours) each in a shell of its own, bounded in time."""
    lines = ["set +e"]
    for n, command in enumerate(commands):
        at = os.path.join(outputs, str(n))
        if near_from is not None and n >= near_from:
            command = "timeout -s KILL %d bash -c %s" % (NEAR_S, shlex.quote(command))
        lines.append(
            "{ %s\n} >'%s.out' 2>'%s.err' </dev/null; echo $? >'%s.rc'" % (command, at, at, at)
        )
    return "\n".join(lines) + "\n"


def _read(path):
    # type: (str) -> Optional[str]
    try:
        with open(path, "rb") as f:
            return f.read(KEEP).decode("utf-8", "replace")
    except OSError:
        return None


def _session(commands, bin_dir, timeout_s, near_from=None):
    # type: (List[str], str, float, Optional[int]) -> List[List[str]]
    """[command, printed] for each command that ended, in order (`near_from`: the index of
    the first neighbour of the issue's commands, None when there are none)."""
    root = tempfile.mkdtemp(prefix="spice-shell-")
    # The same folder name every run: a program printing where it runs prints it alike.
    work = os.path.join(tempfile.gettempdir(), "spice-example")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = dict(os.environ)
    env.pop(SETTINGS, None)
    env.update({"PATH": bin_dir + os.pathsep + env.get("PATH", ""), "HOME": work, "PWD": work})
    process = subprocess.Popen(
        ["bash", "-c", _script(commands, root, near_from)],
        cwd=work,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        process.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    said = []  # type: List[List[str]]
    for n, command in enumerate(commands):
        at = os.path.join(root, str(n))
        status = _read(at + ".rc")
        if status is None:
            said.append([command, "(did not finish)"])
            break
        printed = _read(at + ".out") or ""
        errors = _read(at + ".err") or ""
        if errors:
            printed += "\n[stderr] " + errors
        if status.strip() != "0":
            printed += "\n[exit %s]" % status.strip()
        said.append([command, printed])
    shutil.rmtree(root, ignore_errors=True)
    return said


def main():
    # type: () -> None
    settings = json.loads(os.environ[SETTINGS])
    commands, names = settings["commands"], settings["programs"]
    programs = _programs(names, settings["folders"])
    bin_dir = tempfile.mkdtemp(prefix="spice-bin-")
    for name, path in programs.items():
        os.symlink(path, os.path.join(bin_dir, name))
    for run in range(int(settings.get("runs", 1))):
        said = _session(commands, bin_dir, float(settings["timeout_s"]), settings.get("near_from"))
        digest = hashlib.sha256(json.dumps(said).encode()).hexdigest()
        message = {
            "status": "ok",
            "run": run,
            "built": sorted(programs),
            "statements": said,
            "digest": digest,
        }
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


if __name__ == "__main__" and SETTINGS in os.environ:  # not where the example driver runs it
    main()
