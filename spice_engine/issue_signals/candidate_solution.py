"""Candidate-solution signal: a patch, fix steps in prose, or nothing."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from spice_engine.issue_signals.markdown_parts import CodeBlock, IssueParts
from spice_engine.models import CandidateSolution

_DIFF_HEADER = re.compile(r"^(?:diff --git |--- a?/?\S|\+\+\+ b?/?\S|@@ -\d)", re.M)
_DIFF_LINE = re.compile(r"^[+-](?![+-]{2})\s*\S", re.M)

# How people propose a change: cues that name a fix or its cause. Modal phrasing alone ("X should
# use Y") is also how expected behaviour is written; it only counts when it introduces code.
# Within one sentence: a period only ends it when followed by a space (`a.b()` stays inside).
_S = r"(?:[^.?!\n]|\.(?=\S))"
_CUES = [
    # "easy to fix" uses the verb; a workaround is what users do, not a change to the code.
    rf"(?<!to )\b(?:fix|solution|remedy|patch)\b{_S}{{0,30}}\b(?:is|would be|could be|might be|seems to be|was)\b",
    r"\b(?:can|could|would|might|may) (?:easily |simply |probably )?be (?:fixed|solved|resolved|addressed|avoided)\b",
    r"\b(?:i|we) (?:would )?(?:suggest|propose|recommend)\b",
    r"\b(?:proposed?|suggested|possible|potential|simple|easy|quick) (?:fix|solution|change|patch|approach)\b",
    # "using X works" is how users work around a bug; changing the code is a fix.
    rf"\b(?:changing|replacing|removing|adding|moving|wrapping) {_S}{{1,60}}\b(?:fixes|solves|resolves|works|would work|avoids)\b",
    r"\b(?:the|a|one) (?:way|option|approach) (?:to fix|would be|is to|could be)\b",
    # How to fix it, in the active voice: "we can correct this by ensuring ...".
    rf"\b(?:fix|correct|solve|resolve|address|add|implement)\w*\b{_S}{{0,40}}\bby (?:adding|removing"
    r"|changing|replacing|calling|passing|wrapping|checking|catching|overriding|implementing|ensuring"
    r"|moving|skipping|converting|copying|returning|raising)\b",
    r"\bsomething like\b|\bas follow(?:s|ing)\b|\blike so\b",
    rf"\b(?:i think|i believe|i guess|i suspect|it seems|it appears|it looks like|apparently)\b{_S}{{0,80}}"
    r"\b(?:should|need|must|missing|wrong|because|instead|could|would)\b",
    # "not sure where the problem is" asks where the cause is; it does not name it.
    r"\b(?:root|real|underlying) (?:cause|problem|issue)\b"
    r"|(?<!where )(?<!what )(?<!why )\bthe (?:cause|bug) (?:is|seems|was|lies)\b",
    r"\b(?:because|since) (?:we|it|the code|this) (?:don't|doesn't|do not|does not|never|only|always)\b",
    r"\bshould (?:be|read|say|look like)\s*:",
    # What the code does wrong and what it should do: "it does a `set` instead of `setdefault`".
    rf"\b(?:does|uses|used|calls|called) {_S}{{1,40}}\binstead of\b",
    # Code that is absent, named: "has no overridden `evalf` method", "without guarding against".
    r"\b(?:has|have) no (?:overridden |own |custom )?\S+ method\b|\bwithout (?:guarding|checking"
    r"|catching|validating|escaping)\b|\b(?:call|check) is missing\b"
    r"|\bis missing (?:the|a|an) (?:call|parameter|argument|check)\b",
    # The reporter tried a change to the code and reports what it did.
    r"\bif (?:i|we) (?:replace|change|remove|add|modify|patch|edit|comment out"
    r"|replaced|changed|removed|added|modified|patched|edited|commented out)\b",
    r"\b(?:should|could|needs? to|must) (?:just |simply |also |probably |instead )?be (?:changed|replaced"
    r"|modified|updated|moved|removed|added|set|passed|converted|wrapped|computed|called|checked"
    r"|ordered|copied|stored|skipped|ignored|handled|escaped|cast|stripped|deduplicated)\b",
]
_CHANGE_WORDS = [
    rf"\b(?:should|could|would|needs? to|must|might)\b{_S}{{0,40}}\b(?:add|remove|change|use|check|pass"
    r"|call|convert|move|replace|wrap|skip|handle|adjust|record|construct|consider|compare|catch|cast"
    r"|include|exclude|ignore|validate|strip|escape|set|update)\w*\b",
    r"\b(?:we|you|one) (?:should|could|can|might|need to|must)\b",
    r"\binstead\b",
    r"\b(?:solution|fix|patch|workaround)\b",
    rf"\b(?:change|replace|changing|replacing) {_S}{{1,80}}\b(?:to|with|by)\b",
]
_CUES_RX = re.compile("|".join(f"(?:{p})" for p in _CUES), re.I)
_FIX = re.compile("|".join(f"(?:{p})" for p in _CUES + _CHANGE_WORDS), re.I)
# A fix sentence that introduces code ("should be:", "change it to:") makes the steps complete.
_INTRODUCES_CODE = re.compile(
    r"(?:\bto|\bby|\bbe|\bwith|\bthis|\bfollowing|\blike|\bso)\s*:?\s*$", re.I
)
# "... but instead fails with:" and "the expected result should be:" introduce what happens or
# should happen, not what should be written.
_REPORTS_OUTCOME = re.compile(
    r"\b(?:fails?|failed|raises?|raised|throws?|errors?|returns?|returned|gives?|gave|outputs?"
    rf"|produces?|shows?|results? in|get|gets|got|crash(?:es)?|expect(?:s|ed|ation)?)\b{_S}*$",
    re.I,
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


@dataclass
class CandidateResult:
    level: CandidateSolution
    evidence: list[str] = field(default_factory=list)


def proposes_fix(sentence: str) -> bool:
    """The sentence proposes a change to the code (not merely states a wish)."""
    return bool(_FIX.search(sentence))


def introduces_fix_code(sentence: str, any_colon: bool = False) -> bool:
    """The sentence proposes a change and ends by introducing code (`... should be:`)."""
    introduces = _INTRODUCES_CODE.search(sentence) or (
        any_colon and sentence.rstrip().endswith(":")
    )
    return bool(introduces) and proposes_fix(sentence) and not _REPORTS_OUTCOME.search(sentence)


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
    sentences = [
        line[:200]
        for line, section in zip(parts.body_prose, parts.body_sections, strict=True)
        # Under a "Proposed solution" or "Possible fix" section title, every line proposes.
        if _CUES_RX.search(section) or _CUES_RX.search(_statements(line))
    ]
    fix_code = [b for b in parts.blocks if b.lead and introduces_fix_code(b.lead)]
    if not sentences and not fix_code:
        return CandidateResult(CandidateSolution.NONE)
    complete = bool(fix_code) or len(sentences) >= 2
    level = CandidateSolution.COMPLETE if complete else CandidateSolution.PARTIAL
    return CandidateResult(level, sentences[:3])


def _statements(line: str) -> str:
    """The line without its questions: `could you suggest a workaround?` asks for a fix."""
    return " ".join(s for s in _SENTENCE_END.split(line) if not s.rstrip().endswith("?"))
