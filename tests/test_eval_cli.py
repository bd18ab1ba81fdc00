"""`spice eval`: gold and prediction readers, both aggregation rules, the JSON contract, the plot."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli.main import cli
from spice_engine.errors import InputError
from spice_engine.evaluation.gold import read_gold, repo_of
from spice_engine.evaluation.predictions import read_predictions
from spice_engine.evaluation.report import CONTRACT_KEYS, evaluate

GOLD_ROWS = [
    # instance_id, underspecified, false_negative, difficulty
    ("django__django-1", "0.0", "1.0", "<15 min fix"),
    ("django__django-2", "1.0", "2.0", "15 min - 1 hour"),
    ("django__django-3", "2.0", "3.0", "1-4 hours"),
    ("sympy__sympy-4", "3.0", "0.0", ">4 hours"),
    ("sympy__sympy-5", "1.0", "2.0", "15 min - 1 hour"),
    ("sympy__sympy-6", "2.0", "", "<15 min fix"),
]
PEER_MAP = {"WELL_SPECIFIED": 0, "REASONABLY_SPECIFIED": 1, "VAGUE": 2, "IMPOSSIBLE_TO_SOLVE": 3}
PEER_NAMES = {v: k for k, v in PEER_MAP.items()}


@pytest.fixture
def gold_csv(tmp_path: Path) -> Path:
    path = tmp_path / "gold.csv"
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["instance_id", "underspecified", "false_negative", "difficulty", "notes"])
        for row in GOLD_ROWS:
            w.writerow([*row, "free text, with commas"])
    return path


def _clarity(iid: str) -> int:
    return int(float(next(r for r in GOLD_ROWS if r[0] == iid)[1]))


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["eval", *args, "--resamples", "50"])
    return result.exit_code, result.output


def test_gold_reads_floats_and_difficulty_buckets(gold_csv: Path) -> None:
    gold = read_gold(gold_csv)
    assert gold["django__django-3"] == {"clarity": 2, "tests": 3, "difficulty": 2}
    assert gold["sympy__sympy-4"]["difficulty"] == 3
    assert "tests" not in gold["sympy__sympy-6"]  # empty cell: no label, not 0
    assert repo_of("scikit-learn__scikit-learn-10508") == "scikit-learn/scikit-learn"


def test_gold_rejects_labels_outside_the_scale(tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    path.write_text("instance_id,underspecified\nx__y-1,7\n")
    with pytest.raises(InputError, match="0-3"):
        read_gold(path)


def test_our_jsonl_gives_majority_and_max_of_votes(tmp_path: Path) -> None:
    path = tmp_path / "ours.jsonl"
    record = {
        "instance_id": "django__django-2",
        "clarity": {"score": 1, "votes": [{"score": 1}, {"score": 1}, {"score": 3}]},
        "spice": {"difficulty": {"score": 2, "votes": [{"score": 2}], "max_score": 2}},
    }
    path.write_text(json.dumps(record) + "\n")
    preds = read_predictions(path)
    assert preds["django__django-2"]["clarity"].majority == 1
    assert preds["django__django-2"]["clarity"].max_of_votes == 3
    assert preds["django__django-2"]["difficulty"].majority == 2


def test_our_pr_results_are_keyed_by_repo_and_number(tmp_path: Path) -> None:
    # `spice label-instance --json` prints PRAssessment lines: repo + number, no instance_id.
    path = tmp_path / "prs.jsonl"
    line = {"repo": "django/django", "number": 11099, "tests": {"score": 2, "votes": []}}
    path.write_text(json.dumps(line) + "\n")
    preds = read_predictions(path)
    assert preds["django__django-11099"]["tests"].majority == 2


def test_external_json_object_with_label_field_and_label_map(tmp_path: Path) -> None:
    path = tmp_path / "peer.json"
    path.write_text(json.dumps({"a__b-1": {"label": "VAGUE"}, "a__b-2": "well_specified"}))
    preds = read_predictions(path, PEER_MAP)
    assert preds["a__b-1"]["clarity"].majority == 2
    assert preds["a__b-2"]["clarity"].majority == 0  # case-insensitive names


def test_unknown_label_without_a_map_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "peer.json"
    path.write_text(json.dumps({"a__b-1": "VAGUE"}))
    with pytest.raises(InputError, match="VAGUE"):
        read_predictions(path)


def test_evaluate_reports_max_of_votes_only_when_votes_exist(gold_csv: Path) -> None:
    gold = read_gold(gold_csv)
    path = gold_csv.parent / "ours.jsonl"
    lines = [
        {"instance_id": r[0], "clarity": {"score": _clarity(r[0]), "votes": [{"score": 3}]}}
        for r in GOLD_ROWS
    ]
    path.write_text("\n".join(json.dumps(x) for x in lines))
    report = evaluate(gold, read_predictions(path), ["clarity"], resamples=0)
    assert report["clarity"]["accuracy"] == 1.0
    worst = report["clarity"]["max_of_votes"]
    assert worst["accuracy"] == pytest.approx(1 / 6)  # only the item whose gold is 3
    assert set(report["clarity"]["per_repo"]) == {"django/django", "sympy/sympy"}


def test_cli_gold_as_predictions_is_perfect_and_follows_the_contract(
    gold_csv: Path, tmp_path: Path
) -> None:
    out = tmp_path / "report.json"
    code, text = _run("--gold", str(gold_csv), "--predictions", str(gold_csv), "--json", str(out))
    assert code == 0, text
    report = json.loads(out.read_text())
    assert set(report) == {"clarity", "tests", "difficulty"}
    for entry in report.values():
        assert set(CONTRACT_KEYS) | {"n"} <= set(entry)
        assert entry["accuracy"] == 1.0
        assert entry["kappa_binary"] == 1.0
        assert entry["kappa_quadratic"] == 1.0
    assert report["tests"]["n"] == 5  # one gold cell is empty


def test_cli_constant_predictor_has_zero_kappa(gold_csv: Path, tmp_path: Path) -> None:
    preds = tmp_path / "const.jsonl"
    preds.write_text("\n".join(json.dumps({"instance_id": r[0], "label": 1}) for r in GOLD_ROWS))
    out = tmp_path / "report.json"
    code, text = _run(
        "--gold",
        str(gold_csv),
        "--predictions",
        str(preds),
        "--dimension",
        "clarity",
        "--json",
        str(out),
    )
    assert code == 0, text
    report = json.loads(out.read_text())
    assert report["clarity"]["kappa_quadratic"] == 0.0
    assert report["clarity"]["kappa_binary"] == 0.0
    assert report["clarity"]["recall_bad"] == 0.0


def test_cli_scores_a_peer_csv_with_a_label_map_and_plots(gold_csv: Path, tmp_path: Path) -> None:
    peer = tmp_path / "peer.csv"
    with peer.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["instance_id", "label"])
        for r in GOLD_ROWS:
            w.writerow([r[0], PEER_NAMES[_clarity(r[0])]])
    png = tmp_path / "confusion.png"
    out = tmp_path / "report.json"
    code, text = _run(
        "--gold",
        str(gold_csv),
        "--predictions",
        str(peer),
        "--dimension",
        "clarity",
        "--label-map",
        json.dumps(PEER_MAP),
        "--json",
        str(out),
        "--plot",
        str(png),
    )
    assert code == 0, text
    assert json.loads(out.read_text())["clarity"]["accuracy"] == 1.0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_fails_clearly_on_records_without_instance_id(gold_csv: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"clarity": 1}) + "\n")
    code, text = _run("--gold", str(gold_csv), "--predictions", str(bad))
    assert code != 0
    assert "instance_id" in text


def test_cli_real_gold_against_itself(shared_data: Path, tmp_path: Path) -> None:
    gold = shared_data / "swebench" / "labels_openai.csv"
    out = tmp_path / "report.json"
    code, text = _run(
        "--gold",
        str(gold),
        "--predictions",
        str(gold),
        "--dimension",
        "clarity",
        "--json",
        str(out),
    )
    assert code == 0, text
    report = json.loads(out.read_text())["clarity"]
    assert report["n"] == 830
    assert report["accuracy"] == report["kappa_quadratic"] == report["alpha_ordinal"] == 1.0
