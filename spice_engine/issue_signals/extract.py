"""Entry point of evidence extraction: issue title + body (+ checkout) -> IssueSignals."""

from __future__ import annotations

from pathlib import Path

import spice_engine.issue_signals.facts as facts
from spice_engine.issue_signals.candidate_solution import candidate_solution
from spice_engine.issue_signals.fix_location import localize_to_fix
from spice_engine.issue_signals.fix_patch import fix_location, quotes_fix
from spice_engine.issue_signals.localization import localize
from spice_engine.issue_signals.markdown_parts import split_issue
from spice_engine.issue_signals.mentions import find_mentions
from spice_engine.issue_signals.models import IssueSignals
from spice_engine.issue_signals.repo_check import check_mentions
from spice_engine.issue_signals.reproduction import reproduction
from spice_engine.models import CandidateSolution

_BELOW_COMPLETE = (CandidateSolution.NONE, CandidateSolution.PARTIAL)


def extract_signals(
    title: str,
    body: str,
    repo_path: Path | str | None = None,
    fix_patch: str | None = None,
) -> IssueSignals:
    """Deterministic evidence signals of one issue (RUBRICS.md §2).

    With `fix_patch` (a task instance's gold patch), localization answers the human labels'
    question exactly: does the issue point at the code the fix changes? Without it, it says
    whether the issue points at any code at all.
    """
    parts = split_issue(title or "", body or "")
    stack = facts.frames(parts.raw)
    mentions = find_mentions(parts, stack)
    loc = localize(parts, mentions, stack)
    fix = fix_location(fix_patch) if fix_patch else None
    if fix is not None:
        loc.file, loc.function, loc.line = localize_to_fix(fix, parts, mentions, stack)
        loc.relative_to_fix = True
    if repo_path is not None:
        loc.mentions = check_mentions(loc.mentions, Path(repo_path))
    expected = facts.expected_vs_actual(parts)
    repro = reproduction(parts, expected)
    candidate = candidate_solution(parts)
    if fix is not None and quotes_fix(fix, parts.raw) >= 2 and candidate.level in _BELOW_COMPLETE:
        # The issue already holds code the fix adds: it proposes (part of) the actual fix.
        candidate.level = CandidateSolution.COMPLETE
        candidate.evidence.append("the issue quotes code that the fix adds")
    errors = facts.named_errors(parts)
    localized = loc.file != "none" or loc.function != "none"
    hint = candidate.level != CandidateSolution.NONE or repro.level in ("full", "partial")
    return IssueSignals(
        reproduction=repro.level,
        reproduction_evidence=repro.evidence,
        localization=loc,
        candidate_solution=candidate.level,
        candidate_evidence=candidate.evidence,
        expected_vs_actual=expected,
        error_or_traceback=bool(errors) or facts.has_traceback(parts.raw),
        errors=errors[:10],
        external_links=parts.links[:20],
        link_dependent=facts.link_dependent(parts),
        environment=facts.environment(parts),
        quality="high" if localized and hint else "low",
        truncated=parts.truncated,
    )
