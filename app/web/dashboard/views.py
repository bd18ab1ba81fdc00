"""Store rows turned into what the pages show. Every string from an issue, a model or a person
stays text: the templates escape it, and secrets are redacted here first."""

from __future__ import annotations

import json
from datetime import date, datetime

from pydantic import BaseModel, ValidationError

from app.calibration import calibrate_clarity
from app.github.comment_render import evidence_items
from app.github.labels import scored_label
from app.redaction import redact
from app.store.models import Assessment, HumanLabel, TaskInstance
from spice_engine.dimensions import dimension
from spice_engine.models import IssueAssessment
from spice_engine.results import ASSESSMENT


class DimensionRow(BaseModel):
    name: str
    label: str
    votes: list[int]
    agreement: str
    controversial: bool
    rationales: list[str]


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


class CorrectionRow(BaseModel):
    item: str
    url: str
    dimension: str
    ours: str
    theirs: str
    votes: list[int]
    who: str
    when: str
    prompt: str


class SplitRow(BaseModel):
    item: str
    url: str
    dimension: str
    label: str
    votes: list[int]
    when: str


class InstanceRow(BaseModel):
    instance_id: str
    url: str
    status: str
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


def label_text(key: str, score: int | None) -> str:
    if score is None:
        return "none"
    return scored_label(key, score) or str(score)


def decision_row(row: Assessment, web_url: str, secrets: tuple[str, ...]) -> DecisionRow:
    """A decision with its votes and rationales; a row an older version stored in another
    shape still shows its labels and votes."""
    base = DecisionRow(
        item=f"#{row.number}",
        url=item_url(web_url, row.repo, row.kind, row.number),
        kind="issue" if row.kind == "issue" else "pull request",
        title="",
        when=stamp(row.created_at),
        dimensions=[
            DimensionRow(
                name=title_of(str(v.get("dimension"))),
                label=label_text(str(v.get("dimension")), v.get("score")),
                votes=[int(x) for x in v.get("votes") or []],
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
    )
    try:
        result = ASSESSMENT.validate_python(row.result)
    except ValidationError:
        return base
    dims = [
        DimensionRow(
            name=title_of(key),
            label=label_text(key, r.score),
            votes=[v.score for v in r.votes],
            agreement=r.agreement.value if r.agreement else "no valid vote",
            controversial=r.controversial,
            rationales=[redact(v.rationale, secrets) for v in r.votes if v.rationale],
        )
        for key, r in result.results().items()
    ]
    title = result.issue.title if isinstance(result, IssueAssessment) else ""
    evidence = [(n, redact(v, secrets)) for n, v in evidence_items(result.evidence)]
    return base.model_copy(
        update={"title": redact(title, secrets), "dimensions": dims, "evidence": evidence}
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
        votes=[int(v) for v in row.our_votes],
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
        votes=[int(x) for x in voted.get("votes") or []],
        when=stamp(row.created_at),
    )


def instance_row(row: TaskInstance, web_url: str) -> InstanceRow:
    validation = (row.labels or {}).get("validation") or {}
    fields = validation.get("fields") or {}
    try:
        tests = json.loads(str(fields["FAIL_TO_PASS"]))
    except (KeyError, ValueError):
        tests = None
    count = len(tests) if isinstance(tests, list) else None
    return InstanceRow(
        instance_id=row.instance_id,
        url=f"{web_url}/{row.repo}/pull/{row.pr_number}",
        status=str(validation.get("status") or "not validated"),
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
