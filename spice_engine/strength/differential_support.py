"""The differential run of one survivor, whatever runs the tests: our pytest plugin
(spice_engine.strength.mutant_plugin, a group being a test's items) or our driver of a
runner of the repository's own (spice_engine.strength.watch_plugin, one group: the whole
command). Each group that reaches the survivor runs watched under the fix (twice) and under the
mutant until one tells them apart; then calls the tests made are replayed on neighbouring
inputs (replay_support).

Plugin rules apply: the project's Python (3.6 and later), type comments, nothing from this
package.
"""

import json
import os
import time
from typing import Any, Callable, Dict, List, Optional  # noqa: F401 (type comments)

KEPT = 10
"""Calls kept to replay on neighbouring inputs, shared among the groups."""


def switch(mutant):
    # type: (int) -> Callable[[bool], None]
    """What switches `mutant` on and off in this process (the schema reads `SPICE_MUTANT`)."""

    def turn(on):
        # type: (bool) -> None
        if on:
            os.environ["SPICE_MUTANT"] = str(mutant)
        else:
            os.environ.pop("SPICE_MUTANT", None)

    return turn


def observe(mutant, groups, watch, switch, deadline, extras):
    # type: (int, List[Any], Callable[[Any, int, bool], Any], Callable[[bool], None], float, Dict[str, Any]) -> Dict[str, Any]
    """The message saying what the differential run of `mutant` saw. `watch(group, capture,
    on)`: the observer of one watched run of `group` (the fix's, or with the mutant `on`),
    keeping its first `capture` calls; None when a test failed or ran past its limit.
    `extras`: the observe, compare, replay and moves support modules by stem."""
    started = time.time()
    observe_, compare = extras.get("observe"), extras.get("compare")  # type: Any, Any
    replay, movers = extras.get("replay"), extras.get("moves")  # type: Any, Any
    differs, seen, shows = None, None, ""  # type: Any, Any, Any
    why = "a test failed or ran past its limit while watched"
    captured, calls, unsure = [], 0, False  # type: List[Any], int, bool
    share = max(2, KEPT // max(1, len(groups)))  # each test's calls, not the first test's alone
    for group in groups:
        if time.time() > deadline:
            unsure, why = True, "the time budget ended it"
            break
        fix, again = watch(group, KEPT, False), watch(group, 0, False)
        under = watch(group, 0, True)
        if fix is None or again is None or under is None or compare is None:
            unsure = True
            continue
        calls += len(fix.calls)
        captured += fix.captured[: min(share, KEPT - len(captured))]
        said = compare.differs(fix.calls, again.calls, under.calls)
        if said is None:  # this group cannot tell: no claim of sameness rests on the others
            unsure, why = True, "two runs of the fix made {} and {} calls"
            why = why.format(len(fix.calls), len(again.calls))
        else:
            differs = said or bool(differs)
        if differs:
            seen, shows = "tests", differs
            break
    if differs is False and None not in (replay, observe_, compare, movers):
        tally = {}  # type: Dict[str, int]  # the tests' inputs cannot tell: next to them?
        judge = (observe_.outcome, compare.changed)
        differs = replay.nearby_differs(captured, mutant, switch, judge, deadline, movers, tally)
        seen, shows = ("nearby", differs) if differs else (None, "")
        why = "no input next to the tests' reached it ({} of {} calls kept to replay; {})"
        why = why.format(len(captured), calls, json.dumps(tally, sort_keys=True))
    differs = None if unsure and differs is False else differs
    told = None if differs is None else bool(differs)  # a bool, not where it was seen
    message = {"kind": "observed", "id": mutant, "calls": calls, "differs": told, "where": shows}
    seconds = round(time.time() - started, 3)
    return dict(message, seen=seen, why=why if differs is None else "", seconds=seconds)
