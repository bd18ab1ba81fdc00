"""The differential run (issue 37, item 2) measured and replayed: a survivor whose function, on
the inputs the tests give it, returns and leaves behind exactly what the fix's does is
`equivalent`, one that leaves a value a test could have checked stays a wrong fix the tests
accept; the inputs' neighbours tell the weak tests' survivors apart."""

from __future__ import annotations

import io
import itertools
import json
import os
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from spice_engine.langs.executor import Executor
from spice_engine.langs.python_recipe import Recipe
from spice_engine.runs.session import Job
from spice_engine.strength import compare_support, moves_support, observe_support, replay_support
from spice_engine.strength.config import StrengthConfig
from spice_engine.strength.measure import measure
from spice_engine.strength.moves_support import moves, neighbours
from spice_engine.strength.observe_support import Observer
from spice_engine.strength.replay_support import nearby_differs
from spice_engine.strength.result import Verdict
from spice_engine.validate.bubblewrap import Bubblewrap
from tests.fakes.sample_project import calc_project, instance_of
from tests.strength_observe_support import Box
from tests.validation_support import sandbox_fixture  # noqa: F401

FIX = textwrap.dedent(
    """
    def split_into(n, kind, value):
        assert isinstance(kind, str)
        parts = value.split(";")
        if len(parts) > n:
            raise ValueError("invalid %s entry: %r" % (kind, value))
        return parts + [""] * (n - len(parts))


    def entries(values):
        found = []
        for value in values:
            found.append(tuple(split_into(2, "pair", value)))
        return found
    """
).lstrip()
BUG = "def entries(values):\n    return [(value,) for value in values]\n"
TEST = textwrap.dedent(
    """


    def test_entries():
        from pairs import entries

        assert [e[0] for e in entries(["a;b", "c"])] == ["a", "c"]
    """
)


def test_a_survivor_the_tests_inputs_cannot_tell_apart_is_equivalent_others_stay(
    tmp_path: Path, sandbox: Bubblewrap
) -> None:
    repo = tmp_path / "pairs"
    calc_project(repo, ("calc", "pairs"), calc="def mul(a, b):\n    return a * b\n", pairs=BUG)
    row = instance_of(repo, "octo/pairs", {"pairs.py": FIX}, ("tests/test_calc.py", TEST), "pairs")
    row["FAIL_TO_PASS"] = json.dumps(["tests/test_calc.py::test_entries"])
    row["PASS_TO_PASS"] = json.dumps(["tests/test_calc.py::test_mul"])
    recipe = Recipe(python="3.11", extra_packages=["pytest"])
    job = Job(instance=row, git_dir=repo / ".git", version="0.1", recipe=recipe, timeout_s=120)
    executor = Executor(tmp_path / "envs", sandbox)
    got = measure(job, executor, tmp_path / "scratch", StrengthConfig(budget_s=300))
    assert got.status == "measured", got.detail
    by_change = {m.change: m for m in got.mutants}
    # The kind's name reaches an error no input of the tests raises and a type check (so no
    # static proof holds): `entries` returns and leaves what the fix's does, call for call.
    named = by_change['`"pair"` → `"XXpairXX"`']
    assert named.verdict == Verdict.EQUIVALENT, named
    assert named.reason.startswith("no difference observed") and named.run == "session"
    # Three parts instead of two: the tests check only the first, `entries` returns more.
    more = by_change["`2` → `3`"]
    assert more.verdict == Verdict.SURVIVED and more in got.survivors, more
    assert more.difference == "tests"  # on the tests' own input: ("a", "b", "") is returned
    assert more.difference_in == "returned"
    assert Verdict.EQUIVALENT not in {m.verdict for m in got.survivors}


def _guard(n: int) -> bool:
    """As the schema's switch: records that the mutant's code ran, on while `SPICE_MUTANT`."""
    reached = getattr(sys, "_spice_reached", None)
    if reached is not None:
        reached.add(n)
    return os.environ.get("SPICE_MUTANT") == str(n)


def add(a: int, b: int) -> int:
    return (a - b) if _guard(1) else (a + b)


def describe(kind: str, value: int) -> int:
    if value < 0:
        raise ValueError(f"bad {('XX' + kind) if _guard(2) else kind}")
    return value * 2


def size(box: Box, extra: int) -> int:
    """`len(box.items) > 0` → `>= 0` only differs for an empty box: moving `extra` never
    empties it, and the box itself cannot be moved."""
    if (len(box.items) >= 0) if _guard(3) else (len(box.items) > 0):
        return len(box.items) + extra
    return extra


def _neighbours_tell(function: Callable[..., int], mutant: int, *args: object) -> object:
    with Observer(Path(__file__).name, function.__name__, replay_support.kept, capture=5) as seen:
        returned = [function(*args)]  # kept: a test that checks it
    assert returned
    return _replayed(seen.captured, mutant)


def _replayed(captured: list[object], mutant: int) -> object:
    """What the captured calls' neighbours tell of `mutant`, its switch the environment's."""

    def switch(on: bool) -> None:
        os.environ.pop("SPICE_MUTANT", None)
        if on:
            os.environ["SPICE_MUTANT"] = str(mutant)

    judge = (observe_support.outcome, compare_support.changed)
    return nearby_differs(captured, mutant, switch, judge, time.time() + 30, moves_support)


def test_the_neighbours_of_the_tests_inputs_tell_the_weak_tests_survivor_apart() -> None:
    assert neighbours(2) == [3, 1, 0, 5] and neighbours(True) == [False]
    assert neighbours("ab") == ["", "ab_", "a", "AB"] and neighbours(object()) == []
    # add(2, 0) is 2 with `a - b` too; add(2, 1) is not.
    assert _neighbours_tell(add, 1, 2, 0) == "returned"
    # A name only an error message reads: the neighbours reach it (a negative value raises)
    # and the caller sees the same ValueError.
    assert _neighbours_tell(describe, 2, "pair", 0) is False
    # The box is moved only in its attributes (emptied, `[]` + 1 is 1 either way): what else
    # of it could tell them apart stays, so no claim either way.
    full = Box()
    full.items.append(1)
    assert _neighbours_tell(size, 3, full, 1) is None
    assert "SPICE_MUTANT" not in os.environ


def splits(n: int) -> Iterator[dict[int, int]]:
    """Each split of `n` in two, as a dict of part -> count; the mutant yields the one dict it
    keeps changing (sympy-20154's `partitions()`, its `.copy()` removed)."""
    kept: dict[int, int] = {}
    for k in range(1, n // 2 + 1):
        kept.clear()
        kept[k] = kept.get(k, 0) + 1
        kept[n - k] = kept.get(n - k, 0) + 1
        yield kept if _guard(11) else dict(kept)


def test_a_generator_is_listed_as_its_caller_would_list_it() -> None:
    # The test takes the first split only: alike both ways. Listed, as the issue's
    # `list(partitions())`, the mutant's splits are one dict, the last: a caller sees that.
    with Observer(Path(__file__).name, "splits", replay_support.kept, capture=5) as seen:
        assert next(splits(4)) == {1: 1, 3: 1}
    assert _replayed(seen.captured, 11) == "returned" and "SPICE_MUTANT" not in os.environ
    assert replay_support._listed(splits(4)) == [{1: 1, 3: 1}, {2: 2}]
    assert replay_support._listed(map(abs, [-1, 2])) == [1, 2]
    assert replay_support._listed(itertools.count()) == list(range(replay_support.ITEMS))
    text = io.StringIO("a\nb\n")  # an iterator that is also an object: left as it is
    assert replay_support._listed(text) is text and replay_support._listed([3]) == [3]


class Dispatcher:
    """As multipledispatch's `@dispatch` (sympy's set handlers): the name is bound to the
    dispatcher, each handler kept only in its table."""

    def __init__(self) -> None:
        self.funcs: dict[type, Callable[..., object]] = {}

    def __call__(self, value: object) -> object:
        return self.funcs[type(value)](value)

    def register(self, kind: type) -> Callable[[Callable[..., object]], Dispatcher]:
        def add(function: Callable[..., object]) -> Dispatcher:
            self.funcs[kind] = function
            return self

        return add


shifted = Dispatcher()


@shifted.register(int)  # type: ignore[no-redef]
def shifted(value: int) -> object:
    """`value > 2` → `value >= 2`: the same for the test's 3, not for its neighbour 2."""
    return value - 2 if ((value >= 2) if _guard(12) else (value > 2)) else value


@shifted.register(str)  # type: ignore[no-redef]
def shifted(value: str) -> object:
    return value.strip()


def test_a_handler_a_dispatcher_keeps_is_found_and_replayed() -> None:
    # The module's `shifted` is the dispatcher: the handler the frame runs is found by its code.
    with Observer(Path(__file__).name, "shifted", replay_support.kept, capture=5) as seen:
        assert shifted(3) == 1 and shifted(" a ") == "a"
    assert [code.co_firstlineno for _, code, *_ in seen.captured] == sorted(
        {f.__code__.co_firstlineno for f in shifted.funcs.values()}
    )
    assert {f for f, *_ in seen.captured} == set(shifted.funcs.values())
    assert _replayed(seen.captured, 12) == "returned" and "SPICE_MUTANT" not in os.environ


def strict(config: dict[str, object]) -> bool:
    """`config.get("strict", False)` → `True` (the guard is the flag): the default matters
    only without the key."""
    return bool(config.get("strict", _guard(4)))


def capped(config: dict[str, object]) -> int:
    """`min(n, 3)` → `min(n, 4)`: the same for the tests' `n` of 2, not for 4."""
    return min(int(str(config["n"])), 4 if _guard(10) else 3)


def first(box: Box) -> object:
    """`len(box.items) > 1` → `>= 1`: differs only for a box of one item."""
    return box.items[0] if ((len(box.items) >= 1) if _guard(5) else (len(box.items) > 1)) else None


class Limits:
    def __init__(self) -> None:
        self.most = 3

    def over(self, values: tuple[int, ...]) -> bool:
        """`> self.most` → `>= self.most`: differs only at the limit, which the test's 4
        values are not; a limit one higher is."""
        return (len(values) >= self.most) if _guard(6) else (len(values) > self.most)


def test_neighbours_move_dicts_containers_objects_and_arrays() -> None:
    # Each move works on its own copy: the value the tests gave is never changed.
    config = {"strict": False, "name": "x"}
    moved = [move(dict(config)) for move in moves(config)]
    assert {"strict": False} in moved and {"name": "x"} in moved  # a key removed
    assert {"strict": True, "name": "x"} in moved and config == {"strict": False, "name": "x"}
    # Told apart only with the key taken out, an input of another shape than the tests' (a
    # case another than the issue's): neither shown nor called equivalent.
    assert _neighbours_tell(strict, 4, config) is None
    # A dict's item moved, the shape kept: a value of the tests' kind tells them apart.
    assert _neighbours_tell(capped, 10, {"n": 2, "name": "x"}) == "returned"
    # The box's items cut to the first tell them apart: another shape again, no claim.
    two = Box()
    two.items.extend([1, 2])
    assert _neighbours_tell(first, 5, two) is None
    # `self` moved (its limit one higher): the limit is met.
    assert _neighbours_tell(Limits.over, 6, Limits(), (1, 2, 3, 4)) == "returned"
    assert "SPICE_MUTANT" not in os.environ


def test_an_arrays_first_element_is_moved_on_a_copy() -> None:
    numpy = pytest.importorskip("numpy")
    values = numpy.array([2, 5, 7])
    moved = [move(values.copy()) for move in moves(values)]
    assert [m.tolist() for m in moved] == [[3, 5, 7], [1, 5, 7], [0, 5, 7], [5, 5, 7]]
    assert values.tolist() == [2, 5, 7]


OPTIONS = {"keep_attrs": False, "width": 80}


def _keep_attrs() -> bool:
    return bool(OPTIONS["keep_attrs"])


def wrapped(value: int) -> dict[str, int]:
    """The fix keeps attributes when the module's option says so; the mutant never does."""
    if _keep_attrs() and not _guard(7):
        return {"value": value, "attrs": 1}
    return {"value": value}


def test_a_module_option_the_function_reads_is_moved_and_put_back() -> None:
    # `keep_attrs`, read through `_keep_attrs()` by a constant key, is the option; `width`,
    # which no code of it names, is not.
    assert moves_support.option_reads(wrapped) == [(OPTIONS, "keep_attrs")]
    assert _neighbours_tell(wrapped, 7, 3) == "returned"
    assert OPTIONS == {"keep_attrs": False, "width": 80}


def head(items: list[int]) -> int:
    """The mutant drops the emptiness guard: only an empty list (no test's) makes it raise."""
    return items[0] if (_guard(8) or len(items) > 0) else 0


def test_a_mutant_that_only_raises_on_a_moved_input_is_not_told_apart() -> None:
    # A crash on another input than the tests' (emptied, a key removed) is no value a caller
    # gets: neither shown nor called equivalent (sphinx-7923's empty document).
    assert _neighbours_tell(head, 8, [1, 2]) is None
    assert _neighbours_tell(add, 1, 2, 0) == "returned"  # a value moved still tells


class Environment:
    """Stands for what will not copy whole in time (a document's whole build environment)."""

    def __deepcopy__(self, memo: dict[int, object]) -> Environment:
        raise TypeError("too large to copy")


class Resolver:
    def __init__(self) -> None:
        self.env, self.most, self.seen = Environment(), 3, [1, 2]

    def over(self, values: tuple[int, ...]) -> bool:
        return (len(values) >= self.most) if _guard(9) else (len(values) > self.most)


def test_arguments_too_large_to_copy_whole_are_copied_one_level_and_moved_on_copies() -> None:
    resolver = Resolver()
    assert _neighbours_tell(Resolver.over, 9, resolver, (1, 2, 3, 4)) == "returned"
    # Every move was made on a copy: the tests' object, and what it shares, are as they were.
    assert resolver.most == 3 and resolver.seen == [1, 2]
    # No difference on such a copy is no claim of sameness; every move tried (the list it
    # holds emptied, its items moved) left the tests' list alone.
    assert _neighbours_tell(Resolver.over, 9, resolver, (1,)) is None
    assert resolver.most == 3 and resolver.seen == [1, 2]
