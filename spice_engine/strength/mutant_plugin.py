"""A pytest plugin loaded into the project's own pytest by `spice test-strength` (as
`_spice_mutants`).

After the session's ordinary run it runs the chosen tests again once per mutant of a mutant
schema (spice_engine.strength.mutants), switching the mutant on by setting `SPICE_MUTANT` in
its own process: no new interpreter, no re-import. A mutant is killed by the first of its
tests that fails (the fail-to-pass tests go first, so most mutants cost one test) and passes
again with no mutant on (a control run, once per test, the first time it fails: a test that
fails a later run in its session whatever the code cannot judge); it survives when every test
that passed in the ordinary run, but those, passes. Each test has a time limit (an
alarm: a mutant that loops forever is killed by it); the results are sent as
they come through the run's channel, with the mutant being run named beforehand, so a crash
loses nothing but that one.

Once every mutant has its verdict, each survivor in a named function gets a differential run:
the tests that reach it run twice with no mutant on and once with it, each call of its function
recorded (spice_engine.strength.observe_support), then calls the tests made are replayed on
neighbouring inputs (spice_engine.strength.replay_support); the plugin says whether anything
told the mutant from the fix (nothing: an equivalent mutant there).

The same plugin, told to select tests and given no mutants, only selects: the run executes
exactly the tests named (by node id, as SWE-bench's log parser writes them), whatever characters
the ids hold.

It runs under the pytest the project pins, with the same care as the rerun plugin: only hooks
and `runtestprotocol`, type comments, nothing from this package in a run.
"""

import importlib
import json
import os
import signal
import sys
import time
from typing import Any, Dict, List, Set  # noqa: F401 (type comments)

import pytest
from _pytest.runner import runtestprotocol

_DIR = os.environ.get("SPICE_PLUGIN_DIR", "")
_first = {}  # type: Dict[str, str]
_reached = {}  # type: Dict[str, Set[int]]
_settings = {}  # type: Dict[str, Any]

# Our shared plugin code, loaded just before this plugin (`-p`) under a name of this run's own
# (imported as part of our package, outside a run, it is the package's own).
_SUPPORT = sys.modules.get(os.environ.get("SPICE_SUPPORT_MODULE", "")) or importlib.import_module(
    "spice_engine.validate.plugin_support"
)
named = _SUPPORT.named
select = _SUPPORT.select
send = _SUPPORT.send
_fix_calls = {}  # type: Dict[Any, Any]


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


def _load():
    # type: () -> Dict[str, Any]
    if not _settings and _DIR and os.path.isfile(os.path.join(_DIR, "settings.json")):
        with open(os.path.join(_DIR, "settings.json")) as fh:
            _settings.update(json.load(fh))
    return _settings


def pytest_collection_modifyitems(session, config, items):
    # type: (Any, Any, List[Any]) -> None
    if _load().get("select"):
        select(config, items, list(_settings["tests"]))


def _imported():
    # type: () -> List[str]
    """The tree's files the session has imported (the tests' imports and theirs), relative to
    the tree: where code run at import ran."""
    here = os.getcwd() + os.sep
    found = set()  # type: Set[str]
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and path.startswith(here) and path.endswith(".py"):
            found.add(path[len(here) :].replace(os.sep, "/"))
    return sorted(found)


def _alarm(signum, frame):
    # type: (int, Any) -> None
    raise _TestTimeout("test ran past the mutant time limit")


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


def _group_fails(group, limit):
    # type: (List[Any], float) -> bool
    return any(_fails(item, limit) for item in group)


def _probe(item):
    # type: (Any) -> Any
    """Around each test of the ordinary run: which mutants' code it executes (their switches
    record themselves while `sys._spice_reached` is set)."""
    if "mutants" not in _load():
        yield
        return
    sys._spice_reached = set()  # type: ignore[attr-defined]
    try:
        yield
    finally:
        _reached[item.nodeid] = sys.__dict__.pop("_spice_reached", set())


def _extra(stem):
    # type: (str) -> Any
    """A module the plugin folder holds beside this one (spice_engine.validate.plugin_run)."""
    name = _settings.get("extras", {}).get(stem)
    try:
        return importlib.import_module(name) if name else None
    except ImportError:
        return None


def _watched(where, groups, limit, capture=0):
    # type: (Dict[str, str], List[Any], float, int) -> Any
    """The observer of the function `where` names while `groups` run once more (None: a test
    failed or ran past its limit, or the plugin's modules are missing)."""
    observe, replay = _extra("observe_support"), _extra("replay_support")
    if observe is None or replay is None:
        return None
    watcher = observe.Observer(where["path"], where["function"], replay.kept, capture)
    with watcher:  # a traced run is slower: three times the limit
        if any(_group_fails(group, 3 * limit) for group in groups):
            return None
    return watcher


def _fix_watched(where, group, limit, capture):
    # type: (Dict[str, str], Any, float, int) -> Any
    """The fix's watched runs of one group (made once per function, group and capture)."""
    key = (where["path"], where["function"], id(group), capture)
    if key not in _fix_calls:
        os.environ.pop("SPICE_MUTANT", None)
        _fix_calls[key] = _watched(where, [group], limit, capture)
    return _fix_calls[key]


def _observe(mutant, where, tests, limit, deadline):
    # type: (int, Dict[str, str], List[Any], float, float) -> None
    """The differential run of one survivor (differential_support), over the tests that
    reach it."""
    groups = [g for _, g in tests if any(mutant in _reached.get(i.nodeid, ()) for i in g)]
    differential = _extra("differential_support")
    if not groups or differential is None:
        return  # executed by no test: a gap, not a candidate for equivalence
    switch = differential.switch(mutant)

    def watch(group, capture, on):
        # type: (Any, int, bool) -> Any
        if not on:
            return _fix_watched(where, group, limit, capture)
        switch(True)
        try:
            return _watched(where, [group], limit)
        finally:
            switch(False)

    extras = {n: _extra(n + "_support") for n in ("observe", "compare", "replay", "moves")}
    send(differential.observe(mutant, groups, watch, switch, deadline, extras))


def _mutate(session):
    # type: (Any) -> None
    settings = _load()
    tests = [
        (t, group)
        for t, group in named(session.items, list(settings["tests"]))
        if all(_first.get(i.nodeid) == "passed" for i in group)
    ]
    limit, budget = float(settings["per_test_s"]), float(settings["budget_s"])
    deadline = time.time() + budget
    # A budget that binds is shared: verdicts until half of it, differential runs until three
    # quarters, the rest for the host's confirmations (a survivor with evidence over more
    # verdicts without any).
    verdicts_end, watching_end = deadline - budget / 2, deadline - budget / 4
    old = signal.signal(signal.SIGALRM, _alarm)
    try:
        send({"kind": "baseline", "passed": [t for t, _ in tests], "imported": _imported()})
        for test, group in tests:
            ids = set()  # type: Set[int]
            for item in group:
                ids |= _reached.get(item.nodeid, set())
            send({"kind": "reached", "test": test, "ids": sorted(ids)})
        checked = set()  # type: Set[str]
        survivors = []  # type: List[int]
        began = time.time()
        unstable = set()  # type: Set[str]
        for mutant in settings["mutants"]:
            if time.time() > verdicts_end:
                break
            send({"kind": "current", "id": mutant})
            os.environ["SPICE_MUTANT"] = str(mutant)
            started, killer = time.time(), None
            for test, group in tests:
                if test in unstable or not _group_fails(group, limit):
                    continue
                if test not in checked:
                    # The control, the first time a test fails under a mutant: again with no
                    # mutant on. One that fails now fails a later run in its session whatever
                    # the code (it left state behind): it cannot judge here.
                    checked.add(test)
                    os.environ.pop("SPICE_MUTANT", None)
                    broken = _group_fails(group, limit)
                    os.environ["SPICE_MUTANT"] = str(mutant)
                    if broken:
                        unstable.add(test)
                        send({"kind": "unstable", "test": test})
                        continue
                killer = test
                break
            seconds = round(time.time() - started, 3)
            send({"kind": "result", "id": mutant, "killed_by": killer, "seconds": seconds})
            if killer is None and str(mutant) in settings.get("observe", {}):
                survivors.append(mutant)
        # Last: a replay may leave state behind, and no verdict is made after it. At most as
        # long again as the verdicts took: those that could be the example first (not a
        # crash-prone operator), then those a fail-to-pass test (run first) reaches.
        first = set()  # type: Set[int]
        for item in tests[0][1] if tests else []:
            first |= _reached.get(item.nodeid, set())
        until = min(watching_end, time.time() + max(5.0, time.time() - began))
        watched = settings["observe"]
        for mutant in sorted(survivors, key=lambda m: (watched[str(m)]["late"], m not in first)):
            if time.time() < until:
                _observe(mutant, watched[str(mutant)], tests, limit, until)
    finally:
        os.environ.pop("SPICE_MUTANT", None)
        signal.signal(signal.SIGALRM, old)


def _loop(session):
    # type: (Any) -> Any
    yield
    if "mutants" in _load():  # a mutant session (with none: its baseline alone)
        _mutate(session)


if hasattr(pytest, "hookimpl"):
    pytest_runtestloop = pytest.hookimpl(hookwrapper=True)(_loop)
    pytest_runtest_protocol = pytest.hookimpl(hookwrapper=True)(_probe)
