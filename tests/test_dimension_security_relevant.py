"""The sample yes/no issue dimension: asked in the clarity prompt, labelled, shown, evaluated."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from app.handlers.deps import HandlerDeps
from app.handlers.dispatch import handle_delivery
from app.harvest.label import SpiceLabels
from spice_engine.evaluation.gold import read_gold
from spice_engine.evaluation.predictions import read_predictions
from spice_engine.evaluation.report import evaluate
from spice_engine.models import IssueAssessment
from tests.fakes.github_fixtures import (
    REPO,
    fake_github_fixture,  # noqa: F401
    handler_deps_fixture,  # noqa: F401
    payload,
    scripted,
)
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI, request_schema

YES = frozenset({"security_relevant"})


def _assess(
    gh: FakeGitHub, model: FakeOpenAI, deps: HandlerDeps, yes: frozenset[str]
) -> IssueAssessment:
    gh.add_issue(REPO, 3, "Path traversal in upload", "`../` in a file name escapes the root.")
    model.responder = scripted([0, 0, 1], yes=yes)
    out = handle_delivery("issues", payload(gh, "issues", "opened", REPO, 3), "d-1", deps)
    assert out.ok and isinstance(out.assessments[0], IssueAssessment)
    return out.assessments[0]


def test_a_yes_is_labelled_and_shown_in_the_comment(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, handler_deps: HandlerDeps
) -> None:
    result = _assess(fake_github, fake_openai, handler_deps, YES)
    assert result.results()["security_relevant"].score == 1
    assert "security relevant" in fake_github.label_names(REPO, 3)
    assert fake_github.repos[REPO].labels["security relevant"]["color"] == "b60205"
    body = fake_github.issue_comments(REPO, 3)[0]["body"]
    assert "| Security relevant | `security relevant` | 1 · 1 · 1 |" in body
    # One request, as before: the question rides in the clarity prompt (v2) and its schema.
    (request,) = fake_openai.requests
    assert "security relevant" in request["messages"][0]["content"]
    assert "security_relevant" in (request_schema(request) or {})["properties"]


def test_a_no_carries_no_label(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, handler_deps: HandlerDeps
) -> None:
    result = _assess(fake_github, fake_openai, handler_deps, frozenset())
    assert result.results()["security_relevant"].score == 0
    assert "security relevant" not in fake_github.label_names(REPO, 3)


def test_it_is_evaluated_and_exported(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, handler_deps: HandlerDeps, tmp_path: Path
) -> None:
    dump = _assess(fake_github, fake_openai, handler_deps, YES).model_dump(mode="json")
    preds = tmp_path / "preds.jsonl"
    preds.write_text(json.dumps({"instance_id": "o__r-3", **dump}) + "\n")
    gold = tmp_path / "gold.csv"
    with gold.open("w", newline="") as fh:
        csv.writer(fh).writerows([["instance_id", "security_relevant"], ["o__r-3", "1"]])
    report = evaluate(read_gold(gold), read_predictions(preds), ["security_relevant"], 10)
    assert (report["security_relevant"]["n"], report["security_relevant"]["accuracy"]) == (1, 1.0)
    spice = SpiceLabels()
    spice.set_results(IssueAssessment.model_validate(dump))
    assert spice.model_dump()["security_relevant"]["votes"] == [1, 1, 1]
