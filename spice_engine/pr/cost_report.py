"""Dry-run statistics: prompt tokens per dimension and what k votes would cost per 1,000 items."""

from __future__ import annotations

import os
import statistics
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from spice_engine.dimensions import REGISTRY
from spice_engine.issue_clarity import clarity_messages
from spice_engine.models import Issue
from spice_engine.pr.tokens import count_message_tokens

if TYPE_CHECKING:
    from spice_engine.pr.models import PROptions
    from spice_engine.pr.repo_context import RepoContextBuilder

DIMENSIONS = tuple(d.key for d in REGISTRY if d.prompt_id is not None)
"""The dimensions voted on a prompt of their own: each costs k answers."""


class PromptSample(BaseModel):
    """Input tokens of one item's prompts, and the shared-prefix tokens of the PR questions."""

    tokens: dict[str, int]
    shared_prefix: int = 0


class TokenStats(BaseModel):
    input_tokens_median: float
    input_tokens_p90: float
    count: int


class CostAssumptions(BaseModel):
    """What the estimate assumes, printed with it."""

    votes: int = 3
    output_tokens_per_vote: dict[str, int] = Field(
        default_factory=lambda: {"clarity": 250, "tests": 300, "difficulty": 150}
    )
    """Typical answer sizes (rationale, questions or counter-example)."""


def clarity_tokens(issue: Issue) -> int:
    """Input tokens of the issue-clarity prompt exactly as the issue pipeline renders it."""
    return count_message_tokens(clarity_messages(issue))


def p90(values: list[int]) -> float:
    if len(values) == 1:
        return float(values[0])
    return float(statistics.quantiles(values, n=10, method="inclusive")[-1])


def token_stats(samples: list[PromptSample]) -> dict[str, TokenStats]:
    out = {}
    for dim in DIMENSIONS:
        values = [s.tokens[dim] for s in samples if dim in s.tokens]
        if values:
            out[dim] = TokenStats(
                input_tokens_median=float(statistics.median(values)),
                input_tokens_p90=p90(values),
                count=len(values),
            )
    return out


def _prices(model: str) -> tuple[dict[str, Any], bool]:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    info = litellm.get_model_info(model)
    params = litellm.get_supported_openai_params(model=model) or []
    return dict(info), "n" in params


def cost_per_1000(
    model: str, samples: list[PromptSample], assume: CostAssumptions, prompt_cache: bool = False
) -> float | None:
    """Mean billed cost of one item times 1,000; None when the model has no price in litellm.

    With `n` support one request returns all k votes, so its input is billed once; without it
    every vote is a request. `prompt_cache` bills the second PR question's shared prefix at the
    provider's cache-read price (when litellm lists one and the prefix is long enough to cache).
    """
    try:
        info, batched = _prices(model)
    except Exception:  # noqa: BLE001 - litellm raises bare Exception for unknown models
        return None
    p_in = float(info.get("input_cost_per_token") or 0.0)
    p_out = float(info.get("output_cost_per_token") or 0.0)
    p_cached = float(info.get("cache_read_input_token_cost") or p_in)
    if not samples or (p_in == 0 and p_out == 0):
        return None
    billed_inputs = 1 if batched else assume.votes
    total = 0.0
    for s in samples:
        for dim, tokens in s.tokens.items():
            cost_in = tokens * p_in
            if (
                prompt_cache
                and dim == "difficulty"
                and "tests" in s.tokens
                and s.shared_prefix >= 1024
            ):
                cost_in = s.shared_prefix * p_cached + (tokens - s.shared_prefix) * p_in
            out = assume.output_tokens_per_vote.get(dim, 300) * assume.votes * p_out
            total += cost_in * billed_inputs + out
    return round(total / len(samples) * 1000, 4)


SPICE_PUBLISHED_COST = 5.10
"""SPICE's published labeling cost per 1,000 instances, for comparison."""


def prompt_sample(
    row: dict[str, Any], path: Path | None, opts: PROptions, builder: RepoContextBuilder
) -> PromptSample:
    """What labelling the instance would send: tokens per dimension and the shared prefix."""
    from spice_engine.pr.pipeline import pr_from_instance, prepare_pr

    pr = pr_from_instance(row)
    prepared = prepare_pr(pr, opts, repo_path=path, builder=builder)
    tokens = dict(prepared.prompts.tokens)
    tokens["clarity"] = clarity_tokens(pr.issues[0])
    shared = count_message_tokens(next(iter(prepared.prompts.messages.values()))[:2])
    return PromptSample(tokens=tokens, shared_prefix=shared)


def build_report(
    samples: list[PromptSample], models: list[str], modes: dict[str, int]
) -> dict[str, Any]:
    """The dry-run report: token percentiles per dimension and cost per 1,000 instances."""
    assume = CostAssumptions()
    stats = token_stats(samples)
    report: dict[str, Any] = {d: s.model_dump() for d, s in stats.items()}
    report["cost_per_1000_usd"] = {m: cost_per_1000(m, samples, assume) for m in models}
    report["cost_per_1000_usd_with_prompt_cache"] = {
        m: cost_per_1000(m, samples, assume, prompt_cache=True) for m in models
    }
    report["spice_published_cost_per_1000_usd"] = SPICE_PUBLISHED_COST
    report["instances"] = len(samples)
    report["context_modes"] = modes
    report["assumptions"] = assume.model_dump() | {
        "billing": "input billed once per n=k request where the provider supports n; "
        "else once per vote"
    }
    return report
