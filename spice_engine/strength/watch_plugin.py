"""Our driver of a Python test runner of the repository's own (sympy's `bin/test`), for the
differential run where our pytest plugin cannot be loaded (as `_spice_watch`).

Started as `python -c "import <support>, <this>; <this>.main()" <the runner's command>`, it runs
that command inside its own process (`runpy`, as `python <script>` would; the host sets
`PYTHONHASHSEED`, so sympy's runner does not start a process of its own), once per watched run:
for each survivor named in its settings (best-ranked first), the tests run watched under the
fix (twice, once per function) and under the mutant (`SPICE_MUTANT`, the schema in the tree),
then the calls they made are replayed next to their inputs (differential_support). Each message
goes through the run's channel as it is made, so a crash or the deadline loses only the
survivor being watched.

Plugin rules apply (spice_engine.strength.mutant_plugin): the project's Python, type comments,
nothing from this package in a run.
"""

import importlib
import json
import os
import runpy
import signal
import sys
import time
import traceback
from typing import Any, Dict, List  # noqa: F401 (type comments)

_SUPPORT = sys.modules.get(os.environ.get("SPICE_SUPPORT_MODULE", "")) or importlib.import_module(
    "spice_engine.validate.plugin_support"
)
send = _SUPPORT.send


class _RunTimeout(BaseException):
    """Raised by the alarm in a run past its limit (not an `Exception`: the runner catches
    every exception a test raises, and must not swallow this one)."""


def _alarm(signum, frame):
    # type: (int, Any) -> None
    raise _RunTimeout()


def _settings():
    # type: () -> Dict[str, Any]
    with open(os.path.join(os.environ.get("SPICE_PLUGIN_DIR", ""), "settings.json")) as fh:
        return json.load(fh)


def _extra(settings, stem):
    # type: (Dict[str, Any], str) -> Any
    name = settings.get("extras", {}).get(stem)
    try:
        return importlib.import_module(name) if name else None
    except ImportError:
        return None


def run_command(argv, limit):
    # type: (List[str], float) -> bool
    """One run of the runner's command (`argv[0]` a script) in this process, within `limit`
    seconds: False when it ran past it or broke before its end (a `SystemExit` is its end)."""
    saved, old = list(sys.argv), signal.signal(signal.SIGALRM, _alarm)
    sys.argv = list(argv)
    # As `python script` runs it: its folder first on the path (sympy's imports `get_sympy`).
    folder = os.path.dirname(os.path.abspath(argv[0]))
    sys.path.insert(0, folder)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        runpy.run_path(argv[0], run_name="__main__")
    except SystemExit:
        pass
    except _RunTimeout:
        sys.stderr.write("spice: a watched run ran past {:.0f} s\n".format(limit))
        return False
    except Exception:  # noqa: BLE001 (a broken run says nothing; its log says why)
        traceback.print_exc()
        return False
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        sys.argv = saved
        if folder in sys.path:
            sys.path.remove(folder)
        sys.stdout.flush()
    return True


def main():
    # type: () -> None
    settings = _settings()
    argv = sys.argv[1:] + list(settings.get("select") or [])  # only the tests that reach them
    limit, deadline = float(settings["per_run_s"]), time.time() + float(settings["budget_s"])
    extras = {
        n: _extra(settings, n + "_support") for n in ("observe", "compare", "replay", "moves")
    }
    differential, observe = _extra(settings, "differential_support"), extras["observe"]
    if differential is None or observe is None or extras["replay"] is None:
        return
    fix_runs = {}  # type: Dict[Any, Any]
    for key in settings["order"]:
        if time.time() > deadline:
            break
        where, mutant = settings["observe"][str(key)], int(key)
        switch = differential.switch(mutant)

        def watch(group, capture, on, where=where, switch=switch):
            # type: (Any, int, bool, Dict[str, str], Any) -> Any
            known = (where["path"], where["function"], capture)
            if not on and known in fix_runs:
                return fix_runs[known]
            watcher = observe.Observer(
                where["path"], where["function"], extras["replay"].kept, capture
            )
            switch(on)
            try:
                with watcher:  # a traced run is slower: three times the limit
                    ran = run_command(group, 3 * limit)
            finally:
                switch(False)
            if not on:
                fix_runs[known] = watcher if ran else None
            return watcher if ran else None

        send({"kind": "current", "id": mutant})
        send(differential.observe(mutant, [argv], watch, switch, deadline, extras))
