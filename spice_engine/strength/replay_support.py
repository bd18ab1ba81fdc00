"""The differential run's second half, loaded beside the mutant plugin: calls of a survivor's
function that the tests made, replayed on inputs next to theirs (one thing moved at a time:
spice_engine.strength.moves_support), under the fix and under the mutant, each on fresh copies
of the arguments.

The tests' own inputs alone would call the textbook weak-test survivor equivalent (`add(2, 0)`
returns 2 with `a + b` and with `a - b`); their neighbours tell it apart (`add(2, 1)`). What is
told apart on any of them is a difference a caller can see. Only when every argument of a
replayed call is plain (an object left as it was could be the input that tells them apart) may
"none told them apart" stand as a claim: a mutant none of those neighbours tells apart is
equivalent on the tests' inputs and next to them, not a proof, and said so in its reason.

Plugin rules apply (spice_engine.strength.mutant_plugin): the project's Python, type comments,
nothing from this package; every replay is bounded in time and never lets an error out.
"""

import contextlib
import copy
import gc
import inspect
import itertools
import signal
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Tuple  # noqa: F401 (type comments)

COPY_S = 1.0
CALL_S = 2.0
MAX_INPUTS = 40
"""Neighbour inputs replayed per survivor at most."""
PER_CALL = 16
"""Of those, per captured call at most (so other tests' calls get theirs)."""
ITEMS = 100
"""A replayed generator's items taken at most, as a caller listing it takes them."""


class _Late(BaseException):
    """A copy or a replay that ran past its limit (not an `Exception`: code under test that
    catches every exception must not swallow it)."""


def bounded(work, seconds):
    # type: (Callable[[], Any], float) -> Any
    """`work()` within `seconds` (raises `_Late`), the alarm already set by the plugin kept."""
    left = signal.getitimer(signal.ITIMER_REAL)[0]
    previous, started = signal.getsignal(signal.SIGALRM), time.time()

    def late(signum, frame):
        # type: (int, Any) -> None
        raise _Late()

    signal.signal(signal.SIGALRM, late)
    signal.setitimer(signal.ITIMER_REAL, min(seconds, left) if left else seconds)
    try:
        return work()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if left:
            signal.setitimer(signal.ITIMER_REAL, max(0.001, left - (time.time() - started)))


class Shallow(list):
    """Arguments copied one level deep: what they hold is shared with the tests' objects."""


def copied(arguments):
    # type: (List[Any]) -> Optional[List[Any]]
    """A deep copy of the arguments; for arguments too large to copy whole in time (a
    document's whole environment), each one copied alone, one level deep (`Shallow`); None
    when neither can be made in time."""
    if isinstance(arguments, Shallow):
        return _shallow(arguments)
    try:
        return bounded(lambda: copy.deepcopy(arguments), COPY_S)
    except (Exception, _Late):  # noqa: BLE001 (a value that will not copy whole)
        return _shallow(arguments)


def _shallow(arguments):
    # type: (List[Any]) -> Optional[List[Any]]
    try:
        return bounded(lambda: Shallow((n, copy.copy(v)) for n, v in arguments), COPY_S)
    except (Exception, _Late):  # noqa: BLE001 (a value that will not copy: no replay)
        return None


def _function(frame, arguments):
    # type: (Any, List[Any]) -> Any
    """The function object whose code the frame runs, found without running project code:
    a module's function by name, a method or class method on its first argument's class."""
    code = frame.f_code
    found = [frame.f_globals.get(code.co_name)]
    if arguments:
        first = arguments[0][1]
        for owner in (type(first), first):
            if isinstance(owner, type):
                with contextlib.suppress(AttributeError):
                    found.append(inspect.getattr_static(owner, code.co_name))
    for candidate in found:
        candidate = getattr(candidate, "__func__", candidate)  # classmethod, staticmethod
        for function in (candidate, getattr(candidate, "__wrapped__", None)):
            if getattr(function, "__code__", None) is code:
                return function
    return _holding(code)


_HOLDERS = {}  # type: Dict[Any, Any]


def _holding(code):
    # type: (Any) -> Any
    """The one function object whose code is `code`, wherever it is kept: a name bound to
    something else holds it (a dispatcher's table, as sympy's `@dispatch` handlers, each
    `_set_function`, are kept; a registry a decorator fills). None when no function or several
    (a closure made more than once: which one the frame runs is not known). Found among the
    code's referrers, once per code object: reading them runs no project code."""
    if code not in _HOLDERS:
        functions = [
            f for f in gc.get_referrers(code) if inspect.isfunction(f) and f.__code__ is code
        ]
        _HOLDERS[code] = functions[0] if len(functions) == 1 else None
    return _HOLDERS[code]


def kept(frame, arguments):
    # type: (Any, List[Any]) -> Optional[Tuple[Any, Any, List[Any]]]
    """A call to replay: its function, its code, and a copy of its arguments as they came in
    (None: a function not found without running project code, or arguments that will not
    copy)."""
    function = _function(frame, arguments)
    fresh = copied(arguments) if function is not None else None
    return None if fresh is None else (function, frame.f_code, fresh)


def _invoke(function, code, arguments):
    # type: (Any, Any, List[Any]) -> Any
    values = dict(arguments)
    names, count = code.co_varnames, code.co_argcount
    kwonly = getattr(code, "co_kwonlyargcount", 0)
    positional = [values[n] for n in names[:count]]
    keywords = {n: values[n] for n in names[count : count + kwonly] if n in values}
    at = count + kwonly
    if code.co_flags & 0x04:
        positional += list(values.get(names[at], ()))
        at += 1
    if code.co_flags & 0x08:
        keywords.update(values.get(names[at], {}))
    return function(*positional, **keywords)


def _listed(returned):
    # type: (Any) -> Any
    """What a caller listing a generator gets: its items, taken now, under the switch (a
    generator's code runs only as it is iterated), each as the caller holds it after the last
    (a dict the generator yields again and changes shows in every place: sympy-20154's
    `partitions()`); any other value as it is."""
    if not (inspect.isgenerator(returned) or _lazy(returned)):
        return returned
    return list(itertools.islice(returned, ITEMS))


def _lazy(value):
    # type: (Any) -> bool
    """A built-in lazy iterator (`map`, `filter`, `zip`, `itertools`'): nothing but its items.
    A project's own iterator, or a file, is left as it is: it is also an object."""
    kind = type(value)
    return kind.__module__ in ("builtins", "itertools") and hasattr(kind, "__next__")


def replay(call, at, move, on, mutant, switch, outcome):
    # type: (Any, Any, Any, bool, int, Callable[[bool], None], Any) -> Optional[Tuple[Any, bool]]
    """One run of a captured call with argument `at` moved by `move` (on a fresh copy), or the
    module option `at` ((dict, key)) set to `move`'s value while it runs: what a caller sees
    and whether the mutant's code ran (None: the arguments would not copy or move, or it ran
    too long)."""
    function, code, arguments, dropped = call
    fresh = copied(arguments)
    if fresh is None:
        return None
    if isinstance(at, tuple):
        options, key = at
        held = options[key]
        options[key] = move(held)
        try:
            return _run(function, code, fresh, dropped, on, mutant, switch, outcome)
        finally:
            options[key] = held
    try:
        fresh[at] = (fresh[at][0], bounded(lambda: move(fresh[at][1]), COPY_S))
    except (Exception, _Late):  # noqa: BLE001 (a value that will not be moved: no replay)
        return None
    return _run(function, code, fresh, dropped, on, mutant, switch, outcome)


def _run(function, code, fresh, dropped, on, mutant, switch, outcome):
    # type: (Any, Any, List[Any], bool, bool, int, Callable[[bool], None], Any) -> Any
    reached = set()  # type: Any
    before = getattr(sys, "_spice_reached", None)
    sys._spice_reached = reached  # type: ignore[attr-defined]
    switch(on)
    raised, returned = None, None  # type: Optional[str], Any
    try:
        returned = bounded(lambda: _listed(_invoke(function, code, fresh)), CALL_S)
    except _Late:
        return None
    except Exception as exc:  # noqa: BLE001 (what it raises is what a caller sees)
        raised = f"raised {type(exc).__name__}"
    finally:
        switch(False)
        sys._spice_reached = before  # type: ignore[attr-defined]
    return outcome(fresh, raised, returned, not dropped), mutant in reached


def _call_moves(call, movers):
    # type: (Any, Any) -> List[Tuple[Any, Any]]
    """(argument, move) pairs of one call, the arguments, then the module options it reads,
    taken in turn (each one's first move, then each one's second, plain arguments first in
    each round); at most `PER_CALL`."""
    places = [(at, value) for at, (_, value) in enumerate(call[2])]  # type: List[Any]
    with contextlib.suppress(Exception):  # a module whose code will not be read: no options
        places += [((d, k), d[k]) for d, k in movers.option_reads(call[0])]
    found = []  # type: List[Any]
    for order, (at, value) in enumerate(places):
        try:
            moved = enumerate(movers.moves(value))
            found += [(n, not movers.plain(value), order, at, m) for n, m in moved]
        except Exception:  # noqa: BLE001 (a value whose parts will not be read: not moved)
            continue
    found.sort(key=lambda f: f[:3])
    return [(at, move) for _, _, _, at, move in found[:PER_CALL]]


def _raised(seen):
    # type: (Dict[str, str]) -> bool
    return str(seen.get("return", "")).startswith("raised ")


def nearby_differs(calls, mutant, switch, judge, deadline, movers, tally=None):
    # type: (List[Any], int, Callable[[bool], None], Any, float, Any, Optional[Dict[str, int]]) -> Any
    """Where ("returned" or "stored") a neighbour input that reaches the mutant tells it from
    the fix (on a value two replays of the fix agree on; not on an input of another shape, nor
    by one side raising where the other returns); False when such inputs were tried,
    every argument of their calls plain, and none did; None otherwise (none reached the
    mutant, or an argument left as it was could be what tells them apart). `judge`: what a
    caller sees of a call, and whether one under the mutant changed it (compare_support);
    `movers`: the moves_support module."""
    outcome, changed = judge
    tried, claim = 0, True
    for call in calls:
        if isinstance(call[2], Shallow) or not all(movers.plain(v) for _, v in call[2]):
            # An argument moved only in part, or not at all (an object, None), may be the input
            # that tells them apart: what stays fixed there proves nothing (sphinx-7923's
            # `content`); nor does a replay whose arguments share their insides with the
            # tests' (the fix's two replays first, the mutant's last: what it shows differ is
            # the mutant's doing). Its neighbours may still show a difference.
            claim = False
            if tally is not None:
                tally["not all plain"] = tally.get("not all plain", 0) + 1
        cut = 0
        for at, move in _call_moves(call, movers):
            if tried >= MAX_INPUTS or time.time() > deadline:
                return False if tried and claim else None
            if cut >= 2:
                break  # arguments too large to copy or a call too slow: the next call's turn
            runs = [
                replay(call, at, move, on, mutant, switch, outcome) for on in (False, False, True)
            ]
            done = [r for r in runs if r is not None]
            cut += len(done) < 3
            if tally is not None:
                what = "cut" if len(done) < 3 else "reached" if done[2][1] else "missed"
                if what == "missed":
                    what += " " + str(done[2][0].get("return", ""))[:40]
                tally[what] = tally.get(what, 0) + 1
            if len(done) < 3 or not done[2][1]:
                continue  # would not copy, ran too long, or never reached the mutant
            tried += 1
            kind = changed(*(r[0] for r in done))
            other = getattr(move, "shape", False) or _raised(done[0][0]) != _raised(done[2][0])
            if kind and other:
                # An input of another shape than the tests' (a container emptied or cut, a key
                # taken out), or one on which only one side raises: a case another than the
                # issue's, not a value a caller of the tests' kind gets (sphinx-7923's empty
                # document, requests-1657's hooks without a key). No claim either way rests
                # on it.
                claim = False
                if tally is not None:
                    tally["another kind of input"] = tally.get("another kind of input", 0) + 1
            elif kind:
                return kind
    return False if tried and claim else None
