"""PR evidence on real SWE-bench instances: pinned flags, evidence everywhere, measured scores."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from app.cli.main import cli
from app.cli.score_text import baseline_text
from spice_engine.llm.config import ModelConfig
from spice_engine.llm.litellm_chat import LiteLLMChat
from spice_engine.pr.pipeline import assess_instance
from spice_engine.pr_evidence import PrEvidence, pr_evidence
from spice_engine.pr_evidence.benchmark import Case, half_of, load_cases, score
from tests.fakes.openai_server import FakeOpenAI

DATA = Path(__file__).parent / "data"
EXCERPT = DATA / "pr_evidence_instances.jsonl"
LABELS = DATA / "pr_evidence_labels.csv"


def _excerpt() -> dict[str, dict[str, Any]]:
    rows = (json.loads(line) for line in EXCERPT.read_text().splitlines() if line.strip())
    return {row["instance_id"]: row for row in rows}


def _evidence(instance_id: str) -> PrEvidence:
    row = _excerpt()[instance_id]
    return pr_evidence(row["patch"], row["test_patch"], row["problem_statement"])


def _first(ev: PrEvidence, name: str) -> tuple[str, str, int | None]:
    flag = next(f for f in ev.flags if f.name == name)
    item = flag.evidence[0]
    return item.name, item.file, item.line


@pytest.mark.parametrize(
    ("instance_id", "flag", "evidence"),
    [
        (
            "scikit-learn__scikit-learn-13333",
            "asserts_new_message",
            ("n_quantiles is set to n_samples", "sklearn/preprocessing/tests/test_data.py", 1265),
        ),
        (
            "scikit-learn__scikit-learn-13333",
            "expects_unasked_warning",
            ("pytest.warns", "sklearn/preprocessing/tests/test_data.py", 1266),
        ),
        (
            "scikit-learn__scikit-learn-13333",
            "uses_new_attribute",
            ("n_quantiles_", "sklearn/preprocessing/tests/test_data.py", 1269),
        ),
        (
            "django__django-11903",
            "asserts_exact_error_text",
            ("Unknown command: 'invalid_command'", "tests/admin_scripts/tests.py", 642),
        ),
        (
            "django__django-10606",
            "uses_new_parameter_named_in_issue",
            ("limit_choices_to", "tests/model_fields/tests.py", 285),
        ),
        (
            "django__django-10606",
            "tests_outside_patch",
            ("tests/admin_filters/tests.py", "tests/admin_filters/tests.py", 744),
        ),
        (
            "pydata__xarray-4819",
            "uses_new_api_named_in_issue",
            ("drop_isel", "xarray/tests/test_dataset.py", 2424),
        ),
        (
            "django__django-11019",
            "asserts_message_from_issue",
            (
                "Detected duplicate Media files in an opposite order:",
                "tests/forms_tests/tests/test_media.py",
                556,
            ),
        ),
        (
            "django__django-15766",
            "uses_new_parameter_named_in_issue",
            ("robust", "tests/test_utils/tests.py", 2298),
        ),
    ],
)
def test_flags_pinned_on_real_instances(
    instance_id: str, flag: str, evidence: tuple[str, str, int]
) -> None:
    assert _first(_evidence(instance_id), flag) == evidence


@pytest.mark.parametrize(
    ("instance_id", "fires"),
    [
        ("scikit-learn__scikit-learn-13333", True),
        ("django__django-11903", True),
        ("django__django-10606", True),
        ("django__django-15766", True),
        # Human label 1: the subTest(lists=...) keyword is the test's, not the fix's signature.
        ("django__django-11019", False),
        ("pydata__xarray-4819", False),
        # Human label 0: `evaluate` is a quoted value, which is not counted.
        ("sympy__sympy-24661", False),
    ],
)
def test_tests_flag_on_real_instances(instance_id: str, fires: bool) -> None:
    assert _evidence(instance_id).tests_flag is fires


def test_test_stats_on_a_real_instance() -> None:
    stats = _evidence("django__django-10606").test_stats
    assert (stats.test_files, stats.tests_added, stats.tests_modified) == (2, 4, 1)


def test_cli_writes_the_contract_json(tmp_path: Path) -> None:
    out = tmp_path / "signals.json"
    result = CliRunner().invoke(
        cli,
        ["pr-signals", "--instances", str(EXCERPT), "--gold", str(LABELS), "--json", str(out)],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert set(data) == {"tests_flag", "difficulty_prior"}
    assert set(data["tests_flag"]) == {"precision", "recall", "f1", "n"}
    assert set(data["difficulty_prior"]) == {"accuracy", "kappa_quadratic", "n"}
    # 8 labelled instances: 4 flagged, all with false_negative >= 2 (6 positives).
    assert data["tests_flag"] == {"precision": 1.0, "recall": 0.6667, "f1": 0.8, "n": 8}
    assert data["difficulty_prior"]["n"] == 8
    assert "* asserts_new_message" in result.output and "half a:" in result.output


def test_cli_reports_unreadable_input(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"instance_id": "django__django-10606", "patch": "x"\n')
    result = CliRunner().invoke(cli, ["pr-signals", "--instances", str(bad), "--gold", str(LABELS)])
    assert result.exit_code == 1
    assert "not JSON" in result.output


@pytest.fixture(scope="module")
def dev_cases(shared_data: Path) -> list[Case]:
    swebench = shared_data / "swebench"
    return load_cases(swebench / "instances.jsonl", swebench / "labels_openai.csv")


def test_every_flag_carries_evidence(dev_cases: list[Case]) -> None:
    flags = [flag for case in dev_cases for flag in case.evidence.flags]
    assert len(flags) > 100
    for flag in flags:
        assert flag.evidence, flag.name
        for item in flag.evidence:
            assert item.name and item.file and item.detail
            assert item.line is None or item.line > 0


def test_development_split_scores(dev_cases: list[Case]) -> None:
    """The acceptance numbers, on the whole split and on each half (a tuned, b checked)."""
    report = score(dev_cases)
    assert report.tests_flag.n == 328
    assert report.tests_flag.precision >= 0.85 and report.tests_flag.recall >= 0.30
    for half in ("a", "b"):
        tests = report.halves[half]["tests_flag"]
        assert tests.precision >= 0.85, (half, tests)  # type: ignore[union-attr]
    # The prior ties the size-only baseline (0.615); see README for why 0.65 is not reached.
    assert report.difficulty_prior.n == 436
    assert report.difficulty_prior.kappa_quadratic >= 0.60
    assert {half_of(c.instance_id) for c in dev_cases} == {"a", "b"}


def test_baseline_text_covers_only_the_requested_instances() -> None:
    ids = {"django__django-10606", "django__django-11019", "scikit-learn__scikit-learn-13333"}
    text = baseline_text(EXCERPT, LABELS, ids)
    assert "tests_flag        precision 1.000  recall 1.000" in text
    assert "(fired 2, positives 2, n 3)" in text and "(n 3)" in text


def test_baseline_text_explains_an_unreadable_instances_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n")
    text = baseline_text(bad, LABELS, {"django__django-10606"})
    assert (
        text.startswith("deterministic PR-evidence baselines unavailable:") and "not JSON" in text
    )


def test_pr_pipeline_computes_evidence_when_none_is_given(fake_openai: FakeOpenAI) -> None:
    row = _excerpt()["scikit-learn__scikit-learn-13333"]
    chat = LiteLLMChat(
        ModelConfig(
            model="openai/fake",
            api_base=fake_openai.api_base,
            api_key="x",
            output_mode="json_object",
        )
    )
    result = assess_instance(row, chat)
    assert result.evidence["tests_flag"] is True
    flags = result.evidence["test_flags"]
    assert (
        isinstance(flags, dict)
        and "n_quantiles is set to n_samples" in flags["asserts_new_message"]
    )
    prompt = fake_openai.requests[0]["messages"][1]["content"]
    assert "<evidence>" in prompt and "! asserts_new_message:" in prompt
    # A caller's own evidence is used as given, without the computed one.
    given = assess_instance(row, chat, evidence={"tests_touch": ["x"]})
    assert given.evidence == {"tests_touch": ["x"]}


def test_eval_prints_the_baselines_next_to_predictions(tmp_path: Path) -> None:
    preds = tmp_path / "preds.json"
    ids = list(_excerpt())
    preds.write_text(json.dumps({iid: {"tests": 2, "difficulty": 1} for iid in ids}))
    result = CliRunner().invoke(
        cli,
        [
            "eval",
            "--gold",
            str(LABELS),
            "--predictions",
            str(preds),
            "--instances",
            str(EXCERPT),
            "--resamples",
            "0",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "deterministic PR-evidence baselines on the same instances" in result.output
    assert "(fired 4, positives 6, n 8)" in result.output
