"""Our labels for a harvested instance: issue clarity, test adequacy and difficulty, with votes."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from app.github.repo_config import RepoConfig
from app.model_policy import choose
from app.settings import Settings
from spice_engine.dimensions import REGISTRY
from spice_engine.errors import SpiceError
from spice_engine.issue_clarity import IssueOptions, assess_issue
from spice_engine.llm.litellm_chat import LiteLLMChat
from spice_engine.models import Assessment, DimensionResult, Issue, Usage
from spice_engine.pr.models import PROptions
from spice_engine.pr.pipeline import assess_instance
from spice_engine.protocols import ChatModel

log = logging.getLogger(__name__)


class DimensionLabel(BaseModel):
    """One dimension, in a fixed shape so that every exported row has the same columns."""

    score: int | None = None
    agreement: str | None = None
    """`unanimous`, `majority` or `split`."""
    confidence: float | None = None
    """Share of valid votes equal to the final score."""
    controversial: bool = False
    votes: list[int] = Field(default_factory=list)
    rationales: list[str] = Field(default_factory=list)


class SpiceLabels(BaseModel):
    """The `spice` block of an exported instance: a `DimensionLabel` per exported registry
    dimension (always every one of them, labelled or not), then these fields."""

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, DimensionLabel] = Field(init=False)

    labelled: bool = False
    linked_issues: list[int] = Field(default_factory=list)
    model: str = ""
    prompt_versions: list[str] = Field(default_factory=list)
    engine_version: str = ""
    cost_usd: float = 0.0
    cost_known: bool = True
    tokens_in: int = 0
    tokens_out: int = 0
    errors: list[str] = Field(default_factory=list)
    validation: dict[str, Any] | None = None
    """`spice validate`'s record (status, Python, durations, flaky tests, recipe); None: not run."""
    test_strength: dict[str, Any] | None = None
    """`spice test-strength`'s record (mutants tried / killed, score, untested parts, survivors
    as diffs, time spent); None: not measured."""

    @model_validator(mode="before")
    @classmethod
    def _every_dimension(cls, data: object) -> object:
        if isinstance(data, dict):
            known = set(cls.model_fields)
            data = {k: v for k, v in data.items() if k in known or k in EXPORTED}
            data = {key: {} for key in EXPORTED} | data
        return data

    def dimension(self, key: str) -> DimensionLabel:
        return self.dimensions()[key]

    def dimensions(self) -> dict[str, DimensionLabel]:
        """Every exported dimension's label, by key, in registry order."""
        extra = self.__pydantic_extra__ or {}
        return {key: extra[key] for key in EXPORTED}

    def set_dimension(self, key: str, label: DimensionLabel) -> None:
        if key in EXPORTED:
            setattr(self, key, label)

    def set_results(self, a: Assessment) -> None:
        for key, result in a.results().items():
            self.set_dimension(key, dimension_label(result))


EXPORTED = tuple(d.key for d in REGISTRY if d.exported)
"""The dimensions of the `spice` block, in registry order."""

Labeller = Callable[[dict[str, object], list[int]], SpiceLabels]


def dimension_label(result: DimensionResult | None) -> DimensionLabel:
    if result is None:
        return DimensionLabel()
    scores = [v.score for v in result.votes]
    agree = sum(1 for s in scores if s == result.score)
    return DimensionLabel(
        score=result.score,
        agreement=result.agreement.value if result.agreement else None,
        confidence=round(agree / len(scores), 4) if scores else None,
        controversial=result.controversial,
        votes=scores,
        rationales=[v.rationale for v in result.votes],
    )


def label_instance(
    instance: dict[str, object],
    issues: list[int],
    model: ChatModel,
    votes: int = 3,
    cost_cap_usd: float | None = None,
    issue_model: ChatModel | None = None,
    allow_unpriced: bool = False,
) -> SpiceLabels:
    """Run both pipelines; a pipeline that fails leaves its dimensions empty, with the error.

    `issue_model` labels clarity when the repository picks another model for issues; the cap
    holds for each pipeline's votes.
    """
    statement = str(instance.get("problem_statement") or "")
    title, _, body = statement.partition("\n")
    labels = SpiceLabels(linked_issues=issues, model=model.name)
    try:
        issue = assess_issue(
            Issue(title=title, body=body, repo=str(instance.get("repo") or "")),
            issue_model or model,
            IssueOptions(votes=votes, cost_cap_usd=cost_cap_usd, allow_unpriced=allow_unpriced),
        )
        labels.set_results(issue)
        labels.prompt_versions.append(f"{issue.prompt.id}@{issue.prompt.version}")
        labels.engine_version = issue.engine_version
        _add_usage(labels, issue.usage)
    except SpiceError as exc:
        labels.errors.append(f"issue pipeline: {exc}")
    try:
        pr = assess_instance(
            dict(instance),
            model,
            PROptions(votes=votes, cost_cap_usd=cost_cap_usd, allow_unpriced=allow_unpriced),
        )
        labels.set_results(pr)
        labels.prompt_versions += [f"{p.id}@{p.version}" for p in pr.prompts]
        labels.engine_version = pr.engine_version
        _add_usage(labels, pr.usage)
    except SpiceError as exc:
        labels.errors.append(f"PR pipeline: {exc}")
    labels.labelled = not labels.errors
    if labels.errors:
        log.warning("labelling %s incomplete: %s", instance.get("instance_id"), labels.errors)
    return labels


def _add_usage(labels: SpiceLabels, usage: Usage) -> None:
    labels.cost_usd = round(labels.cost_usd + usage.cost_usd, 8)
    labels.cost_known = labels.cost_known and usage.cost_known
    labels.tokens_in += usage.input
    labels.tokens_out += usage.output


def make_labeller(
    settings: Settings, model: ChatModel | None = None, config: RepoConfig | None = None
) -> Labeller:
    """A labeller on the configured model (one client shared by every task of the process);
    with a repository's config, within what the operator allows (`model_policy`)."""
    pr_choice = choose(settings, config, "pull_requests")
    issue_choice = choose(settings, config, "issues")
    chat = model or LiteLLMChat(settings.model_config_for(pr_choice.model))
    issue_chat: ChatModel | None = None
    if model is None and issue_choice.model != pr_choice.model:
        issue_chat = LiteLLMChat(settings.model_config_for(issue_choice.model))
    votes, cap = pr_choice.votes, pr_choice.cost_cap_usd

    def label(instance: dict[str, object], issues: list[int]) -> SpiceLabels:
        return label_instance(
            instance, issues, chat, votes, cap, issue_chat, pr_choice.allow_unpriced
        )

    return label
