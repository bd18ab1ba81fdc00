"""Named test-adequacy flags, each with the evidence a reviewer can check."""

from __future__ import annotations

import re
from collections.abc import Callable

from spice_engine.pr_evidence.models import EvidenceItem, Flag
from spice_engine.pr_evidence.patch_parse import FileDiff
from spice_engine.pr_evidence.test_usage import CheckedMessage, MessageUse, NameUse

# Kinds of introduced name whose use by a test pins the fix's API (attributes and quoted
# option values are reported, but measured too imprecise to count; see README).
API_KINDS = {"def", "class", "exception", "param", "assign"}
COUNTING_FLAGS = frozenset(
    {
        "asserts_new_message",
        "asserts_exact_error_text",
        "uses_new_api",
        "uses_new_parameter_named_in_issue",
        "expects_unasked_warning",
    }
)
"""Flags precise enough (>= 0.85 on both halves of the development split) to mean "inadequate"."""

_WARNING_CHECK = re.compile(
    r"\b(pytest\.warns|pytest\.deprecated_call|assertWarns\w*|assert_warns\w*|assertLogs"
    r"|catch_warnings)\b"
)
_WARNING_WORD = re.compile(r"warn|deprecat|\blog(s|ged|ging|ger)?\b", re.I)


def _short(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _flag(name: str, summary: str, evidence: list[EvidenceItem]) -> Flag:
    return Flag(
        name=name, counts_for_tests=name in COUNTING_FLAGS, summary=summary, evidence=evidence
    )


def _name_item(use: NameUse) -> EvidenceItem:
    where = "absent from" if not use.in_issue else "named in"
    return EvidenceItem(
        name=use.name.name,
        file=use.file,
        line=use.line,
        detail=(
            f"tests use `{_short(use.source, 60)}`; `{use.name.name}` ({use.name.kind}) is "
            f"introduced by the fix at {use.name.file}:{use.name.line} and {where} the issue"
        ),
    )


def message_flags(uses: list[MessageUse]) -> list[Flag]:
    flags: list[Flag] = []
    fresh = [u for u in uses if not u.in_issue]
    if fresh:
        items = [
            EvidenceItem(
                name=u.text,
                file=u.file,
                line=u.line,
                detail=(
                    f'tests expect the text "{_short(u.text)}", which the fix adds at '
                    f"{u.message.file}:{u.message.line} and the issue does not contain"
                ),
            )
            for u in fresh
        ]
        flags.append(
            _flag(
                "asserts_new_message",
                "tests check a message only the fix introduces; other fixes word it differently",
                items,
            )
        )
    known = [u for u in uses if u.in_issue]
    if known:
        items = [
            EvidenceItem(
                name=u.text,
                file=u.file,
                line=u.line,
                detail=f'tests expect the text "{_short(u.text)}" added by the fix; the issue quotes it',
            )
            for u in known
        ]
        flags.append(
            _flag("asserts_message_from_issue", "tests check a message the issue states", items)
        )
    return flags


def error_text_flags(checked: list[CheckedMessage], new_messages: list[MessageUse]) -> list[Flag]:
    """Exact exception/warning texts the tests demand that the issue never states."""
    already = {(u.file, u.line) for u in new_messages}
    items = [
        EvidenceItem(
            name=c.text,
            file=c.file,
            line=c.line,
            detail=f'tests demand the exact error text "{_short(c.text)}"; the issue does not state it',
        )
        for c in checked
        if not c.in_issue and (c.file, c.line) not in already
    ]
    if not items:
        return []
    return [_flag("asserts_exact_error_text", "tests pin an error message's wording", items)]


def name_flags(uses: list[NameUse]) -> list[Flag]:
    groups: dict[str, tuple[str, Callable[[NameUse], bool]]] = {
        "uses_new_api": (
            "tests call or pass names only the fix introduces and the issue never mentions",
            lambda u: _is_api(u) and not u.in_issue,
        ),
        "uses_new_parameter_named_in_issue": (
            "tests pass a parameter the fix adds; the issue names the idea but not the signature",
            lambda u: u.in_issue and _pins_signature(u),
        ),
        "uses_new_api_named_in_issue": (
            "tests call a new definition the issue asks for by name",
            lambda u: _is_api(u) and u.in_issue and not _pins_signature(u),
        ),
        "uses_new_attribute": (
            "tests read attributes the fix introduces",
            lambda u: u.name.kind == "attr",
        ),
        "uses_new_string_value": (
            "tests use a quoted value (option, key) the fix introduces",
            lambda u: u.name.kind == "string" and u.how == "string",
        ),
    }
    flags: list[Flag] = []
    for name, (summary, keep) in groups.items():
        items = [_name_item(u) for u in uses if keep(u)]
        if items:
            flags.append(_flag(name, summary, items))
    return flags


def _is_api(use: NameUse) -> bool:
    if use.name.kind in API_KINDS:
        return True
    # A hook looked up by name (getattr/hasattr) that tests implement or call.
    return use.name.kind == "string" and use.how != "string"


def _pins_signature(use: NameUse) -> bool:
    """A new parameter, or a new definition/attribute the tests pass as a keyword argument."""
    keyword = use.how == "keyword" and use.name.kind in {*API_KINDS, "attr"}
    return use.name.kind == "param" or keyword


def warning_flags(tests: list[FileDiff], issue_text: str) -> list[Flag]:
    if _WARNING_WORD.search(issue_text):
        return []
    items = [
        EvidenceItem(
            name=match.group(1),
            file=diff.path,
            line=line.number,
            detail=f"tests expect a warning (`{_short(line.text, 60)}`); the issue never mentions one",
        )
        for diff in tests
        for line in diff.added
        if (match := _WARNING_CHECK.search(line.text))
    ]
    if not items:
        return []
    return [
        _flag(
            "expects_unasked_warning", "tests require a warning the issue does not ask for", items
        )
    ]


def _module_words(path: str) -> set[str]:
    words = set(re.split(r"[/_.\-]+", path.lower()))
    return {w for w in words if len(w) > 2 and w not in {"test", "tests", "testing", "py"}}


def scope_flags(gold: list[FileDiff], tests: list[FileDiff]) -> list[Flag]:
    """Test files whose path shares no word with any file the fix touches."""
    touched: set[str] = set()
    for diff in gold:
        touched |= _module_words(diff.path)
    items = [
        EvidenceItem(
            name=diff.path,
            file=diff.path,
            line=diff.added[0].number if diff.added else None,
            detail=f"tests in {diff.path} exercise code outside the files the fix changes",
        )
        for diff in tests
        if diff.is_python and touched and not (_module_words(diff.path) & touched)
    ]
    if not items:
        return []
    return [_flag("tests_outside_patch", "tests exercise files the fix does not touch", items)]


def all_flags(
    gold: list[FileDiff],
    tests: list[FileDiff],
    issue_text: str,
    names: list[NameUse],
    messages: list[MessageUse],
    checked: list[CheckedMessage],
) -> list[Flag]:
    """Every flag that fires, counting ones first."""
    return [
        *message_flags(messages),
        *error_text_flags(checked, messages),
        *name_flags(names),
        *warning_flags(tests, issue_text),
        *scope_flags(gold, tests),
    ]
