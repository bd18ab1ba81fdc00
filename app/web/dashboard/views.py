"""Store rows turned into what the pages show. Every string from an issue, a model or a person
stays text: the templates escape it, and secrets are redacted here first."""

from __future__ import annotations

import json
from datetime import date, datetime

from pydantic import BaseModel, ValidationError

from app.calibration import calibrate_clarity
from app.github.comment_render import evidence_items
from app.redaction import redact
from app.store.assessments import stored_result
from app.store.models import Assessment, HumanLabel, TaskInstance
from spice_engine.dimensions import dimension
from spice_engine.langs import FALLBACK
from spice_engine.models import DimensionResult
from spice_engine.results import AnyAssessment, IssueAssessment


class DimensionRow(BaseModel):
    name: str
    label: str
    votes: list[str]
    agreement: str
    controversial: bool
    rationales: list[str]
    rationales_in: str = ""
    """The dimension whose prompt asked for this one, whose rationales explain it too."""


class DecisionRow(BaseModel):
    item: str
    url: str
    kind: str
    title: str
    when: str
    dimensions: list[DimensionRow]
    evidence: list[tuple[str, str]]
    cost: str
    model: str
    prompt: str
    note: str = ""
    """Why details are missing (a row an older version stored in another shape)."""


class CorrectionRow(BaseModel):
    item: str
    url: str
    dimension: str
    ours: str
    theirs: str
    votes: list[str]
    who: str
    when: str
    prompt: str


class SplitRow(BaseModel):
    item: str
    url: str
    dimension: str
    label: str
    votes: list[str]
    when: str


class InstanceRow(BaseModel):
    instance_id: str
    url: str
    status: str
    language: str = ""
    """The language its tests ran in (empty before validation)."""
    reason: str = ""
    """Why validation ended as it did, its first line (empty when valid)."""
    fail_to_pass: int | None
    strength: str = "-"
    """Test strength (`spice test-strength`): mutants killed of tried, or "-"."""
    created: str


def stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def item_url(web_url: str, repo: str, kind: str, number: int) -> str:
    return f"{web_url}/{repo}/{'pull' if kind == 'pr' else 'issues'}/{number}"


def title_of(key: str) -> str:
    try:
        return dimension(key).title
    except KeyError:
        return key


def label_text(key: str, score: int | None, named: bool = False) -> str:
    """What a score means: its GitHub label, or (`named`, or where it carries no label) the
    level's name: a partial candidate solution reads "partial", not "1"."""
    if score is None:
        return "none"
    try:
        found = dimension(key)
    except KeyError:
        return str(score)
    return (None if named else found.label_of(score)) or found.name_of(score)


def vote_texts(key: str, scores: list[int]) -> list[str]:
    """Votes as numbers on a 0-3 scale whose every level is a label, as names otherwise."""
    try:
        found = dimension(key)
    except KeyError:
        return [str(s) for s in scores]
    if all(level.label for level in found.levels):
        return [str(s) for s in scores]
    return [found.name_of(s) for s in scores]


def decision_title(result: AnyAssessment) -> str:
    return result.issue.title if isinstance(result, IssueAssessment) else result.title


def dimension_row(key: str, result: DimensionResult, secrets: tuple[str, ...]) -> DimensionRow:
    asked_in = dimension(key).asked_in
    return DimensionRow(
        name=title_of(key),
        label=label_text(key, result.score, named=True),
        votes=vote_texts(key, [v.score for v in result.votes]),
        agreement=result.agreement.value if result.agreement else "no valid vote",
        controversial=result.controversial,
        rationales=[]
        if asked_in
        else [redact(v.rationale, secrets) for v in result.votes if v.rationale],
        rationales_in=title_of(asked_in) if asked_in else "",
    )


def decision_row(row: Assessment, web_url: str, secrets: tuple[str, ...]) -> DecisionRow:
    """A decision with its title, votes, rationales and evidence, read with the schema it was
    written with; a row an older version stored in another shape still shows its labels and
    votes, and says what it lacks."""
    base = DecisionRow(
        item=f"#{row.number}",
        url=item_url(web_url, row.repo, row.kind, row.number),
        kind="issue" if row.kind == "issue" else "pull request",
        title="",
        when=stamp(row.created_at),
        dimensions=[
            DimensionRow(
                name=title_of(str(v.get("dimension"))),
                label=label_text(str(v.get("dimension")), v.get("score"), named=True),
                votes=vote_texts(str(v.get("dimension")), [int(x) for x in v.get("votes") or []]),
                agreement="",
                controversial=False,
                rationales=[],
            )
            for v in row.votes
        ],
        evidence=[],
        cost=f"${row.cost_usd:.4f}" if row.cost_usd is not None else "cost unknown",
        model=row.model,
        prompt=row.prompt_version,
        note="stored by an older version: its title, rationales and evidence were not kept",
    )
    try:
        result = stored_result(row)
    except ValidationError:
        return base
    return base.model_copy(
        update={
            "title": redact(decision_title(result), secrets),
            "dimensions": [dimension_row(k, r, secrets) for k, r in result.results().items()],
            "evidence": [(n, redact(v, secrets)) for n, v in evidence_items(result.evidence)],
            "note": "",
        }
    )


def correction_row(row: HumanLabel, web_url: str) -> CorrectionRow:
    return CorrectionRow(
        item=f"#{row.number}",
        url=item_url(web_url, row.repo, row.kind, row.number),
        dimension=title_of(row.dimension),
        ours=label_text(row.dimension, row.our_score),
        theirs=label_text(row.dimension, row.human_score)
        if row.human_score is not None
        else "removed, none left",
        votes=vote_texts(row.dimension, [int(v) for v in row.our_votes]),
        who=row.login,
        when=stamp(row.changed_at),
        prompt=f"{row.model} · {row.prompt_version}",
    )


def split_row(row: Assessment, key: str, web_url: str) -> SplitRow:
    voted = next(v for v in row.votes if str(v.get("dimension")) == key)
    return SplitRow(
        item=f"#{row.number}",
        url=item_url(web_url, row.repo, row.kind, row.number),
        dimension=title_of(key),
        label=label_text(key, voted.get("score")),
        votes=vote_texts(key, [int(x) for x in voted.get("votes") or []]),
        when=stamp(row.created_at),
    )


def instance_row(row: TaskInstance, web_url: str) -> InstanceRow:
    validation = (row.labels or {}).get("validation") or {}
    fields = validation.get("fields") or {}
    try:
        tests = json.loads(str(fields["FAIL_TO_PASS"]))
    except (KeyError, ValueError):
        tests = None
    # Only a validation that ran counts tests; an unvalidated row's empty list is no zero.
    ran = isinstance(tests, list) and (tests or validation.get("status") == "valid")
    count = len(tests) if ran and isinstance(tests, list) else None
    return InstanceRow(
        instance_id=row.instance_id,
        url=f"{web_url}/{row.repo}/pull/{row.pr_number}",
        status=str(validation.get("status") or "not validated"),
        language=str(validation.get("language") or (FALLBACK if validation else "")),
        reason=str(validation.get("detail") or "").strip().split("\n")[0][:300],
        fail_to_pass=count,
        strength=strength_text((row.labels or {}).get("test_strength")),
        created=str(row.instance.get("created_at") or "")[:10],
    )


def strength_text(strength: object) -> str:
    """ "0.75 (3/4)": the share of the fix's mutants its tests kill; "-" when not measured."""
    if not isinstance(strength, dict) or strength.get("score") is None:
        return "-"
    killed, tried = strength.get("mutants_killed"), strength.get("mutants_tried")
    return f"{float(strength['score']):.2f} ({killed}/{tried})"


def calibration_text(labels: list[HumanLabel], minimum: int) -> str:
    clarity = [r for r in labels if r.dimension == "clarity"]
    found = calibrate_clarity(clarity, minimum)
    if found is not None:
        return found.explain()
    scored = sum(r.human_score is not None and r.our_score is not None for r in clarity)
    if scored < minimum:
        return (
            f"Not calibrated: {scored} of the {minimum} maintainer clarity labels needed "
            "before this repository's labels may change how clarity is decided."
        )
    return (
        f"Not calibrated: on {scored} maintainer clarity labels the majority of the votes "
        "agrees with maintainers at least as well as any other rule."
    )


def week_label(monday: date) -> str:
    return monday.strftime("%d %b")
