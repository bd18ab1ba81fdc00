"""A pytest plugin loaded into the project's own pytest by `spice test-strength` (as
`_spice_mutants`).

After the session's ordinary run it runs the chosen tests again once per mutant of a mutant
schema (spice_engine.strength.mutants), switching the mutant on by setting `SPICE_MUTANT` in
its own process: no new interpreter, no re-import. A mutant is killed by the first of its
tests that fails (the fail-to-pass tests go first, so most mutants cost one test) and passes
again with no mutant on (a control run, once per test, the first time it fails: a test that
fails a later run in its session whatever the code cannot judge); it survives when every test
that passed in the ordinary run, but those, passes. Each test has a time limit (an
alarm: a mutant that loops forever is killed by it); the results are appended to a file as
they come, with the mutant being run named beforehand, so a crash loses nothing but that one.

It runs under the pytest the project pins, with the same care as the rerun plugin: only hooks
and `runtestprotocol`, type comments, nothing from this package.
"""

import json
import os
import signal
import time
from typing import Any, Dict, List, Set  # noqa: F401 (type comments)

import pytest
from _pytest.runner import runtestprotocol

_DIR = os.environ.get("SPICE_RERUN_DIR", "")
_first = {}  # type: Dict[str, str]


class _TestTimeout(BaseException):
    """Raised by the alarm in a test that ran past its limit (not an `Exception`: code under
    test that catches every exception must not swallow it)."""


def _failed(reports):
    # type: (List[Any]) -> bool
    return any(r.failed for r in reports)


def pytest_runtest_logreport(report):
    # type: (Any) -> None
    if report.failed:
        _first[report.nodeid] = "failed"
    elif report.when == "call" and report.nodeid not in _first:
        _first[report.nodeid] = "skipped" if report.skipped else "passed"


def _alarm(signum, frame):
    # type: (int, Any) -> None
    raise _TestTimeout("test ran past the mutant time limit")


def _write(name, text):
    # type: (str, str) -> None
    with open(os.path.join(_DIR, name), "a") as fh:
        fh.write(text)
        fh.flush()


def _fails(item, limit):
    # type: (Any, float) -> bool
    """Run `item` once more (its fixtures set up and torn down around it): did it fail?"""
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        reports = runtestprotocol(item, nextitem=None, log=False)
    except _TestTimeout:
        return True
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return _failed(reports)


def _mutate(session):
    # type: (Any) -> None
    with open(os.path.join(_DIR, "settings.json")) as fh:
        settings = json.load(fh)
    by_id = dict((item.nodeid, item) for item in session.items)
    tests = [by_id[t] for t in settings["tests"] if t in by_id and _first.get(t) == "passed"]
    limit = float(settings["per_test_s"])
    deadline = time.time() + float(settings["budget_s"])
    old = signal.signal(signal.SIGALRM, _alarm)
    try:
        _write("baseline.json", json.dumps({"passed": [t.nodeid for t in tests]}))
        checked = set()  # type: Set[str]
        unstable = set()  # type: Set[str]
        for mutant in settings["mutants"]:
            if time.time() > deadline:
                break
            _write("current.txt", "%s\n" % mutant)
            os.environ["SPICE_MUTANT"] = str(mutant)
            started, killer = time.time(), None
            for item in tests:
                if item.nodeid in unstable or not _fails(item, limit):
                    continue
                if item.nodeid not in checked:
                    # The control, the first time a test fails under a mutant: again with no
                    # mutant on. One that fails now fails a later run in its session whatever
                    # the code (it left state behind): it cannot judge here.
                    checked.add(item.nodeid)
                    os.environ.pop("SPICE_MUTANT", None)
                    broken = _fails(item, limit)
                    os.environ["SPICE_MUTANT"] = str(mutant)
                    if broken:
                        unstable.add(item.nodeid)
                        _write("unstable.txt", item.nodeid + "\n")
                        continue
                killer = item.nodeid
                break
            row = {"id": mutant, "killed_by": killer, "seconds": round(time.time() - started, 3)}
            _write("results.jsonl", json.dumps(row) + "\n")
    finally:
        os.environ.pop("SPICE_MUTANT", None)
        signal.signal(signal.SIGALRM, old)


def _loop(session):
    # type: (Any) -> Any
    yield
    if _DIR and os.path.isfile(os.path.join(_DIR, "settings.json")):
        _mutate(session)


if hasattr(pytest, "hookimpl"):
    pytest_runtestloop = pytest.hookimpl(hookwrapper=True)(_loop)
