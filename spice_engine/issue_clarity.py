"""Issue pipeline: clean text, k clarity votes, aggregate (RUBRICS.md §1 and §5)."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from spice_engine import __version__
from spice_engine.aggregation import aggregate_dimension
from spice_engine.errors import NoValidVotesError
from spice_engine.issue_signals import extract_signals
from spice_engine.llm.voting import collect_votes
from spice_engine.models import (
    CANDIDATE_ORDER,
    CandidateSolution,
    Issue,
    IssueAssessment,
    PromptRef,
    Usage,
    Vote,
)
from spice_engine.prompts import render_messages
from spice_engine.protocols import ChatModel
from spice_engine.text_cleaning import CleanText, clean_issue_text

PROMPT_ID = "issue_clarity"


class ClarityAnswer(BaseModel):
    """What one model run must return for an issue."""

    model_config = ConfigDict(extra="forbid")

    rationale: str
    score: Literal[0, 1, 2, 3]
    candidate_solution: CandidateSolution
    candidate_misleading: bool
    questions: list[str]


class IssueOptions(BaseModel):
    """Knobs of the issue pipeline that are not about the model."""

    votes: int = Field(default=3, ge=1, le=15)
    """k clarity votes."""
    seed: int = 0
    max_body_chars: int = Field(default=16000, ge=500)
    """Longer bodies are cut in the middle with a visible marker."""
    cost_cap_usd: float | None = None
    allow_unpriced: bool = False
    """With a cap, let a model of unknown price vote past its first request."""
    prompt_version: str | None = None
    """Pin a prompt version; default is the newest on disk."""
    max_questions: int = Field(default=3, ge=0, le=10)


def input_hash(issue_text: str, prompt: PromptRef, model: str, votes: int) -> str:
    """Identity of a labeling input: same hash, same question to the same model."""
    payload = json.dumps([issue_text, prompt.id, prompt.version, model, votes])
    return hashlib.sha256(payload.encode()).hexdigest()[:32]


def _consensus_candidate(answers: list[ClarityAnswer]) -> tuple[CandidateSolution | None, bool]:
    if not answers:
        return None, False
    ranks = sorted(CANDIDATE_ORDER.index(a.candidate_solution) for a in answers)
    value, count = Counter(ranks).most_common(1)[0]
    rank = value if count * 2 > len(ranks) else ranks[(len(ranks) - 1) // 2]
    misleading = sum(a.candidate_misleading for a in answers) * 2 > len(answers)
    return CANDIDATE_ORDER[rank], misleading


def _questions(answers: list[ClarityAnswer], final: int | None, limit: int) -> list[str]:
    if final is None or final < 2:
        return []
    # Votes that agree with the final label speak first; duplicates are dropped.
    seen: dict[str, str] = {}
    for a in sorted(answers, key=lambda a: a.score != final):
        for q in a.questions if a.score >= 2 else []:
            q = q.strip()
            if q:
                seen.setdefault(q.lower(), q)
    return list(seen.values())[:limit]


@dataclass
class ClarityPrompt:
    """The rendered clarity prompt and what went into it."""

    ref: PromptRef
    messages: list[dict[str, str]]
    title: str
    clean: CleanText
    evidence: dict[str, object]
    evidence_text: str


def build_clarity_prompt(
    issue: Issue, opts: IssueOptions, evidence: dict[str, object] | None = None
) -> ClarityPrompt:
    """Clean the issue, compute its signals (unless given) and render the prompt."""
    clean = clean_issue_text(issue.body, opts.max_body_chars)
    title = clean_issue_text(issue.title, 500).text
    if evidence is None:
        # Signals are deterministic and cheap: the votes always get them as evidence.
        signals = extract_signals(issue.title, issue.body)
        evidence, evidence_text = signals.model_dump(mode="json"), signals.summary()
    else:
        evidence_text = json.dumps(evidence, indent=1, default=str) if evidence else ""
    ref, messages = render_messages(
        PROMPT_ID,
        {
            "title": title,
            "body": clean.text,
            "truncated": clean.truncated,
            "evidence": evidence_text,
            "schema_json": json.dumps(ClarityAnswer.model_json_schema()),
        },
        version=opts.prompt_version,
    )
    return ClarityPrompt(ref, messages, title, clean, evidence, evidence_text)


def assess_issue(
    issue: Issue,
    model: ChatModel,
    options: IssueOptions | None = None,
    evidence: dict[str, object] | None = None,
) -> IssueAssessment:
    """Label an issue's clarity and candidate solution with k votes."""
    opts = options or IssueOptions()
    prompt = build_clarity_prompt(issue, opts, evidence)
    ref, messages, title, clean = prompt.ref, prompt.messages, prompt.title, prompt.clean
    evidence, evidence_text = prompt.evidence, prompt.evidence_text
    digest = input_hash(f"{title}\n{clean.text}\n{evidence_text}", ref, model.name, opts.votes)
    if not title.strip() and not clean.text.strip():
        return _nothing_to_assess(issue, model, ref, digest, opts)

    batch = collect_votes(
        model,
        messages,
        ClarityAnswer,
        opts.votes,
        seed=opts.seed,
        cost_cap_usd=opts.cost_cap_usd,
        allow_unpriced=opts.allow_unpriced,
    )
    votes = [
        Vote(
            score=a.score,
            rationale=a.rationale,
            extra={
                "candidate_solution": a.candidate_solution.value,
                "candidate_misleading": a.candidate_misleading,
                "questions": a.questions[: opts.max_questions],
            },
        )
        for a in batch.answers
    ]
    clarity = aggregate_dimension("clarity", votes, opts.votes, batch.errors)
    if clarity.score is None:
        raise NoValidVotesError("clarity", batch.errors)
    candidate, misleading = _consensus_candidate(batch.answers)
    return IssueAssessment(
        issue=issue,
        clarity=clarity,
        candidate_solution=candidate,
        candidate_misleading=misleading,
        questions=_questions(batch.answers, clarity.score, opts.max_questions),
        model=model.name,
        prompt=ref,
        engine_version=__version__,
        usage=batch.usage,
        input_hash=digest,
        truncated=clean.truncated,
        evidence=dict(evidence or {}),
    )


def _nothing_to_assess(
    issue: Issue, model: ChatModel, ref: PromptRef, digest: str, opts: IssueOptions
) -> IssueAssessment:
    """An empty issue is poorly specified by definition: no model call is needed."""
    vote = Vote(score=3, rationale="The issue has no title and no body: nothing to assess.")
    clarity = aggregate_dimension("clarity", [vote], 1)
    return IssueAssessment(
        issue=issue,
        clarity=clarity,
        candidate_solution=CandidateSolution.NONE,
        questions=["What problem did you run into, and what did you expect to happen instead?"],
        model=model.name,
        prompt=ref,
        engine_version=__version__,
        usage=Usage(),
        input_hash=digest,
        nothing_to_assess=True,
    )
