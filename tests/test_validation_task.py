"""Validation as a queue task: a stored instance is validated by the worker's task (tests
run, never on the webhook path), the result is stored, exported, and kept across harvests."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from app.harvest.build import Built, SweInstance
from app.harvest.export import ExportFilter, select_records
from app.harvest.label import SpiceLabels
from app.harvest.store import HarvestStore
from app.harvest.validation_task import register_validation_task, run_validation
from app.settings import Settings
from app.store.engine import database_url, make_engine, session_factory
from app.store.migrate import upgrade_to_head
from spice_engine.langs.base import ToolchainMissing
from spice_engine.langs.rust import machine_rust
from spice_engine.validate.bubblewrap import Bubblewrap
from tests.lang_projects import patched_project, project_instance
from tests.service.settings import service_settings
from tests.service.stack import build_stack, run_ready_tasks
from tests.validation_support import calc_repo_fixture  # noqa: F401

DATA = Path(__file__).parent / "data"


def _stored(tmp_path: Path, repo: Path, row: dict[str, str]) -> tuple[Settings, HarvestStore]:
    """The App's settings over a mirror of `repo`, and its store holding the instance `row`."""
    mirror = tmp_path / "mirror"
    (mirror / "octo").mkdir(parents=True)
    subprocess.run(
        ["git", "clone", "-q", "--bare", str(repo), str(mirror / "octo" / "calc.git")], check=True
    )
    settings = service_settings(tmp_path / "data", git_base_url=f"file://{mirror}")
    upgrade_to_head(make_engine(database_url(settings)))
    store = HarvestStore(session_factory(make_engine(database_url(settings))))
    fields = {k: v for k, v in row.items() if k in SweInstance.model_fields}
    store.save(Built(instance=SweInstance(**fields), issues=[], pr_number=1), None)
    return settings, store


def test_a_stored_instance_is_validated_by_the_queue_and_exported(
    tmp_path: Path, calc_repo: tuple[Path, dict[str, str]]
) -> None:
    repo, row = calc_repo
    settings, store = _stored(tmp_path, repo, row)
    stack = build_stack(settings)
    fields = {k: v for k, v in row.items() if k in SweInstance.model_fields}
    built = Built(instance=SweInstance(**fields), issues=[], pr_number=1)
    assert select_records(store.instances(), ExportFilter()) == []  # not validated yet

    enqueue = register_validation_task(stack.queue.huey, settings)
    enqueue(row["instance_id"])
    assert run_ready_tasks(stack.queue) == 1

    [record] = select_records(store.instances(), ExportFilter())
    assert json.loads(str(record["FAIL_TO_PASS"])) == ["tests/test_calc.py::test_add"]
    assert json.loads(str(record["PASS_TO_PASS"])) == ["tests/test_calc.py::test_mul"]
    assert record["log_parser"] == "parse_log_pytest" and "git apply" in str(record["eval_script"])
    # Harvesting the PR again, with labels this time, keeps the validation.
    store.save(built, SpiceLabels(labelled=True))
    [again] = select_records(store.instances(), ExportFilter())
    assert again["FAIL_TO_PASS"] == record["FAIL_TO_PASS"]


def test_a_validation_that_cannot_tell_keeps_a_stored_valid_one(
    tmp_path: Path, calc_repo: tuple[Path, dict[str, str]]
) -> None:
    """The App's validation, validated once, then run again without a sandbox (as under a
    broken configuration): the stored `valid` and its lists stay, the attempt is noted."""
    repo, row = calc_repo
    settings, store = _stored(tmp_path, repo, row)
    assert run_validation(settings, store, row["instance_id"]) == "valid"
    broken = settings.model_copy(update={"bwrap_path": str(tmp_path / "no-bwrap")})
    assert run_validation(broken, store, row["instance_id"]) == "sandbox_unavailable"
    [stored] = store.instances()
    validation = stored.labels["validation"]
    assert validation["status"] == "valid"
    assert validation["last_attempt"]["status"] == "sandbox_unavailable"
    [record] = select_records(store.instances(), ExportFilter())
    assert json.loads(str(record["FAIL_TO_PASS"])) == ["tests/test_calc.py::test_add"]


@pytest.mark.parametrize(
    ("language", "test_id"),
    [("go", "example.com/calc/mathx::TestAdd"), ("rust", "tests/sums.rs::sum_of_mixed_signs")],
)
def test_the_queue_validates_a_harvested_instance_in_its_own_language(
    tmp_path: Path, language: str, test_id: str
) -> None:
    """The worker's task sends a row to its language's executor, as `spice validate` does
    (it once validated every harvested row as a Python project)."""
    if why := Bubblewrap().problem(tmp_path):
        pytest.skip(f"bubblewrap cannot run here: {why}")
    repo = tmp_path / "src"
    if language == "go":
        row = project_instance(DATA / "lang_go" / "calc", repo, "octo/calc")
    else:
        try:
            machine_rust()
        except ToolchainMissing as exc:
            pytest.skip(str(exc))
        row = patched_project(DATA / "lang_rust", repo, "octo/calc")
    row |= {"problem_statement": "Add subtracts.", "hints_text": "", "created_at": "2025-06-02"}
    settings, store = _stored(tmp_path, repo, row)
    assert run_validation(settings, store, row["instance_id"]) == "valid"
    [record] = select_records(store.instances(), ExportFilter())
    assert test_id in json.loads(str(record["FAIL_TO_PASS"]))
    assert record["log_parser"] == f"spice_{language}"
