"""A stand-in delivery handler for queue tests: counts calls in files, can block or fail.

Control files in one directory (from the constructor, or `SPICE_TEST_STANDIN_DIR` when a
worker subprocess builds it through `make_handler`):
- `block`: calls wait until `release` exists (so a test can kill the worker mid-job);
- `fail`: holds N, the first N calls raise;
- `starts` / `effects`: one line per call begun / per side effect completed.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from app.routing import Route
from app.settings import Settings
from app.store.assessments import AssessmentRecord, DimensionVotes
from tests.assessment_samples import issue_assessment

CONTROL_ENV = "SPICE_TEST_STANDIN_DIR"


class StandinOutcome(BaseModel):
    assessments: list[AssessmentRecord]


class StandinFailure(RuntimeError):
    """The failure a test asked for."""


class FileRecordingHandler:
    def __init__(self, control: Path) -> None:
        self.control = control
        control.mkdir(parents=True, exist_ok=True)

    def lines(self, name: str) -> list[str]:
        path = self.control / name
        return path.read_text().splitlines() if path.exists() else []

    def _append(self, name: str, line: str) -> None:
        with (self.control / name).open("a") as file:
            file.write(line + "\n")

    def __call__(self, route: Route, payload: dict[str, Any], delivery_id: str) -> StandinOutcome:
        self._append("starts", delivery_id)
        if (self.control / "block").exists():
            deadline = time.monotonic() + 60
            while not (self.control / "release").exists():
                if time.monotonic() > deadline:
                    raise StandinFailure("never released")
                time.sleep(0.05)
        fail = self.control / "fail"
        if fail.exists() and len(self.lines("starts")) <= int(fail.read_text()):
            raise StandinFailure(f"scripted failure of {delivery_id}")
        self._append("effects", delivery_id)
        repo = payload["repository"]["full_name"]
        number = payload["issue"]["number"]
        record = AssessmentRecord(
            kind="issue",
            repo=repo,
            number=number,
            input_hash=str(payload["issue"].get("body") or "")[:64] or "empty",
            labels=["spice:clarity-1"],
            votes=[DimensionVotes(dimension="clarity", score=1, votes=[1, 1, 2])],
            rationales=["clear enough", "clear enough", "one gap"],
            tokens_in=120,
            tokens_out=30,
            cost_usd=0.0002,
            model="openai/fake",
            prompt_version="issue_clarity/v1",
            result=issue_assessment(repo, number, [1, 1, 2]),
        )
        return StandinOutcome(assessments=[record])


def make_handler(settings: Settings) -> FileRecordingHandler:
    """Handler factory for `spice worker --handler tests.service.standin_handler:make_handler`."""
    return FileRecordingHandler(Path(os.environ[CONTROL_ENV]))
