"""Candidate-solution signal: a patch, fix steps in prose, or nothing."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from spice_engine.issue_signals.markdown_parts import CodeBlock, IssueParts
from spice_engine.models import CandidateSolution

_DIFF_HEADER = re.compile(r"^(?:diff --git |--- a?/?\S|\+\+\+ b?/?\S|@@ -\d)", re.M)
_DIFF_LINE = re.compile(r"^[+-](?![+-]{2})\s*\S", re.M)

# How people propose a change: modal + change verb, "the fix is", "I suggest", "replace X with Y".
_FIX_PHRASES = [
    r"\b(?:fix|solution|workaround|remedy|patch)\b[^.?!\n]{0,30}\b(?:is|would be|could be|might be|seems to be|was)\b",
    r"\b(?:can|could|would|might|may) (?:easily |simply |probably )?be (?:fixed|solved|resolved|addressed|avoided|done)\b",
    r"\b(?:i|we) (?:would )?(?:suggest|propose|recommend)\b",
    r"\b(?:proposed?|suggested|possible|potential|simple|easy|quick) (?:fix|solution|change|patch|approach)\b",
    r"\bfix(?:es|ed)? (?:it|this|the (?:problem|issue|bug))\b",
    r"\b(?:we|you|one|it|this|that) (?:should|could|can|would need to|need to|must|might) (?:just |simply |instead |also |probably )?"
    r"(?:use|call|check|pass|add|remove|replace|change|move|catch|wrap|convert|compare|test|return|raise|set|skip|handle|order|include)\b",
    r"\b(?:should|could|needs? to) be (?:changed|replaced|modified|updated|moved|removed|added|set|passed|converted|wrapped|computed|called|checked|ordered)\b",
    r"\b(?:changing|replacing|removing|adding|moving|using|wrapping|passing|setting) [^.?!\n]{1,60}\b(?:fixes|solves|resolves|works|would work|avoids)\b",
    r"\b(?:change|replace|changing|replacing) [^.?!\n]{1,80}\b(?:to|with|by)\b",
    r"\b(?:the|a|one) (?:way|option|approach) (?:to fix|would be|is to|could be)\b",
    r"\bwhat about\b|\bhow about\b|\binstead of\b[^.?!\n]{1,80}\b(?:use|call|do|return)\b",
]
_FIX = re.compile("|".join(f"(?:{p})" for p in _FIX_PHRASES), re.I)
# A fix sentence that introduces code ("should be:", "change it to:") makes the steps complete.
_INTRODUCES_CODE = re.compile(r"(?:\bto|\bbe|\bwith|\bthis|\bfollowing|\blike)\s*:?\s*$", re.I)


@dataclass
class CandidateResult:
    level: CandidateSolution
    evidence: list[str] = field(default_factory=list)


def proposes_fix(sentence: str) -> bool:
    """The sentence proposes a change to the code (not merely states a wish)."""
    return bool(_FIX.search(sentence))


def is_diff(block: CodeBlock) -> bool:
    if block.info in {"diff", "patch", "udiff"}:
        return True
    headers = len(_DIFF_HEADER.findall(block.text))
    changes = len(_DIFF_LINE.findall(block.text))
    return (headers >= 2 and changes >= 1) or (
        changes >= 2 and changes * 2 >= len(block.lines) and headers >= 1
    )


def candidate_solution(parts: IssueParts) -> CandidateResult:
    """Grade the fix the reporter proposes, from the strongest form of evidence found."""
    diffs = [b for b in parts.blocks if is_diff(b)]
    if diffs:
        return CandidateResult(CandidateSolution.EXACT_PATCH, [diffs[0].lines[0][:160]])
    sentences: list[str] = []
    introduces_code = False
    for line in parts.body_prose:  # the title names the problem, not the fix
        if _FIX.search(line):
            sentences.append(line[:200])
            introduces_code = introduces_code or bool(_INTRODUCES_CODE.search(line))
    if not sentences:
        return CandidateResult(CandidateSolution.NONE)
    complete = introduces_code or len(sentences) >= 2
    level = CandidateSolution.COMPLETE if complete else CandidateSolution.PARTIAL
    return CandidateResult(level, sentences[:3])
