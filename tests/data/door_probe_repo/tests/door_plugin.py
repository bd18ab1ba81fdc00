"""Rows 3 and 5 of issue 34: the files the host's pytest plugin leaves its results in.

Row 3 turns them into links to what the host may read and the sandbox may not (the reading
process's own environment, the worker's key), for the host's parser to carry into the results.
Row 5 writes verdicts of its own into them once the plugin is done (every mutant killed), from
the tests' process and from a process the tests start. Neither touches the plugin's module:
code in the plugin's own process could always fake it; files must not.

Where the files are: the plugin's variable, the folder of any loaded `_spice*` module, and
any folder of the job's scratch or `/tmp` that holds such files."""

import json
import os
import subprocess
import sys
import time

from door_find import JOB, probe, walk

RESULTS = ("results.jsonl", "baseline.json", "current.txt", "unstable.txt", "again.json")
ENVIRON = "/proc/self/environ"


def plugin_dirs():
    found = set()
    if os.environ.get("SPICE_RERUN_DIR"):
        found.add(os.environ["SPICE_RERUN_DIR"])
    for name, module in list(sys.modules.items()):
        if name.startswith("_spice") and getattr(module, "__file__", None):
            found.add(os.path.dirname(os.path.abspath(module.__file__)))
    for top in (JOB, "/tmp"):
        for place in walk(top, 3):
            try:
                names = os.listdir(place)
            except OSError:
                continue
            plugin = any(n.startswith("_spice") and n.endswith(".py") for n in names)
            if plugin or "settings.json" in names or set(names) & set(RESULTS):
                found.add(place)
    return sorted(found)


def _point(place, name, target):
    path = os.path.join(place, name)
    try:
        if os.path.lexists(path):
            os.remove(path)
        os.symlink(target, path)
        probe(f"{path} -> {target}", "linked")
    except OSError as exc:
        probe(f"{path} -> {target}", f"blocked: {exc.strerror}")


def environ_everywhere(targets):
    """Every result file: a link to the reader's environment."""
    for place in plugin_dirs():
        for name in RESULTS:
            _point(place, name, ENVIRON)


def environ_last_word(targets):
    """The files the host parses by lines and words (the last mutant started, the unstable
    tests, the reruns), leaving those it reads first as they are, so that it reads on."""
    for place in plugin_dirs():
        for name in ("current.txt", "unstable.txt", "again.json"):
            _point(place, name, ENVIRON)


def worker_key(targets):
    """The same files: links to the worker's private key."""
    for place in plugin_dirs():
        for name in ("current.txt", "unstable.txt", "again.json"):
            _point(place, name, targets["secret"])


def _settings(place):
    try:
        with open(os.path.join(place, "settings.json")) as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return {}


def _fake(place):
    """Every mutant of the session killed, appended after the plugin's own verdicts (the last
    line of a mutant wins), and every judged test in the baseline."""
    settings = _settings(place)
    mutants, tests = settings.get("mutants") or [], settings.get("tests") or ["x"]
    if not mutants:
        return False
    with open(os.path.join(place, "results.jsonl"), "a") as fh:
        for mutant in mutants:
            fh.write(json.dumps({"id": mutant, "killed_by": tests[0], "seconds": 0.0}) + "\n")
    with open(os.path.join(place, "baseline.json"), "w") as fh:
        json.dump({"passed": tests}, fh)
    return True


def fake_verdicts(targets):
    for place in plugin_dirs():
        try:
            probe(f"fake verdicts in {place}", "written" if _fake(place) else "no mutants")
        except OSError as exc:
            probe(f"fake verdicts in {place}", f"blocked: {exc.strerror}")


def spawn_faker(targets):
    """A process of the tests' own that writes the fake verdicts again whenever the plugin has
    written to its results (it ends with the sandbox)."""
    subprocess.Popen(
        [sys.executable, os.path.abspath(__file__), "fake"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    probe("faker", "started")


def _fake_while_written(seconds):
    sizes = {}
    deadline = time.time() + seconds
    while time.time() < deadline:
        for place in plugin_dirs():
            path = os.path.join(place, "results.jsonl")
            try:
                size = os.path.getsize(path)
                if size != sizes.get(path) and _fake(place):
                    size = os.path.getsize(path)
            except OSError:
                continue
            sizes[path] = size
        time.sleep(0.02)


if __name__ == "__main__" and sys.argv[1:] == ["fake"]:
    _fake_while_written(120)
