"""Render the PR questions under a hard token cap, trimming by priority and recording each cut."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from pydantic import BaseModel

from spice_engine.dimensions import answer_model, dimension
from spice_engine.models import PromptRef
from spice_engine.pr.repo_context import FileText
from spice_engine.pr.tokens import (
    count_message_tokens,
    count_tokens,
    head_tokens,
    truncate_to_tokens,
)
from spice_engine.prompts import render_messages

_SLACK = 64
_MIN_MAP = 300


@dataclass
class PromptParts:
    """Everything the PR prompts show; the fitter shortens it in place."""

    task: str
    gold_patch: str
    test_patch: str
    judged_against: str
    context_mode: str
    repo_map: str = ""
    files: list[FileText] = field(default_factory=list)
    evidence: str = ""
    survivors: str = ""
    """Mutants of the gold patch the PR's tests accept (spice_engine.strength), as text."""
    trimmed: list[str] = field(default_factory=list)

    def variables(self, schema: type[BaseModel]) -> dict[str, object]:
        return {
            "task": self.task,
            "gold_patch": self.gold_patch,
            "test_patch": self.test_patch,
            "judged_against": self.judged_against,
            "context_mode": self.context_mode,
            "repo_map": self.repo_map,
            "files": [f.model_dump() for f in self.files],
            "evidence": self.evidence,
            "survivors": self.survivors,
            "trimmed": self.trimmed,
            "schema_json": json.dumps(schema.model_json_schema()),
        }


@dataclass
class FittedPrompts:
    messages: dict[str, list[dict[str, str]]]
    refs: dict[str, PromptRef]
    tokens: dict[str, int]


def render(parts: PromptParts, dims: list[str], version: str | None) -> FittedPrompts:
    fitted = FittedPrompts({}, {}, {})
    for dim in dims:
        spec = dimension(dim)
        assert spec.prompt_id is not None, f"{dim} has no prompt of its own"
        ref, messages = render_messages(
            spec.prompt_id, parts.variables(answer_model(spec)), version=version
        )
        fitted.messages[dim], fitted.refs[dim] = messages, ref
        fitted.tokens[dim] = count_message_tokens(messages)
    return fitted


def _cut(parts: PromptParts, over: int) -> bool:
    """Apply the next cut in priority order; False when nothing is left to cut."""
    need = over + _SLACK
    map_tokens = count_tokens(parts.repo_map) if parts.repo_map else 0
    if map_tokens:
        keep = map_tokens - need
        if keep >= _MIN_MAP:
            parts.repo_map = head_tokens(parts.repo_map, keep, "⋮ [map cut to fit the cap]")
            parts.trimmed.append(f"repository map cut from {map_tokens} to ~{keep} tokens")
        else:
            parts.repo_map = ""
            parts.trimmed.append(f"repository map ({map_tokens} tokens) dropped")
        return True
    if parts.files:
        # Files are ordered source first: the last is the least useful (a test file).
        dropped = parts.files.pop()
        parts.trimmed.append(f"text of {dropped.path} ({dropped.tokens} tokens) dropped")
        return True
    if parts.evidence:
        parts.evidence = ""
        parts.trimmed.append("evidence dropped")
        return True
    for name, floor in (("task", 1500), ("gold_patch", 2500), ("test_patch", 2500)):
        if _shorten(parts, name, need, floor):
            return True
    return any(_shorten(parts, n, need, 200) for n in ("test_patch", "gold_patch", "task"))


def _shorten(parts: PromptParts, name: str, need: int, floor: int) -> bool:
    text: str = getattr(parts, name)
    tokens = count_tokens(text)
    if tokens <= floor:
        return False
    keep = max(tokens - need, floor)
    label = name.replace("_", " ")
    setattr(parts, name, truncate_to_tokens(text, keep, f"[... {label} cut to fit the cap ...]"))
    parts.trimmed.append(f"{label} cut from {tokens} to ~{keep} tokens")
    return True


def fit(parts: PromptParts, dims: list[str], cap: int, version: str | None) -> FittedPrompts:
    """Render every dimension's prompt so that none exceeds `cap` input tokens."""
    while True:
        fitted = render(parts, dims, version)
        over = max(fitted.tokens.values()) - cap
        if over <= 0 or not _cut(parts, over):
            return fitted
