"""A pytest plugin loaded into the project's own pytest by `spice validate` (as `_spice_rerun`).

It reruns, in the same session once every test has run, the tests whose outcome decides
FAIL_TO_PASS (at the end, so no later test sees what a rerun left: a temporary directory's
number, a cache, a counter), and sends their second outcomes through the run's channel, never the log: before the fix,
every test that failed or errored; after it, every test that passed and had not passed before
(`settings.json` lists those that had, and bounds the seconds spent rerunning). A rerun in the
session costs the test's own time; a rerun in a new process costs a pytest start-up too (about
a second with plugins).

It runs under whatever pytest the project pins (3.x to 9.x), so it uses only hooks and the
`runtestprotocol` function that pytest-rerunfailures has relied on across those versions, and
nothing from this package in a run. Written for the project's Python (3.6 and later): type comments, no
newer syntax.
"""

import importlib
import json
import os
import sys
from typing import Any, Dict, List  # noqa: F401 (Dict: a type comment)

import pytest
from _pytest.runner import runtestprotocol

_DIR = os.environ.get("SPICE_PLUGIN_DIR", "")
_first = {}  # type: Dict[str, List[Any]]
_again = {}  # type: Dict[str, str]
_seconds = [0.0]
_pending = []  # type: List[Any]
_settings = {}  # type: Dict[str, Any]

# Our shared plugin code, loaded just before this plugin (`-p`) under a name of this run's own
# (imported as part of our package, outside a run, it is the package's own).
_SUPPORT = sys.modules.get(os.environ.get("SPICE_SUPPORT_MODULE", "")) or importlib.import_module(
    "spice_engine.validate.plugin_support"
)
select = _SUPPORT.select
send = _SUPPORT.send


def _setting(name: str) -> Any:
    if not _settings:
        with open(os.path.join(_DIR, "settings.json")) as fh:
            _settings.update(json.load(fh))
    return _settings.get(name)


def _status(reports: List[Any]) -> str:
    """The word `-rA` prints for a test whose phases gave these reports."""
    by_phase = dict((r.when, r) for r in reports)
    for when in ("setup", "call", "teardown"):
        report = by_phase.get(when)
        if report is not None and report.failed:
            return "FAILED" if when == "call" else "ERROR"
    for report in reports:
        if report.skipped:
            return "XFAIL" if hasattr(report, "wasxfail") else "SKIPPED"
    call = by_phase.get("call")
    if call is not None and hasattr(call, "wasxfail"):
        return "XPASS"
    return "PASSED"


def pytest_collection_modifyitems(session: Any, config: Any, items: List[Any]) -> None:
    """With `select` (a rerun in a new process), exactly the tests named run."""
    if _DIR and _setting("select"):
        select(config, items, list(_setting("select")))


def pytest_runtest_logreport(report: Any) -> None:
    _first.setdefault(report.nodeid, []).append(report)


def _protocol(item: Any, nextitem: Any) -> Any:
    yield
    # A test's first reports are needed only until it is done: large suites keep nothing.
    first = _status(_first.pop(item.nodeid, []))
    if _DIR and _setting("budget_s") > 0 and _wanted_first(item.nodeid, first):
        _pending.append(item)


def _wanted_first(nodeid: str, first: str) -> bool:
    passed_before = _setting("passed_before")
    if passed_before is None:
        return first in ("FAILED", "ERROR")
    return first == "PASSED" and nodeid not in passed_before


def _loop(session: Any) -> Any:
    yield
    for i, item in enumerate(_pending):
        if _seconds[0] >= _setting("budget_s"):
            break  # the rest are rerun in new processes (spice validate sees them missing)
        nextitem = _pending[i + 1] if i + 1 < len(_pending) else None
        reports = runtestprotocol(item, nextitem=nextitem, log=False)
        _again[item.nodeid] = _status(reports)
        _seconds[0] += sum(getattr(r, "duration", 0.0) for r in reports)


# Before pytest 2.8 there is no `hookimpl`: the plugin then reruns nothing in the session
# (its file says so) and spice validate reruns in new processes; the run itself goes on.
if hasattr(pytest, "hookimpl"):
    pytest_runtest_protocol = pytest.hookimpl(hookwrapper=True)(_protocol)
    pytest_runtestloop = pytest.hookimpl(hookwrapper=True)(_loop)


def pytest_sessionfinish(session: Any) -> None:
    if _DIR:
        send({"kind": "again", "outcomes": _again, "seconds": round(_seconds[0], 3)})
