"""ChatModel over litellm: any provider string, api_base, timeouts, retries, billed usage."""

from __future__ import annotations

import logging
import os
import time
from typing import Any

import httpx
from pydantic import BaseModel

from spice_engine.errors import InputError, ModelCallError
from spice_engine.llm.config import ModelConfig
from spice_engine.llm.output_format import resolve_mode, response_format
from spice_engine.llm.retry import call_with_retry, is_transient
from spice_engine.models import Usage
from spice_engine.protocols import ChatReply
from spice_engine.redaction import env_secret_values, redacted_excerpt, searched_values

log = logging.getLogger(__name__)


def _quiet_litellm() -> Any:
    # The local price table keeps import and cost lookups off the network.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    litellm.telemetry = False
    litellm.drop_params = True
    return litellm


def _short(exc: BaseException, secrets: tuple[str, ...], limit: int = 300) -> str:
    """Provider messages can embed whole request bodies; keep errors readable and prompt-free.
    A provider may echo the key it was sent: redacted before the cut, which could split it."""
    text = " ".join(str(exc).split())
    return redacted_excerpt(text, head=limit, secrets=secrets, marker="...")


class LiteLLMChat:
    """The production ChatModel."""

    def __init__(self, config: ModelConfig) -> None:
        self.config = config
        self._litellm = _quiet_litellm()
        self.mode = resolve_mode(config)
        self._down: tuple[float, str] | None = None
        """(until when, why): the server did not answer moments ago."""
        self._routable = False

    def check_model(self) -> None:
        """Refuse, in one line and before any vote, a model string litellm cannot route to a
        provider (a typo, a missing `provider/` prefix): every vote would fail the same way."""
        if self._routable:
            return
        try:
            self._litellm.get_llm_provider(model=self.config.model, api_base=self.config.api_base)
        except self._litellm.BadRequestError as exc:
            raise InputError(
                f"unknown model {self.config.model!r}: litellm cannot tell its provider; "
                "write it as provider/name, e.g. openai/gpt-4o-mini or ollama/llama3 "
                "(https://docs.litellm.ai/docs/providers)"
            ) from exc
        self._routable = True

    @property
    def name(self) -> str:
        return self.config.model

    @property
    def supports_n(self) -> bool:
        if self.config.use_n != "auto":
            return self.config.use_n == "always"
        try:
            params = self._litellm.get_supported_openai_params(model=self.config.model) or []
        except Exception:  # noqa: BLE001 - unknown provider: be conservative
            return False
        return "n" in params

    def chat(
        self, messages: list[dict[str, str]], *, n: int, seed: int, schema: type[BaseModel]
    ) -> ChatReply:
        self.check_model()
        kwargs: dict[str, Any] = {
            "model": self.config.model,
            "messages": messages,
            "temperature": self.config.temperature,
            "seed": seed,
            "max_tokens": self.config.max_output_tokens,
            "num_retries": 0,
        }
        if n > 1:
            kwargs["n"] = n
        if self.config.api_base:
            kwargs["api_base"] = self.config.api_base
        if self.config.api_key is not None:
            kwargs["api_key"] = self.config.api_key.get_secret_value()
        fmt = response_format(self.mode, schema, self.config)
        if fmt is not None:
            kwargs["response_format"] = fmt
        response = self._complete(kwargs)
        return ChatReply(
            texts=[(choice.message.content or "") for choice in response.choices],
            cut_off=[choice.finish_reason == "length" for choice in response.choices],
            usage=self._usage(response),
        )

    @property
    def where(self) -> str:
        """The model, and the server asked when it is not the provider's own."""
        base = self.config.api_base
        return f"{self.config.model} at {base}" if base else self.config.model

    def _complete(self, kwargs: dict[str, Any]) -> Any:
        """One request under the deadline (retries included); a server that just failed to
        answer is not asked again until a deadline has passed: each call would wait as long."""
        down = self._down
        if down is not None and time.monotonic() < down[0]:
            raise ModelCallError(f"{down[1]} (not asked again yet)", transient=True)
        started = time.monotonic()

        def attempt() -> Any:
            left = self.config.deadline_s - (time.monotonic() - started)
            if left <= 0:
                raise TimeoutError("deadline passed")
            wait = min(self.config.timeout_s, left)
            connect = min(self.config.connect_timeout_s, wait)
            return self._litellm.completion(**kwargs, timeout=httpx.Timeout(wait, connect=connect))

        try:
            return call_with_retry(
                attempt, self.config.max_attempts, self.config.backoff_s, self.config.deadline_s
            )
        except Exception as exc:
            error = ModelCallError(
                f"{self.where}: {self._describe(exc, time.monotonic() - started)}",
                transient=is_transient(exc),
                retry_singly=isinstance(exc, self._litellm.BadRequestError),
            )
            if self._unreachable(exc):
                self._down = (time.monotonic() + self.config.deadline_s, str(error))
            raise error from exc

    def _unreachable(self, exc: BaseException) -> bool:
        # litellm reports a refused connection as an InternalServerError: the cause says.
        kinds = (
            self._litellm.Timeout,
            self._litellm.APIConnectionError,
            httpx.TransportError,
            TimeoutError,
            ConnectionError,
        )
        seen: set[int] = set()
        at: BaseException | None = exc
        while at is not None and id(at) not in seen:
            if isinstance(at, kinds):
                return True
            seen.add(id(at))
            at = at.__cause__ or at.__context__
        return False

    def _describe(self, exc: BaseException, elapsed_s: float) -> str:
        if isinstance(exc, (self._litellm.Timeout, TimeoutError)):
            return f"no answer within {elapsed_s:.0f} s (deadline {self.config.deadline_s:g} s)"
        if self._unreachable(exc):
            return f"cannot connect ({type(exc).__name__})"
        key = self.config.api_key.get_secret_value() if self.config.api_key else ""
        return f"{type(exc).__name__}: {_short(exc, searched_values([key, *env_secret_values()]))}"

    def _usage(self, response: Any) -> Usage:
        usage = getattr(response, "usage", None)
        prompt = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion = int(getattr(usage, "completion_tokens", 0) or 0)
        try:
            cost = float(self._litellm.completion_cost(completion_response=response))
            known = True
        except Exception:  # noqa: BLE001 - unknown model price: report, do not fail
            cost, known = 0.0, False
        return Usage(input=prompt, output=completion, cost_usd=cost, cost_known=known, requests=1)

    def estimate_cost(self, messages: list[dict[str, str]], n: int, batched: bool) -> float | None:
        try:
            prompt_tokens = self._litellm.token_counter(model=self.config.model, messages=messages)
            prices = self._litellm.get_model_info(self.config.model)
        except Exception:  # noqa: BLE001 - unknown model: no estimate
            return None
        inp = float(prices.get("input_cost_per_token") or 0.0)
        out = float(prices.get("output_cost_per_token") or 0.0)
        billed_inputs = 1 if batched else n
        return prompt_tokens * inp * billed_inputs + self.config.max_output_tokens * out * n
