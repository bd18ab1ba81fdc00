"""Runs the attacks an instance's test patch names in `tests/door_plan.json` (a clean instance
has none): `now` at import, when the tests are collected; `after` once the session is done,
last of every plugin's `pytest_sessionfinish` and again at `pytest_unconfigure`, so that the
host's plugin has written its results before they are tampered with.

The plan names each attack as `module.function` (tests/door_*.py) and gives the host's paths the
attacks aim at (`targets`). What each attempt gave is printed at the end of the run (`door:`
lines), into the run's log."""

import importlib
import json
import os

import door_find
import pytest

_PLAN_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "door_plan.json")
PLAN = {}
if os.path.exists(_PLAN_FILE):
    with open(_PLAN_FILE) as fh:
        PLAN = json.load(fh)


def _run(when):
    for name in PLAN.get(when, []):
        module, function = name.split(".")
        try:
            getattr(importlib.import_module(module), function)(PLAN["targets"])
        except Exception as exc:  # noqa: BLE001 (an attack that fails must not stop the others)
            door_find.probe(name, f"crashed: {exc!r}")


_run("now")


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session):
    _run("after")


def pytest_terminal_summary(terminalreporter):
    for line in door_find.PROBES:
        terminalreporter.write_line("door: " + line)


def pytest_unconfigure(config):
    _run("after")
