"""Check runs (GitHub's Checks API) as the App writes and reads them, and the calls that do it
on one repository (mixed into the PyGithub client, which supplies `_call` and `_rest`)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, Literal, TypeVar
from urllib.parse import quote

from pydantic import BaseModel, Field

T = TypeVar("T")
MAX_ANNOTATIONS = 50
"""GitHub takes at most 50 annotations per request (more would need further updates)."""
Conclusion = Literal["success", "failure", "neutral", "skipped"]


class CheckAnnotation(BaseModel):
    """A note at lines of a file of the checked commit."""

    path: str
    start_line: int = Field(ge=1)
    end_line: int = Field(ge=1)
    annotation_level: Literal["notice", "warning", "failure"] = "warning"
    message: str = Field(max_length=64_000)
    title: str | None = Field(default=None, max_length=255)
    raw_details: str | None = Field(default=None, max_length=64_000)


class CheckRunOutput(BaseModel):
    title: str = Field(max_length=255)
    summary: str = Field(max_length=65_535)
    text: str | None = Field(default=None, max_length=65_535)
    annotations: list[CheckAnnotation] = Field(default_factory=list, max_length=MAX_ANNOTATIONS)


class CheckRunWrite(BaseModel):
    """The body of a check run's creation or update (`head_sha` is sent on creation only)."""

    name: str
    head_sha: str
    status: Literal["in_progress", "completed"]
    external_id: str | None = None
    """What the run showed (a hash of its output): an unchanged result is not written again."""
    started_at: datetime | None = None
    completed_at: datetime | None = None
    conclusion: Conclusion | None = None
    output: CheckRunOutput | None = None


class CheckRunData(BaseModel):
    """A check run as GitHub lists it (the fields the App reads)."""

    id: int
    name: str
    status: str
    conclusion: str | None = None
    external_id: str | None = None


class CheckRunCalls:
    """A repository's check runs through the client's one retried call and REST path."""

    def _call(self, what: str, func: Callable[[], T], retried: bool = True) -> T:
        raise NotImplementedError

    def _rest(self, verb: str, tail: str, body: Any = None) -> Any:
        raise NotImplementedError

    def check_runs(self, head_sha: str, name: str) -> list[CheckRunData]:
        """The check runs of `name` on the commit, newest first."""
        tail = f"/commits/{head_sha}/check-runs?check_name={quote(name, safe='')}&filter=latest"
        data = self._call("list check runs", lambda: self._rest("GET", tail))
        runs = [CheckRunData.model_validate(r) for r in (data or {}).get("check_runs") or []]
        return sorted(runs, key=lambda r: -r.id)

    def create_check_run(self, run: CheckRunWrite) -> int:
        # Not retried: a POST that timed out may have landed (the next run finds it).
        body = run.model_dump(exclude_none=True, mode="json")
        made = self._call(
            "create check run", lambda: self._rest("POST", "/check-runs", body), False
        )
        return int(made["id"])

    def update_check_run(self, run_id: int, run: CheckRunWrite) -> None:
        body = run.model_dump(exclude_none=True, exclude={"head_sha"}, mode="json")
        tail = f"/check-runs/{run_id}"
        self._call("update check run", lambda: self._rest("PATCH", tail, body))
