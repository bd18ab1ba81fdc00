"""`spice worker --handler` factory for tests: the production handler, fast GitHub pacing."""

from __future__ import annotations

from app.github.client import session_factory
from app.handlers.deps import HandlerDeps
from app.queue.handler import DeliveryHandler, handler_for, store_lookup
from app.settings import Settings
from spice_engine.llm.litellm_chat import LiteLLMChat
from tests.fakes.github_fixtures import FAST_RETRIES


def make_handler(settings: Settings) -> DeliveryHandler:
    deps = HandlerDeps(
        settings=settings,
        github=session_factory(settings, FAST_RETRIES),
        chat=lambda model: LiteLLMChat(settings.model_config_for(model)),
        retry_policy=FAST_RETRIES,
        assessed_before=store_lookup(settings),
    )
    return handler_for(deps)
