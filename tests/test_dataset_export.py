"""Exports others load: a Go and a Python instance validated in the real sandbox carry their
version, setup commit and environment recipe, and their Multi-SWE-bench records load in the
real multi-swe-bench package, which splits their tests exactly as we did."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from app.cli.main import cli
from spice_engine.dataset.environment_recipe import EnvironmentRecipe, toolchain_line
from spice_engine.validate.bubblewrap import Bubblewrap
from tests.fakes.sample_project import make_calc_repo
from tests.lang_projects import project_instance
from tests.msb_referee import load_records, msb_referee_fixture  # noqa: F401

DATA = Path(__file__).parent / "data"
GO_PKG = "example.com/calc/mathx"


def spice(env: dict[str, str], *args: str) -> str:
    done = CliRunner().invoke(cli, list(args), env=env)
    assert done.exit_code == 0, done.output
    return done.stdout


def lines(path: Path) -> dict[str, dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {str(r["instance_id"]): r for r in rows}


@pytest.fixture(scope="module", name="validated")
def validated_fixture(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """`spice validate` of a Go module and a Python project, each from its own repository."""
    tmp = tmp_path_factory.mktemp("export")
    if why := Bubblewrap().problem(tmp):
        pytest.skip(f"bubblewrap cannot run here: {why}")
    go = project_instance(DATA / "lang_go" / "calc", tmp / "go", "acme/mathx")
    py = make_calc_repo(tmp / "py")
    rows = tmp / "rows.jsonl"
    rows.write_text("".join(json.dumps(r) + "\n" for r in (go, py)))
    env = {"SPICE_DATA_DIR": str(tmp / "data")}
    out = tmp / "validated.jsonl"
    repos = ["--repo", f"acme/mathx={tmp / 'go'}", "--repo", f"octo/calc={tmp / 'py'}"]
    spice(env, "validate", str(rows), "--out", str(out), *repos)
    return out, env


@pytest.mark.timeout(1800)
def test_every_language_names_its_version_setup_commit_and_recipe(
    validated: tuple[Path, dict[str, str]],
) -> None:
    rows = lines(validated[0])
    go, py = rows["acme__mathx-1"], rows["octo__calc-1"]
    for row in (go, py):
        assert row["spice"]["validation"]["status"] == "valid", row["spice"]["validation"]
    record = go["spice"]["validation"]
    recipe = EnvironmentRecipe.model_validate_json(go["environment_recipe"])
    assert go["version"] == toolchain_line(record["toolchain"]) and go["version"].startswith("go1.")
    assert go["environment_setup_commit"] == go["base_commit"] == recipe.setup_commit
    assert recipe.language == "go" and recipe.toolchain == record["toolchain"]
    assert recipe.test_command == record["test_command"]
    assert recipe.install_sees == ["go.mod"] and recipe.setup_patches == ["test_patch", "patch"]
    assert recipe.install and all(step.argv for step in recipe.install)
    assert recipe.registries == ["proxy.golang.org:443", "sum.golang.org:443"]
    assert any(GO_PKG in t for t in record["test_runs"]["after"]["PASSED"])
    python = EnvironmentRecipe.model_validate_json(py["environment_recipe"])
    assert py["version"] and py["environment_setup_commit"] == python.setup_commit
    assert python.toolchain == f"python{py['spice']['validation']['python']}"
    assert python.test_command[-1] == "tests/test_calc.py" and python.install
    assert python.python and python.python["test_runner"] == "pytest"
    assert python.registries == ["pypi.org:443", "files.pythonhosted.org:443"]


@pytest.mark.timeout(1800)
def test_multi_swe_bench_loads_our_records_and_splits_the_tests_as_we_did(
    validated: tuple[Path, dict[str, str]], msb_referee: Path, tmp_path: Path
) -> None:
    source, env = validated
    out = tmp_path / "msb.jsonl"
    summary = json.loads(
        spice(
            env, "export", "--input", str(source), "--format", "multi-swe-bench", "--out", str(out)
        )
    )
    assert summary["exported"] == 2
    loaded = load_records(msb_referee, out)
    go, py = loaded["acme__mathx-1"], loaded["octo__calc-1"]
    for got in (go, py):
        assert got["valid"] is True and got["loaded"] == got["recomputed"]
    assert go["id"] == "acme/mathx:pr-1" and go["lang"] == "golang"
    # The test patch needs the fix to build: before it, its package's tests did not exist.
    assert go["loaded"]["f2p_tests"] == [] and f"{GO_PKG}::TestSub" in go["loaded"]["n2p_tests"]
    ours = json.loads(lines(source)["acme__mathx-1"]["FAIL_TO_PASS"])
    assert sorted(go["loaded"]["n2p_tests"]) == ours
    assert py["loaded"]["f2p_tests"] == ["tests/test_calc.py::test_add"]
    assert py["loaded"]["p2p_tests"] == ["tests/test_calc.py::test_mul"]
    assert py["lang"] == "python" and py["fix_passed"] == 2


def test_a_row_without_its_runs_is_left_out_saying_why(tmp_path: Path) -> None:
    row = {
        "instance_id": "o__r-3",
        "repo": "o/r",
        "base_commit": "abc",
        "patch": "p",
        "test_patch": "t",
        "created_at": "2025-06-02T00:00:00Z",
        "FAIL_TO_PASS": '["a"]',
        "spice": {"validation": {"status": "valid", "logs": str(tmp_path / "gone")}},
    }
    source, out = tmp_path / "v.jsonl", tmp_path / "msb.jsonl"
    source.write_text(json.dumps(row) + "\n")
    done = CliRunner().invoke(
        cli,
        ["export", "--input", str(source), "--format", "multi-swe-bench", "--out", str(out)],
        env={"SPICE_DATA_DIR": str(tmp_path / "data")},
    )
    assert done.exit_code == 0, done.output
    assert "o__r-3 left out: no run logs at" in done.stderr
    assert out.read_text() == ""


def test_the_split_follows_each_tests_status_before_the_fix_and_leaves_flaky_ones_out() -> None:
    from spice_engine.dataset.msb_format import msb_record
    from spice_engine.dataset.runs import TestRuns
    from spice_engine.validate.outcomes import TestStatus as S

    runs = TestRuns(
        before={"a": S.FAILED, "b": S.SKIPPED, "c": S.PASSED, "d": S.ERROR, "x": S.XFAIL},
        after={"a": S.PASSED, "b": S.PASSED, "c": S.PASSED, "d": S.PASSED, "e": S.PASSED},
    )
    row = {
        "instance_id": "o__r-9",
        "repo": "o/r",
        "problem_statement": "One\nfirst body\nTwo\nsecond body\n",
        "spice": {"linked_issues": [3, 4], "validation": {"language": "rust"}},
    }
    record = msb_record(row, runs, flaky=["d"])
    groups = {g: sorted(getattr(record, g)) for g in ("f2p_tests", "s2p_tests", "p2p_tests")}
    assert groups == {"f2p_tests": ["a"], "s2p_tests": ["b"], "p2p_tests": ["c"]}
    assert sorted(record.n2p_tests) == ["e"] and sorted(record.fixed_tests) == ["a", "b", "e"]
    assert record.test_patch_result.passed_tests == ["c", "x"]  # XFAIL passes, as theirs does
    # Several issues: our statement joins them, so the first one holds it whole.
    assert [(i.number, i.title) for i in record.resolved_issues] == [(3, ""), (4, "")]
    assert record.resolved_issues[0].body == row["problem_statement"].removesuffix("\n")
    assert (record.number, record.lang) == (9, "rust")


def test_a_toolchain_gives_its_release_line() -> None:
    lines = {"go1.26.8": "go1.26", "jdk17": "jdk17", "rustc 1.86": "rustc1.86"}
    assert {t: toolchain_line(t) for t in lines} == lines
    assert toolchain_line("node v20.20.2") == "node20.20"
    assert toolchain_line("gcc 12.2.0, Debian bookworm") == "gcc12.2"
