"""What a handler needs (GitHub sessions, models, settings) and what it reports back."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from app.calibration import Calibration
from app.github.repo_config import ConfigCache
from app.github.retries import RetryPolicy, policy_from_settings
from app.github.sessions import SessionFactory, session_factory
from app.redaction import secret_values
from app.settings import Settings
from spice_engine.langs.executor import Executor
from spice_engine.pr.checkout import CheckoutConfig, CheckoutManager
from spice_engine.protocols import ChatModel

if TYPE_CHECKING:
    from app.harvest.fanout import ContextFactory
    from app.shown_survivors import SurvivorFeedback

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
    survivor_feedback: SurvivorFeedback | None = None
    """Shown survivors and maintainers' "not useful" answers (None in Action mode: no store,
    nothing suppressed)."""

    def __post_init__(self) -> None:
        if self.harvest_contexts is None:
            from app.harvest.fanout import settings_contexts

            self.harvest_contexts = settings_contexts(self.settings)

    config_cache: ConfigCache = field(default_factory=ConfigCache)
    retry_policy: RetryPolicy = field(default_factory=RetryPolicy)

    def secrets(self) -> tuple[str, ...]:
        """Values that must never reach a comment (see `app.redaction`)."""
        return secret_values(self.settings)

    @cached_property
    def executor(self) -> Executor:
        """Where pull requests' tests run, in every language: the sandboxed executor, built
        once for the process that built these deps (not once per job), on first use."""
        from app.executors import executor_for

        return executor_for(self.settings)


def default_deps(
    settings: Settings,
    dry_run: bool = False,
    checkout_dir: Path | None = None,
    clones: bool = True,
) -> HandlerDeps:
    """Production wiring: PyGithub sessions and litellm models from the settings. The
    Action passes its workflow's checkout (if any) and `clones=False`: a runner cloning on
    its own would surprise its owner."""
    from spice_engine.llm.litellm_chat import LiteLLMChat

    checkouts = (
        CheckoutManager(
            CheckoutConfig(
                cache_dir=settings.data_dir / "checkouts", disk_budget_mb=settings.checkout_disk_mb
            )
        )
        if settings.repo_context and clones
        else None
    )
    policy = policy_from_settings(settings)
    return HandlerDeps(
        settings=settings,
        github=session_factory(settings, policy),
        retry_policy=policy,
        chat=lambda model: LiteLLMChat(settings.model_config_for(model)),
        checkouts=checkouts,
        checkout_dir=checkout_dir,
        dry_run=dry_run,
    )
