"""The differential run's observer (issue 37, item 2): what a call returned or raised and the
state it left, read without running the objects' code, and which differences count (both runs
of the fix agreeing, a dropped value, a private name renamed, equal values, arrays)."""

from __future__ import annotations

import contextlib
import io
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

import numpy

from spice_engine.strength import observe_support, replay_support
from spice_engine.strength.compare_support import differs
from spice_engine.strength.observe_support import Observer, flatten
from tests.strength_observe_support import Box


def grow(box: Box, item: object, times: int = 1) -> int:
    for _ in range(times):
        box.items.append(item)
    if item is None:
        raise ValueError("no item")
    return len(box.items)


def _watch(*calls: tuple[object, ...]) -> list[dict[str, str]]:
    with Observer(Path(__file__).name, "grow") as seen:
        for args in calls:
            with contextlib.suppress(ValueError):
                args = (grow(*args),)  # type: ignore[arg-type]  # kept: not dropped
    return seen.calls


def test_each_call_is_what_it_returned_or_raised_and_the_state_it_left() -> None:
    box = Box()
    calls = _watch((box, 1), (box, None))
    assert [c["return"] for c in calls] == ["1", "raised ValueError"]
    assert calls[0]["box.items[0]"] == "1" and calls[1]["box.items[1]"] == "None"
    assert calls[0]["box.me"] == "<seen at box>"  # a cycle, named where it was first met
    assert calls[0]["item"] == "1" and calls[0]["times"] == "1"


def test_only_a_difference_both_runs_of_the_fix_agree_on_counts() -> None:
    fix = _watch((Box(), 1))
    assert differs(fix, _watch((Box(), 1)), _watch((Box(), 1))) is False
    assert differs(fix, _watch((Box(), 1)), _watch((Box(), 2))) == "stored"  # the same count
    assert differs(fix, _watch((Box(), 1)), _watch((Box(), 1, 2))) == "returned"  # and stored
    assert differs(fix, fix, _watch((Box(), 1), (Box(), 1))) == "returned"  # called more often
    noisy = [{**fix[0], "item": "2"}]  # a leaf that two runs of the fix disagree on
    assert differs(fix, noisy, [{**fix[0], "item": "3"}]) is False
    assert differs([], [], _watch((Box(), 1))) is None  # never called: nothing to compare


def test_a_value_the_caller_drops_or_a_private_name_renamed_is_no_difference() -> None:
    def caller(box: Box, item: object) -> int:
        grow(box, item)  # the count it returns is thrown away here...
        return len(box.items) * 10

    def kept(box: Box, item: object) -> int:
        return grow(box, item)  # ...and kept here

    def watch(call: Callable[[Box, object], int], times: int = 1) -> list[dict[str, str]]:
        with Observer(Path(__file__).name, "grow") as seen:
            box = Box()
            box.items.extend([0] * (times - 1))
            call(box, 1)
        return seen.calls

    assert watch(caller)[0]["return"] == observe_support.DROPPED
    assert watch(kept)[0]["return"] == "1"
    # A call kept to replay remembers it: its replays compare no returned value either.
    with Observer(Path(__file__).name, "grow", replay_support.kept, capture=2) as seen:
        caller(Box(), 1)
        kept(Box(), 1)
    assert [call[3] for call in seen.captured] == [True, False]
    # A state that differs is still seen when the returned value is dropped.
    assert differs(watch(caller), watch(caller), watch(caller, times=2)) == "stored"

    fix = [{"cls": "T", "cls._shown": "True", "return": "None"}]
    renamed = [{"cls": "T", "cls.XX_shownXX": "True", "return": "None"}]
    assert differs(fix, fix, renamed) is False  # the marker only this code reads
    # The fix's runs came first and left their marker: the mutant's is set beside it.
    both = [{**fix[0], "cls.XX_shownXX": "True"}]
    assert differs(fix, fix, both) is False
    assert differs(fix, fix, [{**fix[0], "cls.XX_shownXX": "False"}]) == "stored"
    public = [{"cls": "T", "cls.shown": "True"}]
    assert differs(public, public, [{"cls": "T", "cls.XXshownXX": "True"}]) == "stored"
    other = [{"cls": "T", "cls.XX_shownXX": "False", "return": "None"}]
    assert differs(fix, fix, other) == "stored"  # renamed, and set to something else
    keyed = [{"d": "dict[1]", "d['_k']": "1"}]
    assert differs(keyed, keyed, [{"d": "dict[1]", "d['XX_kXX']": "1"}]) == "stored"  # a key


class Item:
    """pytest-9646's shape: a once-per-class marker, set on `type(self)`, and warnings told
    to a stream the object holds."""

    def __init__(self, stream: io.StringIO) -> None:
        self.stream = stream

    def check(self, mark: bool = True, warn: bool = True) -> None:
        cls = type(self)
        if getattr(cls, "_warned", False):
            return
        cls._warned = mark  # type: ignore[attr-defined]
        if warn:
            self.stream.write(f"{cls.__name__} should not be a collector\n")


def _checked(mark: bool = True, warn: bool = True) -> list[dict[str, str]]:
    """One run of a test: a class of its own, checked twice."""

    class SoWrong(Item):
        pass

    with Observer(Path(__file__).name, "check") as seen:
        stream = io.StringIO()
        stream.write("started\n")
        item = SoWrong(stream)
        item.check(mark, warn)
        SoWrong(item.stream).check(mark, warn)
    return seen.calls


def test_what_an_objects_class_holds_and_a_stream_was_told_are_seen() -> None:
    calls = _checked()
    assert calls[0]["self.__class__._warned"] == "True"
    assert calls[0]["self.stream[1]"] == repr("SoWrong should not be a collector")
    assert calls[1]["self.stream"] == "_io.StringIO[2]"  # warned once, not twice
    # The marker set to False: the next instance warns again, and the class says so.
    assert differs(_checked(), _checked(), _checked(mark=False)) == "stored"
    assert differs(_checked(), _checked(), _checked(warn=False)) == "stored"  # nothing told
    assert differs(_checked(), _checked(), _checked()) is False
    # A state larger than the leaves kept: what is nearest the call is kept, not cut.
    item = type("Large", (Item,), {})(io.StringIO())
    vars(item)["config"] = [[n] * 20 for n in range(observe_support.MAX_ITEMS)]
    item.check()
    seen = observe_support.outcome([("self", item)], None, None)
    assert len(seen) == observe_support.MAX_LEAVES
    assert seen["self.__class__._warned"] == "True" and seen["self.stream"] == "_io.StringIO[1]"


def test_which_of_two_equal_values_is_returned_is_no_difference() -> None:
    """requests-1657's `or` → `and`: the session's empty hooks returned in place of the
    request's equal ones, or a merged `OrderedDict` of the same items: `==` sees nothing."""

    Hooks = dict[str, list[int]]

    def merged(returned: Callable[[Hooks, Hooks], object]) -> list[dict[str, str]]:
        request: Hooks = {"response": []}
        session: Hooks = {"response": []}
        arguments = [("request_hooks", request), ("session_hooks", session)]
        return [observe_support.outcome(arguments, None, returned(request, session))]

    fix = merged(lambda request, session: request)
    assert fix[0]["request_hooks"] == "<seen at return>"
    assert differs(fix, fix, merged(lambda request, session: session)) is False
    assert differs(fix, fix, merged(lambda request, session: OrderedDict(request))) is False
    assert differs(fix, fix, merged(lambda request, session: {"response": [1]})) == "returned"
    assert differs(fix, fix, merged(lambda request, session: (session.clear(), request)[1]))


def test_an_arrays_contents_are_compared_and_a_compiled_types_methods_are_not_data() -> None:
    """xarray's and astropy's values are numpy arrays: read by their buffer (numpy's code, not
    the project's), not only by their type's name; a compiled type's class holds methods."""

    def called(returned: object, *arguments: object) -> list[dict[str, str]]:
        named = [(f"a{n}", value) for n, value in enumerate(arguments)]
        return [observe_support.outcome(named, None, returned)]

    fix = called(numpy.arange(4.0), numpy.zeros(2))
    assert fix[0]["return"].startswith("numpy.ndarray(4,)d#") and len(fix[0]) == 2
    assert differs(fix, fix, called(numpy.arange(4.0), numpy.zeros(2))) is False
    assert differs(fix, fix, called(numpy.arange(4.0) * 2, numpy.zeros(2))) == "returned"
    assert differs(fix, fix, called(numpy.arange(4.0), numpy.ones(2))) == "stored"
    assert differs(fix, fix, called(numpy.arange(4), numpy.zeros(2))) == "returned"  # a dtype
    assert called(None, numpy.int64(3))[0]["a0"] != called(None, numpy.int64(4))[0]["a0"]
    assert called(None, bytearray(b"ab"))[0]["a0"] != called(None, bytearray(b"ac"))[0]["a0"]


def test_objects_are_read_without_running_their_code() -> None:
    class Loud:
        __slots__ = ("quiet",)

        def __init__(self) -> None:
            self.quiet = 1

        def __repr__(self) -> str:
            raise AssertionError("repr ran")

        def __getattr__(self, name: str) -> object:
            raise AssertionError("getattr ran")

    class Sneaky(list[int]):
        def __iter__(self):  # type: ignore[no-untyped-def]
            raise AssertionError("iter ran")

    out: dict[str, str] = {}
    flatten([({"a": Loud(), "b": Sneaky([1, 2]), "c": {3}, "d": iter([1])}, "v", 0)], out)
    assert out["v['a'].quiet"] == "1"
    assert out["v['b'][1]"] == "2" and out["v['c']"] == "builtins.set['3']"
    assert out["v['d']"] == "builtins.list_iterator"  # never consumed
    assert observe_support.MAX_LEAVES >= 1000


class Fact:
    """An object that caches what it was asked (as sympy's `_assumptions`) and keeps a
    registry of what it was given (as sphinx's `_index_entries`)."""

    def __init__(self) -> None:
        self._assumptions: dict[str, bool] = {"commutative": True}
        self._entries: dict[str, int] = {}


ASKED: dict[str, object] = {}
"""What `ask` does (set by `_ask`: the code under the fix or a mutant), its arguments the same."""


def ask(fact: Fact) -> None:
    for question in ASKED["questions"]:  # type: ignore[attr-defined]
        fact._assumptions[question] = bool(ASKED["answer"])
    if ASKED["entry"]:
        fact._entries[str(ASKED["entry"])] = 1


def _ask(questions: tuple[str, ...], answer: bool = True, entry: str = "") -> list[dict[str, str]]:
    ASKED.update(questions=questions, answer=answer, entry=entry)
    with Observer(Path(__file__).name, "ask") as seen:
        ask(Fact())
    return seen.calls


def test_what_a_cache_holds_is_no_difference_but_another_answer_or_entry_is() -> None:
    """Which facts a cache holds follows what was asked before (sympy-17251's `> 1` → `>= 1`
    asks other assumptions of the same numbers): no caller gets another answer. A fact
    cached with another value, or an entry a registry lacks, is a difference."""
    fix = _ask(("positive",))
    assert differs(fix, _ask(("positive",)), _ask(("positive", "even"))) is False
    assert differs(fix, _ask(("positive",)), _ask(())) is False
    assert differs(fix, _ask(("positive",)), _ask(("positive",), answer=False)) == "stored"
    kept = _ask(("positive",), entry="x")
    assert differs(kept, _ask(("positive",), entry="x"), _ask(("positive",))) == "stored"
