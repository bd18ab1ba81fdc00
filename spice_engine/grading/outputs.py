"""Where grading writes, laid out as SWE-bench's harness lays out a run: a folder per model and
instance holding `report.json`, `test_output.txt`, `patch.diff` and `run_instance.log`, and the
run's summary `<model>.<run_id>.json` beside the model folders."""

from __future__ import annotations

import json
import re
from pathlib import Path

from spice_engine.grading.grade import Graded
from spice_engine.grading.reports import RunSummary
from spice_engine.runs.harness_fields import END, START


def model_folder(model: str) -> str:
    return model.replace("/", "__")


def instance_dir(out: Path, model: str, instance_id: str) -> Path:
    # An id names a folder: nothing in it may climb out of the run's.
    return out / model_folder(model) / re.sub(r"[^A-Za-z0-9_.-]+", "_", instance_id)


def harness_output(log: str) -> str:
    """The run's output between the harness's markers, as its container prints them (so
    SWE-bench's `get_logs_eval` reads our logs as it reads its own)."""
    return f"+ : '{START}'\n{log}\n+ : '{END}'\n"


def write_instance(folder: Path, instance_id: str, patch: str | None, graded: Graded) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "patch.diff").write_text(patch or "", encoding="utf-8")
    notes = [f"seconds: {graded.seconds}"]
    if graded.error:
        notes.append(f"error: {graded.error}")
    if graded.detail:
        notes.append(f"patch not applied: {graded.detail}")
    (folder / "run_instance.log").write_text("\n".join(notes) + "\n", encoding="utf-8")
    if graded.ran or graded.log:
        (folder / "test_output.txt").write_text(harness_output(graded.log), encoding="utf-8")
    if graded.report is not None:
        report = {instance_id: graded.report.model_dump(by_alias=True, exclude_none=True)}
        (folder / "report.json").write_text(json.dumps(report, indent=4), encoding="utf-8")


def write_summary(out: Path, model: str, run_id: str, summary: RunSummary) -> Path:
    path = out / f"{model_folder(model)}.{run_id}.json"
    out.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(summary.model_dump(), indent=4) + "\n", encoding="utf-8")
    return path
