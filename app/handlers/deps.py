"""What a handler needs (GitHub sessions, models, settings) and what it reports back."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from app.calibration import Calibration
from app.github.repo_config import ConfigCache
from app.github.retries import RetryPolicy, policy_from_settings
from app.github.sessions import SessionFactory, session_factory
from app.redaction import secret_values
from app.settings import Settings
from spice_engine.pr.checkout import CheckoutConfig, CheckoutManager
from spice_engine.protocols import ChatModel
from spice_engine.results import AnyAssessment

if TYPE_CHECKING:
    from app.harvest.fanout import ContextFactory

ChatFactory = Callable[[str], ChatModel]
AssessedBefore = Callable[[str, str, int, str], bool]
"""(kind `issue` or `pr`, repo, number, input key) -> whether that input was assessed."""


@dataclass
class HandlerDeps:
    """Collaborators of the handlers; production builds them with `default_deps`."""

    settings: Settings
    github: SessionFactory
    """Installation id (None in Action mode) -> an authenticated session."""
    chat: ChatFactory
    """litellm model string -> a chat model."""
    checkout_dir: Path | None = None
    """A checkout of the repository at the PR base, when the caller has one (Action mode)."""
    checkouts: CheckoutManager | None = None
    """Our own clones, one per repository, checked out at each PR's base (App mode)."""
    assessed_before: AssessedBefore | None = None
    """The App's store of results: unchanged input is not voted again even when no comment
    holds the state (comment mode `never`, a non-actionable result, dry-run)."""
    dry_run: bool = False
    """Compute and report, write nothing (ORed with the repository's `dry_run`)."""
    record_human_label: Callable[[str, int, str, int | None, str], bool] | None = None
    """Keep a person's final label of one dimension (repo, number, dimension, score, login);
    False when the item was never assessed. None in Action mode (no store)."""
    calibration_for: Callable[[str], Calibration | None] | None = None
    """Repository -> its clarity calibration from maintainers' labels, if earned."""
    on_instance_saved: Callable[[str], object] | None = None
    """A merged PR's task instance was stored: the worker enqueues its validation."""
    harvest_contexts: ContextFactory | None = None
    """Merged PRs' harvest context per installation; None: built from the settings (once)."""

    def __post_init__(self) -> None:
        if self.harvest_contexts is None:
            from app.harvest.fanout import settings_contexts

            self.harvest_contexts = settings_contexts(self.settings)

    config_cache: ConfigCache = field(default_factory=ConfigCache)
    retry_policy: RetryPolicy = field(default_factory=RetryPolicy)

    def secrets(self) -> tuple[str, ...]:
        """Values that must never reach a comment (see `app.redaction`)."""
        return secret_values(self.settings)


def default_deps(settings: Settings, dry_run: bool = False) -> HandlerDeps:
    """Production wiring: PyGithub sessions and litellm models from the settings."""
    from spice_engine.llm.litellm_chat import LiteLLMChat

    checkouts = (
        CheckoutManager(
            CheckoutConfig(
                cache_dir=settings.data_dir / "checkouts", disk_budget_mb=settings.checkout_disk_mb
            )
        )
        if settings.repo_context
        else None
    )
    policy = policy_from_settings(settings)
    return HandlerDeps(
        settings=settings,
        github=session_factory(settings, policy),
        retry_policy=policy,
        chat=lambda model: LiteLLMChat(settings.model_config_for(model)),
        checkouts=checkouts,
        dry_run=dry_run,
    )


class HandlerOutcome(BaseModel):
    """What one delivery did (or, in dry-run, would do)."""

    event: str
    action: str | None = None
    delivery_id: str
    repo: str | None = None
    number: int | None = None
    pipeline: str | None = None
    dry_run: bool = False
    labels_added: list[str] = Field(default_factory=list)
    labels_removed: list[str] = Field(default_factory=list)
    labels_created: list[str] = Field(default_factory=list)
    labels_wanted: list[str] = Field(default_factory=list)
    """Our labels the results call for (added now or already there)."""
    labels_left: list[str] = Field(default_factory=list)
    """Ours by name, but a person put them on or took them off: not touched."""
    comment_id: int | None = None
    comment_action: str | None = None
    """`created`, `edited`, `unchanged`, `planned` (dry-run) or None (no comment)."""
    comment_body: str | None = None
    """The planned comment in dry-run mode."""
    reaction: str | None = None
    assessments: list[AnyAssessment] = Field(default_factory=list)
    """The results, as the engine returned them."""
    skipped: str | None = None
    """Why nothing was assessed (ignored event or author, unchanged input, refused command)."""
    warnings: list[str] = Field(default_factory=list)
    """Degraded but done (e.g. a linked issue that does not exist)."""
    config_error: str | None = None
    errors: list[str] = Field(default_factory=list)
    retryable: bool = False
    """True when the errors were transient (GitHub or the model down): try the job again."""
    retry_after_s: float | None = None
    """GitHub asked for this long a wait (a rate limit): the job is due again after it."""

    @property
    def ok(self) -> bool:
        return not self.errors and self.config_error is None
