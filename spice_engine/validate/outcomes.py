"""Per-test outcomes from a pytest `-rA` log, and the FAIL_TO_PASS / PASS_TO_PASS lists.

Test names are read exactly as SWE-bench's own pytest log parser reads them (the second
whitespace-separated word of each summary line), so the lists we publish are the names its
harness will look up when it grades a log.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from enum import StrEnum

from pydantic import BaseModel, Field


class TestStatus(StrEnum):
    """A test's outcome, as pytest's `-rA` summary and SWE-bench's harness name it."""

    __test__ = False  # not a test class, whatever pytest makes of its name

    PASSED = "PASSED"
    FAILED = "FAILED"
    SKIPPED = "SKIPPED"
    ERROR = "ERROR"
    XFAIL = "XFAIL"


Outcomes = dict[str, TestStatus]
"""Test id -> its status in one run."""
_WORDS = tuple(s.value for s in TestStatus)
_SKIP_COUNT = re.compile(r"^\[\d+\]$")
FAILING = {TestStatus.FAILED, TestStatus.ERROR}


def passed(outcomes: Outcomes, test: str) -> bool:
    return outcomes.get(test) == TestStatus.PASSED


class Dialect(StrEnum):
    """How SWE-bench's parsers of pytest's `-rA` output read a test id (its harness grades an
    export with the parser the row names, so the lists must be read its way)."""

    CUT = "cut"
    """`parse_log_pytest`: the second word of a summary line (an id is cut at a space)."""
    OPTIONS = "options"
    """`parse_log_pytest_options`: the same, a parameter that is a path kept to its name."""
    STRIPPED = "stripped"
    """`parse_log_pytest_v2`: colours and control characters dropped, and lines ending in a
    status (older pytests' verbose form) read too. An id is cut at a space as SWE-bench's
    published lists cut it (its parser of 2023); swebench 5 reads it whole and finds the cut
    one by its prefix."""


_OPTION = re.compile(r"(.*?)\[(.*)\]")
_COLOUR = re.compile(r"\[(\d+)m")
_CONTROL = str.maketrans("", "", "".join(chr(c) for c in range(1, 32)))


def parse_pytest_log(log: str, dialect: Dialect = Dialect.CUT) -> Outcomes:
    """Test name -> status for every `-rA` summary line (the last line of a name wins)."""
    outcomes: Outcomes = {}
    for line in log.split("\n"):
        if dialect == Dialect.STRIPPED:
            line = _COLOUR.sub("", line).translate(_CONTROL)
        if not line.startswith(_WORDS):
            if dialect == Dialect.STRIPPED and line.endswith(_WORDS) and len(line.split()) >= 2:
                name, *_, word = line.split()
                if word in _WORDS:
                    outcomes[name] = TestStatus(word)
            continue
        if line.startswith(TestStatus.FAILED):
            line = line.replace(" - ", " ")
        words = line.split()
        if len(words) <= 1 or words[0] not in _WORDS:
            continue
        if words[0] == TestStatus.SKIPPED and _SKIP_COUNT.match(words[1]):
            continue  # `SKIPPED [3] file:line: reason` counts skips, it names no test
        outcomes[_test_id(words, dialect)] = TestStatus(words[0])
    return outcomes


def _test_id(words: list[str], dialect: Dialect) -> str:
    name = words[1]
    if dialect == Dialect.OPTIONS and (found := _OPTION.search(name)):
        main, option = found.groups()
        if option.startswith("/") and not option.startswith("//") and "*" not in option:
            option = "/" + option.split("/")[-1]
        name = f"{main}[{option}]"
    return name


class Lists(BaseModel):
    fail_to_pass: list[str] = Field(default_factory=list)
    pass_to_pass: list[str] = Field(default_factory=list)
    flaky: list[str] = Field(default_factory=list)


def fail_to_pass(before: Outcomes, after: Outcomes) -> list[str]:
    """Failed or errored before (or did not run: its module did not import) and passed after."""
    return sorted(
        t
        for t, s in after.items()
        if s == TestStatus.PASSED and before.get(t, TestStatus.ERROR) in FAILING
    )


def pass_to_pass(before: Outcomes, after: Outcomes) -> list[str]:
    return sorted(t for t in after if passed(after, t) and passed(before, t))


def compute_lists(
    before: Outcomes,
    after: Outcomes,
    before_again: Outcomes | None = None,
    after_again: Outcomes | None = None,
) -> Lists:
    """The lists, less any test whose status changed between a run and its rerun."""
    flaky: set[str] = set()
    for first, again in ((before, before_again), (after, after_again)):
        if again is not None:
            flaky |= {t for t, s in again.items() if t in first and first[t] != s}
    f2p = [t for t in fail_to_pass(before, after) if t not in flaky]
    p2p = [t for t in pass_to_pass(before, after) if t not in flaky]
    return Lists(fail_to_pass=f2p, pass_to_pass=p2p, flaky=sorted(flaky))


class Accounting(BaseModel):
    """Where every test seen in the before and after logs went: exactly one place each."""

    counts: dict[str, int] = Field(default_factory=dict)
    failing_both: list[str] = Field(default_factory=list)
    """Failed (or errored) with the fix as without it: in neither list."""
    needs_network: list[str] = Field(default_factory=list)
    """Failed (or errored) with the fix as without it, a failure of theirs showing a network
    attempt (spice_engine.validate.offline): the sandbox has none. In neither list."""
    broken: list[str] = Field(default_factory=list)
    """Passed without the fix and fails with it."""
    skipped: list[str] = Field(default_factory=list)
    """Skipped or expected to fail with the fix."""
    only_before: list[str] = Field(default_factory=list)
    """Seen without the fix only (the fix removed or renamed it)."""
    other: list[str] = Field(default_factory=list)
    """Passed with the fix after being skipped without it."""


def account(
    before: Outcomes, after: Outcomes, lists: Lists, offline: Collection[str] = ()
) -> Accounting:
    """Every test of either log in exactly one of the lists, flaky, or the groups above;
    `offline`: the tests whose failures showed a network attempt."""
    placed = {t: "fail_to_pass" for t in lists.fail_to_pass}
    placed |= {t: "pass_to_pass" for t in lists.pass_to_pass}
    placed |= {t: "flaky" for t in lists.flaky}
    groups: dict[str, list[str]] = {
        "failing_both": [],
        "needs_network": [],
        "broken": [],
        "skipped": [],
        "only_before": [],
        "other": [],
    }
    for test in sorted(set(before) | set(after)):
        if test in placed:
            continue
        now, then = after.get(test), before.get(test)
        if now is None:
            group = "only_before"
        elif now in FAILING:
            if then == TestStatus.PASSED:
                group = "broken"
            else:
                group = "needs_network" if test in offline else "failing_both"
        elif now in (TestStatus.SKIPPED, TestStatus.XFAIL):
            group = "skipped"
        else:
            group = "other"
        groups[group].append(test)
    counts = {
        name: sum(1 for g in placed.values() if g == name)
        for name in ("fail_to_pass", "pass_to_pass", "flaky")
    }
    counts |= {name: len(tests) for name, tests in groups.items()}
    return Accounting(counts=counts, **groups)
