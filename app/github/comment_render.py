"""The sticky comment's markdown from an assessment; every untrusted string is neutralised."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from pydantic import BaseModel

from app.github.labels import ClarityLabel, label_name, scored_label
from app.github.sticky_comment import StickyState, marker, state_line
from app.github.untrusted_text import code_span, neutralise
from spice_engine.models import DimensionResult, IssueAssessment, Usage

MAX_COMMENT_CHARS = 60_000
"""GitHub refuses bodies over 65,536 characters."""
TRUNCATION_NOTE = "\n\n…(comment shortened by SPICE to stay under GitHub's size limit)\n"
TEMPLATES = Path(__file__).parent / "templates"
DIMENSION_TITLES = {"clarity": "Clarity", "tests": "Test adequacy", "difficulty": "Difficulty"}


class DimensionView(BaseModel):
    name: str
    label: str
    votes: str
    agreement: str
    controversial: bool
    rationales: list[str]


class CommentView(BaseModel):
    """Everything the template shows, already neutralised."""

    subject: str
    dimensions: list[DimensionView]
    summary: list[str] = []
    questions: list[str] = []
    counter_examples: list[str] = []
    evidence: list[str] = []
    model: str
    prompt: str
    usage: Usage
    expanded: bool = False


@lru_cache(maxsize=1)
def _environment() -> Environment:
    # Autoescape is off: markdown, not HTML; each value is neutralised before it gets here.
    return Environment(
        loader=FileSystemLoader(str(TEMPLATES)),
        undefined=StrictUndefined,
        trim_blocks=True,
        keep_trailing_newline=True,
    )


def cap(body: str, limit: int = MAX_COMMENT_CHARS) -> str:
    return body if len(body) <= limit else body[: limit - len(TRUNCATION_NOTE)] + TRUNCATION_NOTE


def dimension_view(dim: DimensionResult, prefix: str, secrets: tuple[str, ...]) -> DimensionView:
    label = scored_label(dim.dimension, dim.score)
    return DimensionView(
        name=DIMENSION_TITLES.get(dim.dimension, neutralise(dim.dimension, 40)),
        label=f"`{label_name(label, prefix)}`" if label else "no label",
        votes=" · ".join(str(v.score) for v in dim.votes) or "no valid vote",
        agreement=dim.agreement.value if dim.agreement else "-",
        controversial=dim.controversial,
        rationales=[neutralise(v.rationale, 1200, secrets) for v in dim.votes],
    )


def evidence_lines(evidence: dict[str, object], secrets: tuple[str, ...]) -> list[str]:
    """Scalar signals as `key: value` lines (nested mappings flattened one level)."""
    lines: list[str] = []
    for key, value in evidence.items():
        items: list[tuple[str, Any]] = (
            [(f"{key}.{k}", v) for k, v in value.items()]
            if isinstance(value, dict)
            else [(key, value)]
        )
        for name, item in items:
            if isinstance(item, str | int | float | bool) and item not in ("", "none", False, 0):
                lines.append(f"{neutralise(name, 60)}: {neutralise(str(item), 200, secrets)}")
    return lines[:15]


def issue_view(
    a: IssueAssessment, prefix: str, secrets: tuple[str, ...], expanded: bool = False
) -> CommentView:
    summary: list[str] = []
    if a.nothing_to_assess:
        summary.append(
            f"The issue has no title and no body: nothing to assess, so it is labelled "
            f"`{label_name(ClarityLabel.UNDERSPECIFIED, prefix)}` without a model call."
        )
    if a.candidate_solution is not None:
        misleading = " (the suggested fix looks misleading)" if a.candidate_misleading else ""
        summary.append(f"Candidate solution in the issue: {a.candidate_solution.value}{misleading}")
    if a.truncated:
        summary.append("The issue is very long: the model saw it shortened, with a visible marker.")
    for err in dict.fromkeys(a.clarity.errors):
        summary.append(f"Dropped vote: {neutralise(err, 300, secrets)}")
    return CommentView(
        subject="issue",
        dimensions=[dimension_view(a.clarity, prefix, secrets)],
        summary=summary,
        questions=[neutralise(q, 400, secrets) for q in a.questions[:5]],
        evidence=evidence_lines(a.evidence, secrets),
        model=neutralise(a.model, 100),
        prompt=f"{a.prompt.id} v{a.prompt.version}",
        usage=a.usage,
        expanded=expanded,
    )


def render_view(view: CommentView, state: StickyState, kind: str) -> str:
    u = view.usage
    cost = u.cost_text(4)
    body = (
        _environment()
        .get_template("assessment.md.j2")
        .render(
            marker=marker(kind),
            state=state_line(state),
            rule="majority",
            tokens_in=u.input,
            tokens_out=u.output,
            cost=cost,
            **view.model_dump(exclude={"usage"}),
        )
    )
    return cap(body)


def render_config_error(
    error: str, problems: list[tuple[str, str]], state: StickyState, kind: str
) -> str:
    lines = [f"{code_span(path)}: {neutralise(msg, 300)}" for path, msg in problems[:20]]
    lines = lines or [neutralise(error, 600)]
    template = _environment().get_template("config_error.md.j2")
    return cap(template.render(marker=marker(kind), state=state_line(state), problems=lines))


def render_help(prefix: str) -> str:
    template = _environment().get_template("help.md.j2")
    return template.render(marker=marker("help"), prefix=neutralise(prefix or "(none)", 40))


def pr_view(a: Any, prefix: str, secrets: tuple[str, ...], expanded: bool = False) -> CommentView:
    """View of a `spice_engine.pr.models.PRAssessment`."""
    summary: list[str] = []
    linked = [f"\\#{n}" for n in a.linked_issues.numbers]
    if a.judged_against == "pr_description":
        summary.append(
            "No linked issue found: the tests were judged against this PR's own title and "
            "description."
        )
    else:
        summary.append(f"Judged against the linked issue(s): {', '.join(linked)}")
    if a.tests is None:
        summary.append("This PR changes no tests: test adequacy was not voted.")
    summary += [neutralise(n, 300, secrets) for n in a.notes[:5]]
    dims = [d for d in (a.tests, a.difficulty) if d is not None]
    for d in dims:
        summary += [f"Dropped vote: {neutralise(e, 300, secrets)}" for e in dict.fromkeys(d.errors)]
    return CommentView(
        subject="pull request",
        dimensions=[dimension_view(d, prefix, secrets) for d in dims],
        summary=summary,
        counter_examples=[neutralise(c, 600, secrets) for c in a.counter_examples[:3]],
        evidence=evidence_lines(a.evidence, secrets),
        model=neutralise(a.model, 100),
        prompt=", ".join(f"{p.id} v{p.version}" for p in a.prompts),
        usage=a.usage,
        expanded=expanded,
    )
