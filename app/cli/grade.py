"""`spice evaluate PREDICTIONS --dataset EXPORT`: grade model patches on validated instances of
any language, in the sandbox, and write SWE-bench's reports (label agreement with human
labels is `spice eval`)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Annotated, Any

import typer

from app.cli.common import emit_json, fail, settings_with
from app.cli.validate import ExecutorOption, NoSandboxOption, RepoOption, executor_for, repo_map
from spice_engine.errors import InputError
from spice_engine.grading.grade import Graded, grade
from spice_engine.grading.jobs import jobs_for
from spice_engine.grading.outputs import instance_dir, write_instance, write_summary
from spice_engine.grading.predictions import (
    Prediction,
    lists_of,
    read_dataset,
    read_predictions,
)
from spice_engine.grading.reports import InstanceReport, summary
from spice_engine.langs.executor import Executor
from spice_engine.runs.session import Job

DatasetOption = Annotated[
    Path | None,
    typer.Option(help="The instances to grade on: `spice export` or `spice validate` output."),
]


def evaluate_cmd(
    predictions: Annotated[
        Path,
        typer.Argument(help="SWE-bench predictions: instance_id, model_name_or_path, model_patch."),
    ],
    dataset: DatasetOption = None,
    repo: RepoOption = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for the reports.")] = Path(
        "evaluation"
    ),
    run_id: Annotated[str, typer.Option(help="Names the run's summary file.")] = "spice",
    workers: Annotated[int, typer.Option(min=1, help="Predictions graded at once.")] = 1,
    timeout: Annotated[float, typer.Option(min=1, help="Seconds per test run.")] = 1800.0,
    executor_name: ExecutorOption = "local",
    no_sandbox: NoSandboxOption = False,
) -> None:
    """Grade model patches on a dataset's instances in the sandbox: SWE-bench's reports.

    Each prediction's patch is applied with the instance's test patch at its base commit, the
    tests its validation ran are run in the same environment, and `OUT/<model>/<id>/report.json`
    and `OUT/<model>.<run_id>.json` are written as SWE-bench 5's harness writes them.
    """
    if dataset is None:
        fail("give --dataset EXPORT to grade on (label agreement is `spice eval`)")
    try:
        preds = read_predictions(predictions)
        rows = read_dataset(dataset)
    except InputError as exc:
        fail(str(exc))
    if unknown := [p.instance_id for p in preds if p.instance_id not in rows]:
        fail(f"predictions for instances not in {dataset}: {', '.join(unknown[:5])}")
    settings = settings_with()
    data = settings.data_dir.resolve()
    runnable = [rows[i] for i in dict.fromkeys(p.instance_id for p in preds if not p.empty)]
    executor = executor_for(settings, executor_name, no_sandbox)
    git_dirs = repo_map(repo or [], data / "repos", runnable, settings.git_base_url)
    jobs = jobs_for(runnable, git_dirs, timeout)
    lock, finished, total = threading.Lock(), [0], sum(not p.empty for p in preds)

    def one(pred: Prediction) -> tuple[Prediction, Graded | None]:
        if pred.empty:
            return pred, None  # SWE-bench runs no empty patch: it is counted as such
        job = jobs[pred.instance_id]
        folder = instance_dir(out, pred.model_name_or_path, pred.instance_id)
        graded = _graded(job, pred, rows[pred.instance_id], folder, executor, data)
        write_instance(folder, pred.instance_id, pred.model_patch, graded)
        with lock:
            finished[0] += 1
            typer.echo(_line(pred, graded, finished[0], total), err=True)
        return pred, graded

    with ThreadPoolExecutor(max_workers=workers) as pool:
        done = list(pool.map(one, preds))
    written = _summaries(done, sorted(rows), out, run_id)
    emit_json({"out": str(out), "summaries": written})


def _graded(
    job: Job | str,
    pred: Prediction,
    row: dict[str, Any],
    folder: Path,
    executor: Executor,
    data: Path,
) -> Graded:
    if isinstance(job, str):
        return Graded(error=job)
    # A copy per prediction: models graded at once on one instance keep their logs apart.
    job = job.model_copy(update={"logs_dir": folder})
    try:
        lists = lists_of(row)
    except InputError as exc:
        return Graded(error=str(exc))
    return grade(job, executor, data / "tmp", pred, lists)


def _line(pred: Prediction, graded: Graded, n: int, total: int) -> str:
    if graded.report is None:
        verdict = f"error: {graded.error.splitlines()[0][:300] if graded.error else ''}"
    elif not graded.report.patch_successfully_applied:
        verdict = "unresolved (patch does not apply)"
    else:
        verdict = "resolved" if graded.report.resolved else "unresolved"
    return f"evaluate: [{n}/{total}] {pred.instance_id} {verdict} ({graded.seconds:.0f} s)"


def _summaries(
    done: list[tuple[Prediction, Graded | None]], dataset_ids: list[str], out: Path, run_id: str
) -> dict[str, str]:
    """One summary per model, as SWE-bench writes one per run of a model."""
    written: dict[str, str] = {}
    for model in sorted({p.model_name_or_path for p, _ in done}):
        mine = [(p, g) for p, g in done if p.model_name_or_path == model]
        reports: dict[str, InstanceReport] = {
            p.instance_id: g.report for p, g in mine if g is not None and g.report is not None
        }
        errors = {p.instance_id: g.error for p, g in mine if g is not None and g.report is None}
        found = summary(
            dataset_ids,
            [p.instance_id for p, _ in mine],
            [p.instance_id for p, g in mine if g is None],
            reports,
            errors,
        )
        written[model] = str(write_summary(out, model, run_id, found))
        typer.echo(
            f"evaluate: {model}: {found.resolved_instances} of {found.submitted_instances} "
            f"resolved ({found.unresolved_instances} unresolved, {found.empty_patch_instances} "
            f"empty, {found.error_instances} errors)",
            err=True,
        )
    return written
