"""Collect k validated votes: one `n=k` request where supported, a format retry per bad answer."""

from __future__ import annotations

import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from pydantic import BaseModel

from spice_engine.errors import CostCapExceeded, FormatError, ModelCallError
from spice_engine.llm.output_format import parse_answer
from spice_engine.models import Usage
from spice_engine.prompts import render_messages
from spice_engine.protocols import ChatModel

T = TypeVar("T", bound=BaseModel)
log = logging.getLogger(__name__)


@dataclass
class VoteBatch(Generic[T]):
    """Valid answers in vote order, why the others were dropped, and what it all cost."""

    answers: list[T]
    errors: list[str]
    usage: Usage = field(default_factory=Usage)
    capped: bool = False
    """The item's cost cap stopped at least one vote (another run would stop there too)."""


@dataclass
class _Slot(Generic[T]):
    answer: T | None = None
    error: str | None = None
    capped: bool = False
    usage: Usage = field(default_factory=Usage)


class CostBudget:
    """Running spend of one item against its cap, shared by all of the item's dimensions.

    A model whose price is unknown cannot be held to a cap by estimates: unless
    `allow_unpriced`, it gets one request per item and is stopped at the next.
    """

    def __init__(self, model: ChatModel, cap: float | None, allow_unpriced: bool = False) -> None:
        self.model, self.cap, self.spent = model, cap, 0.0
        self.allow_unpriced = allow_unpriced
        self.unpriced_requests = 0
        self._lock = threading.Lock()

    def check(self, messages: list[dict[str, str]], n: int, batched: bool) -> None:
        if self.cap is None:
            return
        estimate = self.model.estimate_cost(messages, n, batched)
        with self._lock:
            if estimate is None:
                if self.allow_unpriced:
                    return
                if self.unpriced_requests >= 1:
                    raise CostCapExceeded(
                        f"cost cap ${self.cap:.4f} set and the price of {self.model.name} is "
                        "unknown: stopped after its first request (SPICE_ALLOW_UNPRICED=true "
                        "lets it go on)"
                    )
                self.unpriced_requests += 1
                return
            if self.spent + estimate > self.cap:
                raise CostCapExceeded(
                    f"cost cap ${self.cap:.4f} reached (spent ${self.spent:.4f}, "
                    f"next request ~${estimate:.4f})"
                )

    def add(self, usage: Usage) -> None:
        with self._lock:
            self.spent += usage.cost_usd


def _feedback_messages(
    messages: list[dict[str, str]], bad_text: str, error: str
) -> list[dict[str, str]]:
    _, feedback = render_messages("format_retry", {"error": error})
    return [*messages, {"role": "assistant", "content": bad_text[:4000]}, *feedback]


def _parse(choice: tuple[str, bool], schema: type[T]) -> T:
    """`parse_answer`, saying so when the answer stopped at the output-token limit."""
    text, cut_off = choice
    try:
        return parse_answer(text, schema)
    except FormatError as exc:
        if cut_off:
            # "no JSON object" hides the cause: the model ran out of tokens mid-answer.
            raise FormatError(
                f"the answer stopped at the output-token limit before it was complete ({exc})"
            ) from exc
        raise


def _settle(
    model: ChatModel,
    messages: list[dict[str, str]],
    schema: type[T],
    seed: int,
    choice: tuple[str, bool] | None,
    budget: CostBudget,
) -> _Slot[T]:
    """Turn one vote slot into a valid answer or a reason, with at most one format retry."""
    slot: _Slot[T] = _Slot()
    try:
        if choice is None:
            budget.check(messages, 1, batched=False)
            reply = model.chat(messages, n=1, seed=seed, schema=schema)
            slot.usage += reply.usage
            budget.add(reply.usage)
            choice = reply.choice(0)
        try:
            slot.answer = _parse(choice, schema)
            return slot
        except FormatError as first:
            retry_messages = _feedback_messages(messages, choice[0], str(first))
            budget.check(retry_messages, 1, batched=False)
            reply = model.chat(retry_messages, n=1, seed=seed, schema=schema)
            slot.usage += reply.usage
            budget.add(reply.usage)
            slot.answer = _parse(reply.choice(0), schema)
    except (FormatError, ModelCallError, CostCapExceeded) as exc:
        slot.error = f"vote (seed {seed}): {exc}"
        slot.capped = isinstance(exc, CostCapExceeded)
    return slot


def collect_votes(
    model: ChatModel,
    messages: list[dict[str, str]],
    schema: type[T],
    k: int,
    seed: int = 0,
    cost_cap_usd: float | None = None,
    budget: CostBudget | None = None,
    allow_unpriced: bool = False,
) -> VoteBatch[T]:
    """k independent answers to one prompt, validated against `schema`.

    `budget`, when given, is the item's (spent across several calls); else one of
    `cost_cap_usd` for this call alone.
    """
    budget = budget or CostBudget(model, cost_cap_usd, allow_unpriced)
    usage = Usage()
    choices: list[tuple[str, bool] | None] = []
    errors: list[str] = []
    if k > 1 and model.supports_n:
        try:
            budget.check(messages, k, batched=True)
            reply = model.chat(messages, n=k, seed=seed, schema=schema)
            usage += reply.usage
            budget.add(reply.usage)
            choices = [reply.choice(i) for i in range(min(k, len(reply.texts)))]
        except CostCapExceeded as exc:
            return VoteBatch(answers=[], errors=[str(exc)], usage=usage, capped=True)
        except ModelCallError as exc:
            if not exc.retry_singly:
                # Down, too slow or unauthorised: k more requests would only repeat that.
                return VoteBatch(answers=[], errors=[f"batch of {k}: {exc}"], usage=usage)
            log.info("n=%d request refused (%s); falling back to single requests", k, exc)
    # Providers without `n` (or that return fewer choices) get the missing votes one by one.
    choices += [None] * (k - len(choices))
    with ThreadPoolExecutor(max_workers=k) as pool:
        slots = list(
            pool.map(
                lambda it: _settle(model, messages, schema, seed + it[0], it[1], budget),
                enumerate(choices),
            )
        )
    answers = [s.answer for s in slots if s.answer is not None]
    for s in slots:
        usage += s.usage
        if s.error:
            errors.append(s.error)
    capped = any(s.capped for s in slots)
    return VoteBatch(answers=answers, errors=errors, usage=usage, capped=capped)
