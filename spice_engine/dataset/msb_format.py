"""Multi-SWE-bench's dataset record of a validated row (its `Dataset` JSONL, 1.1.x): the pull
request, its patches, and its tests split by how each went from the run without the fix to
the run with it — f2p (failed), s2p (skipped), n2p (not there: its code did not build or
import) and p2p (passed) — with each run's passed, failed and skipped sets.

Multi-SWE-bench runs three stages; `spice validate` runs two: `test` (test patch applied) and
`fix` (test patch and fix). The base alone is never run, so `run_result` is empty and every
test's `run` is NONE. Statuses map as Multi-SWE-bench's own `mapping_to_testresult` maps
SWE-bench's: PASSED and XFAIL pass, FAILED and ERROR fail, SKIPPED skips. Tests our runs
found flaky are in no group (as in no list of ours).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field

from spice_engine.dataset.runs import TestRuns
from spice_engine.errors import InputError
from spice_engine.langs import FALLBACK
from spice_engine.validate.outcomes import Outcomes, TestStatus

_NUMBER = re.compile(r"-(\d+)$")
# Multi-SWE-bench's language folders (multi_swe_bench/harness/repos/<lang>).
LANG = {"go": "golang", "javascript": "javascript", "c": "c", "cpp": "cpp"}


class Stage(StrEnum):
    PASS = "PASS"
    FAIL = "FAIL"
    SKIP = "SKIP"
    NONE = "NONE"


_STAGE = {
    TestStatus.PASSED: Stage.PASS,
    TestStatus.XFAIL: Stage.PASS,
    TestStatus.FAILED: Stage.FAIL,
    TestStatus.ERROR: Stage.FAIL,
    TestStatus.SKIPPED: Stage.SKIP,
}


class MsbTest(BaseModel):
    run: Stage = Stage.NONE
    test: Stage
    fix: Stage


class MsbResult(BaseModel):
    passed_count: int = 0
    failed_count: int = 0
    skipped_count: int = 0
    passed_tests: list[str] = Field(default_factory=list)
    failed_tests: list[str] = Field(default_factory=list)
    skipped_tests: list[str] = Field(default_factory=list)


class MsbBase(BaseModel):
    label: str = ""
    ref: str = ""
    sha: str


class MsbIssue(BaseModel):
    number: int
    title: str
    body: str | None = None


class MsbRecord(BaseModel):
    """One line of a Multi-SWE-bench dataset file (`Dataset.from_json` reads it)."""

    org: str
    repo: str
    number: int
    state: str = "closed"
    title: str = ""
    body: str | None = None
    base: MsbBase
    resolved_issues: list[MsbIssue] = Field(default_factory=list)
    fix_patch: str
    test_patch: str
    tag: str = ""
    number_interval: str = ""
    lang: str
    fixed_tests: dict[str, MsbTest] = Field(default_factory=dict)
    p2p_tests: dict[str, MsbTest] = Field(default_factory=dict)
    f2p_tests: dict[str, MsbTest] = Field(default_factory=dict)
    s2p_tests: dict[str, MsbTest] = Field(default_factory=dict)
    n2p_tests: dict[str, MsbTest] = Field(default_factory=dict)
    run_result: MsbResult = Field(default_factory=MsbResult)
    test_patch_result: MsbResult
    fix_patch_result: MsbResult
    instance_id: str
    """Ours (`owner__name-N`): Multi-SWE-bench's loader ignores it; it joins back to our rows."""


def result_of(outcomes: Outcomes) -> MsbResult:
    stages = {test: _STAGE[status] for test, status in outcomes.items()}
    by = {s: sorted(t for t, got in stages.items() if got == s) for s in Stage}
    return MsbResult(
        passed_count=len(by[Stage.PASS]),
        failed_count=len(by[Stage.FAIL]),
        skipped_count=len(by[Stage.SKIP]),
        passed_tests=by[Stage.PASS],
        failed_tests=by[Stage.FAIL],
        skipped_tests=by[Stage.SKIP],
    )


def msb_record(row: Mapping[str, Any], runs: TestRuns, flaky: list[str]) -> MsbRecord:
    """The record of a validated row, its tests split from `runs` (flaky ones left out)."""
    iid, repo = str(row.get("instance_id") or ""), str(row.get("repo") or "")
    number = _NUMBER.search(iid)
    if number is None or repo.count("/") != 1:
        raise InputError(f"{iid!r}: Multi-SWE-bench needs owner/name and a pull number (-N)")
    org, name = repo.split("/")
    validation = (row.get("spice") or {}).get("validation") or {}
    language = str(validation.get("language") or FALLBACK)
    groups: dict[str, dict[str, MsbTest]] = {k: {} for k in ("fixed", "p2p", "f2p", "s2p", "n2p")}
    for test in sorted((set(runs.before) | set(runs.after)) - set(flaky)):
        before = runs.before.get(test)
        after = runs.after.get(test)
        entry = MsbTest(
            test=_STAGE[before] if before else Stage.NONE,
            fix=_STAGE[after] if after else Stage.NONE,
        )
        if entry.fix != Stage.PASS:
            continue
        if entry.test != Stage.PASS:
            groups["fixed"][test] = entry
        kind = {Stage.PASS: "p2p", Stage.FAIL: "f2p", Stage.SKIP: "s2p", Stage.NONE: "n2p"}
        groups[kind[entry.test]][test] = entry
    return MsbRecord(
        org=org,
        repo=name,
        number=int(number.group(1)),
        title=str(row.get("pr_title") or ""),
        base=MsbBase(sha=str(row.get("base_commit") or "")),
        resolved_issues=_issues(row),
        fix_patch=str(row.get("patch") or ""),
        test_patch=str(row.get("test_patch") or ""),
        lang=LANG.get(language, language),
        fixed_tests=groups["fixed"],
        p2p_tests=groups["p2p"],
        f2p_tests=groups["f2p"],
        s2p_tests=groups["s2p"],
        n2p_tests=groups["n2p"],
        test_patch_result=result_of(runs.before),
        fix_patch_result=result_of(runs.after),
        instance_id=iid,
    )


def _issues(row: Mapping[str, Any]) -> list[MsbIssue]:
    """The linked issues; our problem statement is their `title\\nbody\\n` joined, which
    cannot be cut back apart when there are several: then the first holds it whole."""
    numbers = [int(n) for n in (row.get("spice") or {}).get("linked_issues") or []]
    text = str(row.get("problem_statement") or "")
    if not numbers:
        return []
    title, _, body = text.partition("\n")
    if len(numbers) > 1:
        title, body = "", text
    first = MsbIssue(number=numbers[0], title=title, body=body.removesuffix("\n"))
    return [first, *(MsbIssue(number=n, title="") for n in numbers[1:])]
