"""Per-test outcomes from a pytest `-rA` log, and the FAIL_TO_PASS / PASS_TO_PASS lists.

Test names are read exactly as SWE-bench's own pytest log parser reads them (the second
whitespace-separated word of each summary line), so the lists we publish are the names its
harness will look up when it grades a log.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

STATUSES = ("PASSED", "FAILED", "SKIPPED", "ERROR", "XFAIL")
_SKIP_COUNT = re.compile(r"^\[\d+\]$")
FAILING = {"FAILED", "ERROR"}


def parse_pytest_log(log: str) -> dict[str, str]:
    """Test name -> status for every `-rA` summary line (the last word wins)."""
    outcomes: dict[str, str] = {}
    for line in log.split("\n"):
        if not line.startswith(STATUSES):
            continue
        if line.startswith("FAILED"):
            line = line.replace(" - ", " ")
        words = line.split()
        if len(words) <= 1 or words[0] not in STATUSES:
            continue
        if words[0] == "SKIPPED" and _SKIP_COUNT.match(words[1]):
            continue  # `SKIPPED [3] file:line: reason` counts skips, it names no test
        outcomes[words[1]] = words[0]
    return outcomes


class Lists(BaseModel):
    fail_to_pass: list[str] = Field(default_factory=list)
    pass_to_pass: list[str] = Field(default_factory=list)
    flaky: list[str] = Field(default_factory=list)


def fail_to_pass(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """Failed or errored before (or did not run: its module did not import) and passed after."""
    return sorted(
        t for t, s in after.items() if s == "PASSED" and before.get(t, "ERROR") in FAILING
    )


def pass_to_pass(before: dict[str, str], after: dict[str, str]) -> list[str]:
    return sorted(t for t, s in after.items() if s == "PASSED" and before.get(t) == "PASSED")


def compute_lists(
    before: dict[str, str],
    after: dict[str, str],
    before_again: dict[str, str] | None = None,
    after_again: dict[str, str] | None = None,
) -> Lists:
    """The lists, less any test whose status changed between a run and its rerun."""
    flaky: set[str] = set()
    for first, again in ((before, before_again), (after, after_again)):
        if again is not None:
            flaky |= {t for t, s in again.items() if t in first and first[t] != s}
    f2p = [t for t in fail_to_pass(before, after) if t not in flaky]
    p2p = [t for t in pass_to_pass(before, after) if t not in flaky]
    return Lists(fail_to_pass=f2p, pass_to_pass=p2p, flaky=sorted(flaky))
