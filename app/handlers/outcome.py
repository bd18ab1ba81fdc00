"""What a handler raises (`Skipped`, `Failed`) or returns (`Done`), and what the handling of
one delivery comes to (`HandlerOutcome`), built once by app.handlers.dispatch."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from spice_engine.results import AnyAssessment


class Skipped(Exception):
    """Nothing to do for this delivery (an ignored author, unchanged input, a refused
    command): not a failure."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Failed(Exception):
    """The delivery could not be handled; `retryable` when a later run may succeed,
    `retry_after_s` when GitHub named the wait (a rate limit)."""

    def __init__(
        self, message: str, retryable: bool = False, retry_after_s: float | None = None
    ) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.retry_after_s = retry_after_s


class LabelChange(BaseModel):
    model_config = ConfigDict(frozen=True)

    added: list[str] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)
    created: list[str] = Field(default_factory=list)
    wanted: list[str] = Field(default_factory=list)
    """Our labels the results call for (added now or already there)."""
    left: list[str] = Field(default_factory=list)
    """Ours by name, but a person put them on or took them off: not touched."""


class CommentChange(BaseModel):
    model_config = ConfigDict(frozen=True)

    action: str
    """`created`, `edited`, `unchanged` or `planned` (dry-run)."""
    id: int | None = None
    body: str | None = None
    """The planned comment in dry-run mode."""


class Done(BaseModel):
    """What a handler did (or, in dry-run, would do) on the item it worked on."""

    model_config = ConfigDict(frozen=True)

    pipeline: str
    repo: str | None = None
    """Where it worked: the route's repository, or the one an issue was transferred to."""
    number: int | None = None
    dry_run: bool = False
    labels: LabelChange | None = None
    comment: CommentChange | None = None
    reaction: str | None = None
    assessments: list[AnyAssessment] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    """Degraded but done (e.g. a linked issue that does not exist)."""


class Failure(BaseModel):
    model_config = ConfigDict(frozen=True)

    message: str
    retryable: bool = False
    """True when trying again may help (GitHub or the model down)."""
    retry_after_s: float | None = None


class Delivered(BaseModel):
    """The delivery handled, as it was routed."""

    model_config = ConfigDict(frozen=True)

    event: str
    action: str | None = None
    delivery_id: str
    repo: str | None = None
    number: int | None = None


class HandlerOutcome(BaseModel):
    """One delivery's handling: done, skipped or failed."""

    model_config = ConfigDict(frozen=True)

    delivery: Delivered
    dry_run: bool = False
    done: Done | None = None
    skipped: str | None = None
    failure: Failure | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None
