"""The dimension registry is the one source of scales, names, labels, prompts and columns."""

from __future__ import annotations

import pytest

from app.github.labels import plan_labels, scored_label, spec_by_name
from app.harvest.label import EXPORTED, SpiceLabels
from spice_engine.aggregation import aggregate_dimension
from spice_engine.answers import CandidateSolution
from spice_engine.dimensions import (
    CANDIDATE,
    CLARITY,
    DIFFICULTY,
    NEEDS_HUMAN,
    REGISTRY,
    TESTS,
    answer_model,
    dimension,
    guests,
    voted_separately,
    yes_no,
)
from spice_engine.evaluation.gold import GOLD_COLUMNS, parse_score
from spice_engine.evaluation.predictions import DIMENSION_KEYS
from spice_engine.models import Issue, IssueAssessment, PromptRef, Usage, Vote
from spice_engine.prompts import latest_version
from spice_engine.summary import dimension_line


def test_the_cli_and_the_labels_use_one_name_per_value() -> None:
    result = aggregate_dimension("clarity", [Vote(score=1)] * 3, 3)
    assert dimension_line(result).startswith("clarity: 1 (minor-gaps)  votes 1 · 1 · 1")
    assert scored_label("clarity", 1) == "clarity: minor-gaps"
    for dim in (CLARITY, TESTS, DIFFICULTY):
        for level in dim.levels:
            assert level.label == f"{dim.key}: {level.name}"


def test_the_label_allowlist_is_the_registry() -> None:
    labels = {lv.label for d in REGISTRY for lv in d.levels if lv.label} | {NEEDS_HUMAN.label}
    assert set(spec_by_name("")) == labels
    assert set(spec_by_name("spice/")) == {f"spice/{name}" for name in labels}
    assert scored_label("clarity", 7) is None and scored_label("anything", 1) is None


def test_every_voted_dimension_has_a_prompt_on_disk() -> None:
    assert [d.key for d in voted_separately("issue")] == ["clarity"]
    assert [d.key for d in voted_separately("pull_request")] == ["tests", "difficulty"]
    for dim in REGISTRY:
        if dim.prompt_id is not None:
            assert latest_version(dim.prompt_id)


def test_evaluation_columns_and_keys_come_from_the_registry() -> None:
    assert {k: GOLD_COLUMNS[k] for k in ("clarity", "tests", "difficulty")} == {
        "clarity": "underspecified",
        "tests": "false_negative",
        "difficulty": "difficulty",
    }
    assert "candidate_solution" not in GOLD_COLUMNS  # derived: nothing to score it against
    assert parse_score("1-4 hours") == 2 and parse_score("2.0") == 2
    assert DIMENSION_KEYS["tests"] == ("tests", "test_adequacy", "false_negative")
    assert dimension("test_adequacy") is TESTS
    with pytest.raises(KeyError):
        dimension("nope")


def test_the_export_block_has_a_column_per_exported_dimension() -> None:
    assert {"clarity", "tests", "difficulty"} <= set(EXPORTED)
    assert "candidate_solution" not in EXPORTED
    block = SpiceLabels().model_dump()
    assert all(block[key]["score"] is None for key in EXPORTED)
    # A stored row of any age reads back into the same shape; unknown keys are dropped.
    old = SpiceLabels.model_validate({"clarity": {"score": 1}, "stray": 3}).model_dump()
    assert old["clarity"]["score"] == 1 and "stray" not in old and old["tests"]["score"] is None


def _issue(clarity: int, candidate: CandidateSolution, misleading: bool) -> IssueAssessment:
    votes = [Vote(score=clarity)] * 3
    rank = list(CandidateSolution).index(candidate)
    return IssueAssessment(
        issue=Issue(),
        clarity=aggregate_dimension("clarity", votes, 3),
        candidate_solution=candidate,
        candidate_misleading=misleading,
        dimensions={CANDIDATE.key: aggregate_dimension(CANDIDATE.key, [Vote(score=rank)], 1)},
        model="m",
        prompt=PromptRef(id="issue_clarity", version="1"),
        engine_version="0",
        usage=Usage(),
        input_hash="h",
    )


def test_label_plan_loops_over_the_subjects_dimensions() -> None:
    plan = plan_labels(_issue(2, CandidateSolution.EXACT_PATCH, False), "p/")
    assert set(plan.desired) == {d.key for d in REGISTRY if d.subject == "issue"} | {"triage"}
    assert plan.desired["clarity"] == "p/clarity: ambiguous"
    assert plan.desired["candidate_solution"] == "p/has candidate solution"
    assert plan.desired["triage"] is None
    # A misleading candidate withholds its label; split candidate votes never ask a person.
    plan = plan_labels(_issue(0, CandidateSolution.COMPLETE, True), "")
    assert plan.desired["candidate_solution"] is None and plan.desired["triage"] is None


def test_a_yes_no_dimension_labels_only_yes_and_splits_at_one() -> None:
    dim = yes_no("security_relevant", "Security relevant", "security", "b60205", "security")
    answer = dim.answer.model_validate({"rationale": "r", "security_relevant": True})
    assert dim.vote_of(answer) == 1
    assert [dim.label_of(0), dim.label_of(1)] == [None, "security"]
    assert dim.boundary == 1 and dim.asked_in == "clarity" and dim.prompt_id is None
    assert dim.answer.model_json_schema()["required"] == ["rationale", "security_relevant"]
    alone = yes_no("x", "X", "x", "ededed", "x?", asked_in=None)
    assert alone.prompt_id == "x" and alone.asked_in is None


def test_the_clarity_answer_carries_every_field_asked_in_its_prompt() -> None:
    fields = answer_model(CLARITY).model_fields
    for guest in guests(CLARITY):
        assert guest.answer_field in fields
    assert CANDIDATE in guests(CLARITY)
