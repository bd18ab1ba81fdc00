"""`spice worker --handler` factory for tests: the production handler, fast GitHub pacing."""

from __future__ import annotations

from collections.abc import Callable

from app.github.retries import policy_from_settings
from app.github.sessions import session_factory as github_sessions
from app.handlers.delivery_handler import (
    calibration_lookup,
    handler_for,
    human_label_recorder,
    store_lookup,
)
from app.handlers.deps import HandlerDeps
from app.harvest.validation_task import register_validation_task
from app.queue.factory import make_huey
from app.queue.handler import DeliveryHandler
from app.settings import Settings
from app.store.engine import database_url, make_engine, session_factory
from app.store.survivor_feedback import StoredSurvivorFeedback
from spice_engine.llm.litellm_chat import LiteLLMChat
from tests.fakes.github_fixtures import FAST_RETRIES


def make_handler(
    settings: Settings, on_instance_saved: Callable[[str], object] | None = None
) -> DeliveryHandler:
    # The waits GitHub asks for come from the settings (tests make the cap small); only the
    # backoff between 5xx retries and PyGithub's pacing are cut.
    policy = policy_from_settings(settings).model_copy(
        update={
            "attempts": FAST_RETRIES.attempts,
            "backoff_s": FAST_RETRIES.backoff_s,
            "seconds_between_requests": 0,
            "seconds_between_writes": 0,
        }
    )
    sessions = session_factory(make_engine(database_url(settings)))
    deps = HandlerDeps(
        settings=settings,
        github=github_sessions(settings, policy),
        chat=lambda model: LiteLLMChat(settings.model_config_for(model)),
        retry_policy=policy,
        assessed_before=store_lookup(sessions),
        record_human_label=human_label_recorder(sessions),
        calibration_for=calibration_lookup(settings, sessions),
        on_instance_saved=on_instance_saved,
        survivor_feedback=StoredSurvivorFeedback(sessions),
    )
    return handler_for(deps)


def make_validating_handler(settings: Settings) -> DeliveryHandler:
    """`make_handler` whose harvested instances are validated by the queue's task, as the
    production worker wires it (app.worker_process)."""
    enqueue = register_validation_task(make_huey(settings), settings)
    return make_handler(settings, on_instance_saved=enqueue)
