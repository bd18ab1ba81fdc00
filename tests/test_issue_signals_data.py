"""Signals on real and hostile issues: never crash, bounded time, scored against human labels."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from app.cli.main import cli
from spice_engine.evaluation.signals_cv import cross_validate
from spice_engine.evaluation.signals_scoring import (
    read_agentless_labels,
    read_instances,
    score_signals,
    signals_for,
)
from spice_engine.issue_clarity import assess_issue
from spice_engine.issue_signals import extract_signals
from spice_engine.llm.config import ModelConfig
from spice_engine.llm.litellm_chat import LiteLLMChat
from spice_engine.models import Issue
from spice_engine.text_cleaning import clean_issue_text
from tests.fakes.openai_server import FakeOpenAI

# Development-split F1, leave one repository out; a drop means a regression.
# Localization is judged against the gold patch (the human labels ask about the fix's location).
FLOORS = {
    "candidate_solution": 0.77,  # measured 0.795
    "reproduction": 0.85,  # measured 0.866
    "file_localization": 0.81,  # measured 0.829
    "function_localization": 0.74,  # measured 0.759
}


def test_every_hostile_case_is_handled_in_bounded_time(hostile_cases: list[dict[str, Any]]) -> None:
    for case in hostile_cases:
        started = time.process_time()
        signals = extract_signals(case["title"], case["body"])
        assert time.process_time() - started < 2.0, case["case"]
        assert signals.summary()
        json.dumps(signals.model_dump(mode="json"))  # serialisable for the comment and the store
        if case["case"] == "link-only":
            assert signals.link_dependent
        if case["case"] == "huge-body":
            assert signals.truncated
            assert signals.error_or_traceback
        if case["case"] == "empty":
            assert signals.reproduction == "none" and signals.candidate_solution == "none"
        if case["case"] == "fake-json-answer":
            assert signals.candidate_solution == "none"  # a quoted answer is not a fix


def test_signals_score_against_agentless_labels(shared_data: Path) -> None:
    instances = read_instances(shared_data / "swebench" / "instances.jsonl")
    gold = read_agentless_labels(shared_data / "swebench" / "labels_agentless.csv")
    started = time.process_time()
    signals = signals_for(instances, list(instances))
    assert time.process_time() - started < 10.0  # the benchmark holds the 5 s target
    labeled = {i: s for i, s in signals.items() if i in gold}
    assert len(labeled) == 148
    scores = score_signals(labeled, gold)
    validated = cross_validate(labeled, gold)
    for name, floor in FLOORS.items():
        assert validated[name].f1 >= floor, (name, validated[name])
        assert validated[name].f1_repositories.low < validated[name].f1
        assert validated[name].folds == 11
    assert scores["candidate_solution"].n == 140  # the 8 "Misleading" are scored apart
    misleading = scores["candidate_solution"].extra["misleading"]
    assert isinstance(misleading, dict) and misleading["n"] == 8


def test_signals_cli_writes_the_contract_json(shared_data: Path, tmp_path: Path) -> None:
    # A 40-instance excerpt keeps the CLI test fast; its labels are a subset of the real file.
    source = shared_data / "swebench" / "instances.jsonl"
    gold = shared_data / "swebench" / "labels_agentless.csv"
    labeled = set(read_agentless_labels(gold))
    rows = [r for r in source.read_text().splitlines() if json.loads(r)["instance_id"] in labeled]
    excerpt = tmp_path / "instances.jsonl"
    excerpt.write_text("\n".join(rows[:40]) + "\n")
    out = tmp_path / "signals.json"
    result = CliRunner().invoke(
        cli, ["signals", "--instances", str(excerpt), "--gold", str(gold), "--json", str(out)]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    for name in (
        "candidate_solution",
        "reproduction",
        "file_localization",
        "function_localization",
    ):
        assert set(report[name]) >= {"precision", "recall", "f1", "n", "cross_validated"}
        assert 0.0 <= report[name]["f1"] <= 1.0
        interval = report[name]["cross_validated"]["f1_repositories"]
        assert 0.0 <= interval["low"] <= interval["high"] <= 1.0
    assert report["reproduction"]["n"] == 40
    assert "cross-validated (leave one repository out" in result.output


def test_clarity_prompt_gets_the_signals_and_the_assessment_keeps_them(
    fake_openai: FakeOpenAI,
) -> None:
    chat = LiteLLMChat(
        ModelConfig(
            model="openai/fake",
            api_base=fake_openai.api_base,
            api_key="x",
            output_mode="json_object",
        )
    )
    body = (
        "Calling `Frame.sort()` raises:\n\n```\nTypeError: bad\n```\nThe fix is to skip None keys."
    )
    result = assess_issue(Issue(title="Sort crash", body=body), chat)
    user = fake_openai.requests[0]["messages"][-1]["content"]
    assert "Deterministic signals" in user
    assert "- candidate solution: partial" in user
    assert user.index("- reproduction:") < user.index("<issue>")
    assert result.evidence["candidate_solution"] == "partial"
    assert result.evidence["error_or_traceback"] is True


def _parse_seconds(body: str) -> float:
    """CPU seconds, the best of three: the bound must hold on a busy machine too."""
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        extract_signals("t", body)
        clean_issue_text(body)
        best = min(best, time.process_time() - started)
    return best


@pytest.mark.parametrize(
    "unit", ["a", "a.", ":", "a_" * 79 + " ", "*a" * 79 + " ", "[", "![", "[a "]
)
def test_pathological_shapes_cost_linear_time(unit: str) -> None:
    # Regexes over identifiers cost the square of a space-free run: runs are bounded first.
    # Emphasis delimiters cost markdown-it the square of their count in one paragraph: the
    # parser leaves emphasis out. Unclosed brackets stay linear but dear (~15 us each, link
    # labels are scanned for), so the check is growth, not a wall: 4x the text may cost ~4x,
    # never the ~16x of a quadratic path. The small text's floor keeps timer noise out.
    def shaped(n: int) -> str:
        return (unit * (n // len(unit) + 1))[:n]

    small, large = _parse_seconds(shaped(8_000)), _parse_seconds(shaped(32_000))
    assert large < 8 * max(small, 0.005), (unit[:4], small, large)
    assert large < 4.0, (unit[:4], large)


def test_candidate_solution_on_freshly_labelled_issues(shared_data: Path) -> None:
    # 100 SWE-bench issues outside Agentless's sample, labelled for this project before the
    # cues were revised; "design" issues guided the revision, "check" issues did not.
    fresh = Path(__file__).parent / "data" / "candidate_solution_fresh.csv"
    instances = read_instances(shared_data / "swebench" / "instances.jsonl")
    gold = read_agentless_labels(fresh)
    signals = signals_for(instances, list(gold))
    scores = score_signals(signals, gold)
    assert list(scores) == ["candidate_solution"]  # a file with one column scores one signal
    assert scores["candidate_solution"].n == 100
    assert scores["candidate_solution"].f1 >= 0.66  # measured 0.694
    check = {i: s for i, s in signals.items() if gold[i]["split"] == "check"}
    assert score_signals(check, gold)["candidate_solution"].f1 >= 0.65  # measured 0.683
