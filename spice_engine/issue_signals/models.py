"""The result of evidence extraction: deterministic signals of an issue (RUBRICS.md §2)."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field

from spice_engine.models import CandidateSolution

Reproduction = Literal["full", "partial", "prose", "none"]
LocalizationKind = Literal["stacktrace", "keywords", "natural_language", "none"]


class CodeMention(BaseModel):
    """A path or identifier the issue names, and whether a checkout has it."""

    name: str
    kind: Literal["path", "module", "function", "class"]
    exists: bool | None = None
    """None when no checkout was given; otherwise found in the checkout or not."""


class Localization(BaseModel):
    """Does the issue point at the faulty code, and how (per file, function, line)."""

    file: LocalizationKind = "none"
    function: LocalizationKind = "none"
    line: LocalizationKind = "none"
    mentions: list[CodeMention] = Field(default_factory=list)
    line_refs: list[str] = Field(default_factory=list)
    relative_to_fix: bool = False
    """True when judged against a known fix (gold patch): points at the code the fix changes."""


class IssueSignals(BaseModel):
    """Cheap, explainable facts about an issue, with the evidence behind each."""

    reproduction: Reproduction = "none"
    reproduction_evidence: str = ""
    localization: Localization = Field(default_factory=Localization)
    candidate_solution: CandidateSolution = CandidateSolution.NONE
    candidate_evidence: list[str] = Field(default_factory=list)
    """The sentences or blocks that propose a fix."""
    expected_vs_actual: bool = False
    error_or_traceback: bool = False
    errors: list[str] = Field(default_factory=list)
    """Exception names seen in error lines."""
    external_links: list[str] = Field(default_factory=list)
    link_dependent: bool = False
    """The substance seems to be only behind the links."""
    environment: list[str] = Field(default_factory=list)
    quality: Literal["high", "low"] = "low"
    """Clear localization AND (a repair hint OR a reproduction): a routing hint only."""
    truncated: bool = False
    """Only the head of a very long body was analysed."""

    def summary(self) -> str:
        """A few human-readable lines for a prompt or a comment."""
        loc = self.localization
        named = [_quoted(m.name) for m in loc.mentions if _quotable(m.name)][:8]
        missing = [_quoted(m.name) for m in loc.mentions if m.exists is False and _quotable(m.name)]
        missing = missing[:5]
        errors = [_quoted(e) for e in self.errors[:3] if _quotable(e)]
        env = [_quoted(e) for e in self.environment[:4] if _VERSION_TEXT.fullmatch(e)]
        lines = [
            f"- reproduction: {self.reproduction}",
            f"- localization: file {loc.file}, function {loc.function}, line {loc.line}"
            + (f"; names {', '.join(named)}" if named else ""),
            f"- candidate solution: {self.candidate_solution.value}",
            f"- expected vs actual stated: {'yes' if self.expected_vs_actual else 'no'}",
            f"- error message or traceback: {'yes' if self.error_or_traceback else 'no'}"
            + (f" ({', '.join(errors)})" if errors else ""),
            f"- environment/version given: {', '.join(env) or 'no'}",
        ]
        if missing:
            lines.append(f"- not found in the repository: {', '.join(missing)}")
        if self.external_links:
            dep = " (the substance seems to be only behind the link)" if self.link_dependent else ""
            lines.append(f"- external links: {len(self.external_links)}{dep}")
        if self.truncated:
            lines.append("- only the beginning of a very long issue was analysed")
        return "\n".join(lines)


_VERSION_TEXT = re.compile(r"[\w.=<>~ -]{1,40}")


def _quotable(name: str) -> bool:
    """Only short, space-free names leave the issue's text: the summary sits outside <issue>."""
    return 0 < len(name) <= 80 and not any(c.isspace() or c == "`" for c in name)


def _quoted(name: str) -> str:
    return f"`{name}`"
