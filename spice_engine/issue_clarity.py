"""Issue pipeline: clean text, k clarity votes, aggregate (RUBRICS.md §1 and §5)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from pydantic import BaseModel, Field

from spice_engine import __version__
from spice_engine.aggregation import aggregate_dimension, aggregate_guests
from spice_engine.answers import CandidateSolution, ClarityAnswer
from spice_engine.dimensions import (
    CANDIDATE,
    CLARITY,
    Dimension,
    answer_model,
    guests,
    voted_separately,
)
from spice_engine.errors import NoValidVotesError
from spice_engine.issue_signals import extract_signals
from spice_engine.llm.voting import CostBudget, collect_votes
from spice_engine.models import DimensionResult, Issue, IssueAssessment, PromptRef, Usage, Vote
from spice_engine.prompts import render_messages
from spice_engine.protocols import ChatModel
from spice_engine.text_cleaning import CleanText, clean_issue_text

PROMPT_ID = "issue_clarity"
__all__ = ["ClarityAnswer", "IssueOptions", "assess_issue", "issue_input_hash"]


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
class IssuePrompts:
    """The rendered prompt of every issue dimension voted on, and what went into them."""

    refs: dict[str, PromptRef]
    """Dimension key -> its prompt (clarity first)."""
    messages: dict[str, list[dict[str, str]]]
    title: str
    clean: CleanText
    evidence: dict[str, object]
    evidence_text: str


def build_issue_prompts(
    issue: Issue, opts: IssueOptions, evidence: dict[str, object] | None = None
) -> IssuePrompts:
    """Clean the issue, compute its signals (unless given) and render each dimension's prompt."""
    clean = clean_issue_text(issue.body, opts.max_body_chars)
    title = clean_issue_text(issue.title, 500).text
    if evidence is None:
        # Signals are deterministic and cheap: the votes always get them as evidence.
        signals = extract_signals(issue.title, issue.body)
        evidence, evidence_text = signals.model_dump(mode="json"), signals.summary()
    else:
        evidence_text = json.dumps(evidence, indent=1, default=str) if evidence else ""
    prompts = IssuePrompts({}, {}, title, clean, evidence, evidence_text)
    for dim in voted_separately("issue"):
        assert dim.prompt_id is not None
        variables = {
            "title": title,
            "body": clean.text,
            "truncated": clean.truncated,
            "evidence": evidence_text,
            "schema_json": json.dumps(answer_model(dim).model_json_schema()),
        }
        version = opts.prompt_version if dim is CLARITY else None
        ref, messages = render_messages(dim.prompt_id, variables, version=version)
        prompts.refs[dim.key], prompts.messages[dim.key] = ref, messages
    return prompts


def input_hash(prompts: IssuePrompts, model: str, votes: int) -> str:
    """Identity of a labelling input: same hash, same questions to the same model."""
    refs = [[key, ref.id, ref.version] for key, ref in prompts.refs.items()]
    text = f"{prompts.title}\n{prompts.clean.text}\n{prompts.evidence_text}"
    payload = json.dumps([text, refs, model, votes, __version__])
    return hashlib.sha256(payload.encode()).hexdigest()[:32]


def issue_input_hash(
    issue: Issue, model: str, options: IssueOptions, evidence: dict[str, object] | None = None
) -> str:
    """The `input_hash` `assess_issue` will report, known before any vote."""
    return input_hash(build_issue_prompts(issue, options, evidence), model, options.votes)


def _vote_dimension(
    dim: Dimension, prompts: IssuePrompts, model: ChatModel, opts: IssueOptions, budget: CostBudget
) -> tuple[dict[str, DimensionResult], Usage]:
    """k votes on a further dimension with its own prompt (a yes/no label, say). Without a
    valid vote it has no label and says why; clarity still stands."""
    batch = collect_votes(
        model, prompts.messages[dim.key], answer_model(dim), opts.votes, opts.seed, budget=budget
    )
    votes = [
        Vote(score=dim.vote_of(a), rationale=str(getattr(a, "rationale", "")))
        for a in batch.answers
    ]
    results = {dim.key: aggregate_dimension(dim.key, votes, opts.votes, batch.errors)}
    return results | aggregate_guests(dim, batch.answers, opts.votes), batch.usage


def _clarity(
    answers: list[ClarityAnswer], opts: IssueOptions, errors: list[str], capped: bool = False
) -> DimensionResult:
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
        for a in answers
    ]
    clarity = aggregate_dimension(CLARITY.key, votes, opts.votes, errors)
    if clarity.score is None:
        raise NoValidVotesError(CLARITY.key, errors, capped)
    return clarity


def assess_issue(
    issue: Issue,
    model: ChatModel,
    options: IssueOptions | None = None,
    evidence: dict[str, object] | None = None,
    prompts: IssuePrompts | None = None,
) -> IssueAssessment:
    """Label an issue's clarity, candidate solution and further issue dimensions with k votes.
    `prompts`: `build_issue_prompts` of the same arguments, when the caller has them already."""
    opts = options or IssueOptions()
    prompts = prompts or build_issue_prompts(issue, opts, evidence)
    digest = input_hash(prompts, model.name, opts.votes)
    if not prompts.title.strip() and not prompts.clean.text.strip():
        return _nothing_to_assess(issue, model, prompts, digest)
    budget = CostBudget(model, opts.cost_cap_usd, opts.allow_unpriced)  # one cap per issue
    batch = collect_votes(
        model,
        prompts.messages[CLARITY.key],
        answer_model(CLARITY),
        opts.votes,
        opts.seed,
        budget=budget,
    )
    answers = [a for a in batch.answers if isinstance(a, ClarityAnswer)]
    clarity = _clarity(answers, opts, batch.errors, batch.capped)
    more = aggregate_guests(CLARITY, answers, opts.votes)  # the candidate solution, yes/no's
    usage = batch.usage
    for dim in voted_separately("issue"):
        if dim is not CLARITY:
            found, spent = _vote_dimension(dim, prompts, model, opts, budget)
            more |= found
            usage += spent
    misleading = sum(a.candidate_misleading for a in answers) * 2 > len(answers)
    candidate = more[CANDIDATE.key]
    return IssueAssessment(
        issue=issue,
        clarity=clarity,
        candidate_solution=list(CandidateSolution)[candidate.score or 0],
        candidate_misleading=misleading,
        questions=_questions(answers, clarity.score, opts.max_questions),
        dimensions=more,
        model=model.name,
        prompt=prompts.refs[CLARITY.key],
        prompts=list(prompts.refs.values()),
        engine_version=__version__,
        usage=usage,
        input_hash=digest,
        truncated=prompts.clean.truncated,
        evidence=dict(prompts.evidence or {}),
    )


def _nothing_to_assess(
    issue: Issue, model: ChatModel, prompts: IssuePrompts, digest: str
) -> IssueAssessment:
    """An empty issue is poorly specified by definition: no model call is needed."""
    vote = Vote(score=3, rationale="The issue has no title and no body: nothing to assess.")
    return IssueAssessment(
        issue=issue,
        clarity=aggregate_dimension(CLARITY.key, [vote], 1),
        candidate_solution=CandidateSolution.NONE,
        questions=["What problem did you run into, and what did you expect to happen instead?"],
        dimensions={g.key: aggregate_dimension(g.key, [Vote(score=0)], 1) for g in guests(CLARITY)},
        model=model.name,
        prompt=prompts.refs[CLARITY.key],
        prompts=list(prompts.refs.values()),
        engine_version=__version__,
        usage=Usage(),
        input_hash=digest,
        nothing_to_assess=True,
    )


def clarity_messages(issue: Issue, opts: IssueOptions | None = None) -> list[dict[str, str]]:
    """The clarity prompt exactly as the pipeline renders it (for token counts)."""
    return build_issue_prompts(issue, opts or IssueOptions()).messages[CLARITY.key]
