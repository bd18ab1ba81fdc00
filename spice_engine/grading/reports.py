"""SWE-bench's report shapes (swebench 5.0.2): per instance `report.json`, and the run's
summary; the verdict rules its grader applies to a run's test statuses.

The rules, as that version grades a `pass_and_fail` instance: a FAIL_TO_PASS test succeeds
when it passed (XFAIL counts as passed) and fails when it failed, errored, was skipped or is
missing; a PASS_TO_PASS test succeeds when it passed or was skipped. An id cut inside its
parameters (more `[` than `]`, as some published lists cut them) stands for the ids it
begins when they all agree on passing. Resolved: every test of both lists succeeded.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from spice_engine.validate.outcomes import Outcomes, TestStatus

PASSING = {TestStatus.PASSED, TestStatus.XFAIL}
SCHEMA_VERSION = 2
"""Of the run summary, as swebench 5.0.2 writes it."""


class Split(BaseModel):
    success: list[str] = Field(default_factory=list)
    failure: list[str] = Field(default_factory=list)


class TestsStatus(BaseModel):
    """`tests_status` of a report: SWE-bench's four keys, spelled as it spells them."""

    __test__ = False  # not a test class, whatever pytest makes of its name
    model_config = ConfigDict(populate_by_name=True)

    fail_to_pass: Split = Field(default_factory=Split, alias="FAIL_TO_PASS")
    pass_to_pass: Split = Field(default_factory=Split, alias="PASS_TO_PASS")
    fail_to_fail: Split = Field(default_factory=Split, alias="FAIL_TO_FAIL")
    pass_to_fail: Split = Field(default_factory=Split, alias="PASS_TO_FAIL")


class InstanceReport(BaseModel):
    """One instance's entry of `report.json` (written as `{instance_id: this}`)."""

    patch_is_None: bool = False  # SWE-bench's key, spelled its way
    patch_exists: bool = False
    patch_successfully_applied: bool = False
    resolved: bool = False
    infra_failure: bool = False
    tests_status: TestsStatus | None = None


class RunSummary(BaseModel):
    """The run's summary (`<model>.<run_id>.json`)."""

    total_instances: int
    submitted_instances: int
    completed_instances: int
    resolved_instances: int
    unresolved_instances: int
    infra_failure_instances: int = 0
    ambiguous_failure_instances: int = 0
    empty_patch_instances: int
    error_instances: int
    completed_ids: list[str]
    incomplete_ids: list[str]
    empty_patch_ids: list[str]
    submitted_ids: list[str]
    resolved_ids: list[str]
    unresolved_ids: list[str]
    infra_failure_ids: list[str] = Field(default_factory=list)
    ambiguous_failure_ids: list[str] = Field(default_factory=list)
    failure_reasons: dict[str, str] = Field(default_factory=dict)
    error_ids: list[str]
    schema_version: int = SCHEMA_VERSION


def _status(test: str, outcomes: Outcomes) -> TestStatus | None:
    """The test's status; a cut id's, when the ids it begins agree on passing."""
    if test in outcomes:
        return outcomes[test]
    if test.count("[") <= test.count("]"):
        return None
    found = [s for t, s in outcomes.items() if t.startswith(test)]
    if found and len({s in PASSING for s in found}) == 1:
        return found[0]
    return None


def verdicts(fail_to_pass: list[str], pass_to_pass: list[str], run: Outcomes) -> TestsStatus:
    report = TestsStatus()
    for test in fail_to_pass:
        passed = _status(test, run) in PASSING
        (report.fail_to_pass.success if passed else report.fail_to_pass.failure).append(test)
    for test in pass_to_pass:
        kept = _status(test, run) in PASSING | {TestStatus.SKIPPED}
        (report.pass_to_pass.success if kept else report.pass_to_pass.failure).append(test)
    return report


def resolved(status: TestsStatus) -> bool:
    return not status.fail_to_pass.failure and not status.pass_to_pass.failure


def summary(
    dataset_ids: list[str],
    submitted: list[str],
    empty: list[str],
    reports: dict[str, InstanceReport],
    errors: dict[str, str],
) -> RunSummary:
    """The summary of one model's run: `reports` for the instances that ran to a verdict,
    `errors` (id -> why) for those that did not."""
    done = sorted(reports)
    won = sorted(i for i, r in reports.items() if r.resolved)
    lost = sorted(i for i, r in reports.items() if not r.resolved)
    return RunSummary(
        total_instances=len(dataset_ids),
        submitted_instances=len(submitted),
        completed_instances=len(done),
        resolved_instances=len(won),
        unresolved_instances=len(lost),
        empty_patch_instances=len(empty),
        error_instances=len(errors),
        completed_ids=done,
        incomplete_ids=sorted(set(dataset_ids) - set(submitted)),
        empty_patch_ids=sorted(empty),
        submitted_ids=sorted(submitted),
        resolved_ids=won,
        unresolved_ids=lost,
        failure_reasons=dict(sorted(errors.items())),
        error_ids=sorted(errors),
    )
