"""What a repository's config may choose of the operator's models, votes and spend.

A repository owner is not the operator: `.github/spice.yml` picks only among the models the
operator allows (always called through the operator's `api_base`), and its votes and cost
cap can only lower the operator's, never raise them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from app.github.repo_config import RepoConfig
from app.settings import Settings

Pipeline = Literal["issues", "pull_requests"]


@dataclass(frozen=True)
class ModelChoice:
    model: str
    votes: int
    cost_cap_usd: float | None
    allow_unpriced: bool
    warnings: list[str] = field(default_factory=list)
    """Said in the comment: what the repository asked for and did not get."""


def lowest(operator: float | None, repository: float | None) -> float | None:
    """The tighter of two caps; None means no cap."""
    caps = [c for c in (operator, repository) if c is not None]
    return min(caps) if caps else None


def choose(settings: Settings, config: RepoConfig | None, pipeline: Pipeline) -> ModelChoice:
    """The model, votes and cap an item of `pipeline` runs with under `config`."""
    if config is None:
        return ModelChoice(
            settings.model, settings.votes, settings.cost_cap_usd, settings.allow_unpriced
        )
    warnings: list[str] = []
    model = settings.model
    asked = getattr(config.models, pipeline)
    if asked is not None and asked != model:
        if asked in settings.models_allowed():
            model = asked
        else:
            warnings.append(
                f"`models.{pipeline}` asks for a model this App's operator does not allow; "
                f"used `{settings.model}`"
            )
    votes = min(config.votes, settings.votes) if config.votes else settings.votes
    if config.votes and config.votes > votes:
        warnings.append(
            f"`votes: {config.votes}` is more than this App's operator allows; "
            f"{votes} votes were taken"
        )
    cap = lowest(settings.cost_cap_usd, config.cost_cap_usd)
    return ModelChoice(model, votes, cap, settings.allow_unpriced, warnings)
