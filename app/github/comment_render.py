"""The sticky comment's markdown from an assessment; every untrusted string is neutralised."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from pydantic import BaseModel

from app.github.labels import scored_label
from app.github.sticky_comment import StickyState, marker, state_line
from app.github.strength_render import catching_block, strength_line, survivor_block
from app.github.untrusted_text import code_span, neutralise
from app.shown_survivors import SurvivorKey, shown_survivors
from spice_engine.dimensions import CLARITY, dimension
from spice_engine.models import Assessment, DimensionResult, IssueAssessment, Usage
from spice_engine.pr.models import PRAssessment

MAX_COMMENT_CHARS = 60_000
"""GitHub refuses bodies over 65,536 characters."""
TRUNCATION_NOTE = "\n\n…(comment shortened by SPICE to stay under GitHub's size limit)\n"
TEMPLATES = Path(__file__).parent / "templates"


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
    strength: str = ""
    """One line on the tests run against mutants of the fix ("" when not executed)."""
    survivor: str = ""
    """The most telling surviving mutant as a fenced diff."""
    catching: str = ""
    """A test proven to catch it (passes on the fix, fails on it), fenced."""
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
    try:
        title = dimension(dim.dimension).title
    except KeyError:
        title = neutralise(dim.dimension, 40)
    return DimensionView(
        name=title,
        label=f"`{prefix}{label}`" if label else "no label",
        votes=" · ".join(str(v.score) for v in dim.votes) or "no valid vote",
        agreement=dim.agreement.value if dim.agreement else "-",
        controversial=dim.controversial,
        rationales=[neutralise(v.rationale, 1200, secrets) for v in dim.votes if v.rationale],
    )


def evidence_items(evidence: dict[str, object], limit: int = 15) -> list[tuple[str, str]]:
    """Shown signals as (name, value) pairs: scalars, nested mappings flattened one level;
    empty, false and zero values left out."""
    items: list[tuple[str, str]] = []
    for key, value in evidence.items():
        pairs: list[tuple[str, Any]] = (
            [(f"{key}.{k}", v) for k, v in value.items()]
            if isinstance(value, dict)
            else [(key, value)]
        )
        for name, item in pairs:
            if isinstance(item, str | int | float | bool) and item not in ("", "none", False, 0):
                items.append((name, str(item)))
    return items[:limit]


def evidence_lines(evidence: dict[str, object], secrets: tuple[str, ...]) -> list[str]:
    return [
        f"{neutralise(name, 60)}: {neutralise(value, 200, secrets)}"
        for name, value in evidence_items(evidence)
    ]


def _issue_summary(a: IssueAssessment, prefix: str) -> list[str]:
    summary: list[str] = []
    if a.nothing_to_assess:
        summary.append(
            f"The issue has no title and no body: nothing to assess, so it is labelled "
            f"`{prefix}{CLARITY.label_of(3)}` without a model call."
        )
    if a.candidate_solution is not None:
        misleading = " (the suggested fix looks misleading)" if a.candidate_misleading else ""
        summary.append(f"Candidate solution in the issue: {a.candidate_solution.value}{misleading}")
    if a.truncated:
        summary.append("The issue is very long: the model saw it shortened, with a visible marker.")
    return summary


def _pr_summary(a: PRAssessment, secrets: tuple[str, ...]) -> list[str]:
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
    return summary + [neutralise(n, 300, secrets) for n in a.notes[:5]]


def assessment_view(
    a: Assessment,
    prefix: str,
    secrets: tuple[str, ...],
    expanded: bool = False,
    suppressed: frozenset[SurvivorKey] = frozenset(),
) -> CommentView:
    """The comment of an issue's or a PR's assessment: a row per registry dimension shown;
    survivors of the `suppressed` kinds are not shown."""
    issue = a if isinstance(a, IssueAssessment) else None
    pr = a if isinstance(a, PRAssessment) else None
    shown = shown_survivors(pr.test_strength if pr else None, suppressed)
    summary = _issue_summary(issue, prefix) if issue else _pr_summary(pr, secrets) if pr else []
    results = a.results()
    for d in results.values():
        summary += [f"Dropped vote: {neutralise(e, 300, secrets)}" for e in dict.fromkeys(d.errors)]
    return CommentView(
        subject="issue" if issue else "pull request",
        dimensions=[
            dimension_view(r, prefix, secrets)
            for key, r in results.items()
            if dimension(key).in_comment
        ],
        summary=summary,
        questions=[neutralise(q, 400, secrets) for q in (issue.questions if issue else [])[:5]],
        counter_examples=[
            neutralise(c, 600, secrets) for c in (pr.counter_examples if pr else [])[:3]
        ],
        evidence=evidence_lines(a.evidence, secrets),
        strength=strength_line(pr.test_strength if pr else None, shown),
        survivor=survivor_block(shown, secrets),
        catching=catching_block(shown, secrets),
        model=neutralise(a.model, 100),
        prompt=", ".join(f"{p.id} v{p.version}" for p in a.prompt_refs()),
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


def render_no_changes(state: StickyState, kind: str) -> str:
    template = _environment().get_template("no_changes.md.j2")
    return template.render(marker=marker(kind), state=state_line(state))


def render_help(prefix: str) -> str:
    template = _environment().get_template("help.md.j2")
    return template.render(marker=marker("help"), prefix=neutralise(prefix or "(none)", 40))
