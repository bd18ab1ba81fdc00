"""Entry points: `pr_evidence` for one PR and `evidence_summary` for prompts and comments."""

from __future__ import annotations

from pathlib import Path

from spice_engine.errors import InputError
from spice_engine.pr_evidence.difficulty_prior import difficulty_prior
from spice_engine.pr_evidence.flags import all_flags
from spice_engine.pr_evidence.introduced import introduced
from spice_engine.pr_evidence.models import PrEvidence
from spice_engine.pr_evidence.patch_parse import parse_patch
from spice_engine.pr_evidence.test_stats import test_stats
from spice_engine.pr_evidence.test_usage import (
    IssueText,
    checked_error_messages,
    message_uses,
    name_uses,
)

_BUCKETS = ("<15 min", "15 min-1 h", "1-4 h", ">4 h")


def pr_evidence(
    gold_patch: str, test_patch: str, issue_text: str, repo_path: str | Path | None = None
) -> PrEvidence:
    """Deterministic evidence about a PR's tests and size; `repo_path` is the base checkout."""
    gold = parse_patch(gold_patch)
    tests = parse_patch(test_patch)
    repo = Path(repo_path) if repo_path is not None else None
    new = introduced(gold, repo)
    issue = IssueText(issue_text)
    names = name_uses(tests, new, issue)
    notes: list[str] = []
    messages = message_uses(tests, new, issue, notes)
    return PrEvidence(
        flags=all_flags(
            gold, tests, issue_text, names, messages, checked_error_messages(tests, issue)
        ),
        difficulty_prior=difficulty_prior(gold, new, tests),
        test_stats=test_stats(tests),
        introduced_names=[f"{n.name} ({n.kind})" for n in new.names],
        introduced_messages=[m.value for m in new.messages],
        notes=notes,
    )


def evidence_summary(ev: PrEvidence, max_items: int = 3) -> str:
    """Compact text for prompts and comments: flags with their first evidence, then the prior."""
    lines: list[str] = []
    for flag in sorted(ev.flags, key=lambda f: not f.counts_for_tests):
        marker = "!" if flag.counts_for_tests else "-"
        lines.append(f"{marker} {flag.name}: {flag.summary}")
        for item in flag.evidence[:max_items]:
            where = f"{item.file}:{item.line}" if item.line else item.file
            lines.append(f"    {item.detail} [{where}]")
        if len(flag.evidence) > max_items:
            lines.append(f"    … {len(flag.evidence) - max_items} more")
    if not ev.flags:
        lines.append("- no test-adequacy flag fired")
    stats = ev.test_stats
    lines.append(
        f"- tests: {stats.tests_added} added, {stats.tests_modified} modified, "
        f"{stats.parametrized_cases} parametrised cases added, in {stats.test_files} file(s)"
    )
    prior = ev.difficulty_prior
    shown = prior.features
    lines.append(
        f"- difficulty prior: {prior.score} ({_BUCKETS[prior.score]}) from "
        f"{shown['changed_lines']:.0f} changed lines, {shown['files']:.0f} file(s), "
        f"{shown['hunks']:.0f} hunk(s), {shown['new_definitions']:.0f} new definition(s)"
    )
    return "\n".join(lines)


def evidence_record(ev: PrEvidence) -> dict[str, object]:
    """The evidence as a result field: one readable line per flag, the prior, the full model.

    Comment renderers show scalar entries (nested mappings one level deep), so each flag is a
    single sentence with its first piece of evidence; `pr_evidence` keeps everything.
    """
    flags = {}
    for flag in ev.flags:
        item = flag.evidence[0]
        where = f"{item.file}:{item.line}" if item.line else item.file
        more = f" (+{len(flag.evidence) - 1} more)" if len(flag.evidence) > 1 else ""
        flags[flag.name] = f"{item.detail} [{where}]{more}"
    prior = ev.difficulty_prior
    shown = prior.features
    return {
        "tests_flag": ev.tests_flag,
        "test_flags": flags,
        "difficulty_prior": (
            f"{prior.score} ({_BUCKETS[prior.score]}) from {shown['changed_lines']:.0f} changed "
            f"lines in {shown['files']:.0f} file(s)"
        ),
        "pr_evidence": ev.model_dump(mode="json"),
    }


def pipeline_evidence(
    gold_patch: str, test_patch: str, issue_text: str, repo_path: str | Path | None = None
) -> tuple[dict[str, object], str]:
    """(result record, prompt text) for the PR pipeline; an unreadable diff gives a note only."""
    try:
        ev = pr_evidence(gold_patch, test_patch, issue_text, repo_path)
    except InputError as exc:
        return {"pr_evidence_error": str(exc)}, ""
    return evidence_record(ev), evidence_summary(ev)
