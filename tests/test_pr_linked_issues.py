"""Closing references: every GitHub form, and the texts that must not link an issue."""

from __future__ import annotations

import pytest

from spice_engine.pr.linked_issues import find_linked_issues

REPO = "psf/requests"


@pytest.mark.parametrize(
    "text",
    [
        "Fixes #12",
        "fixes #12",
        "FIXED #12",
        "fix #12",
        "Closes #12",
        "close #12",
        "closed: #12",
        "Resolves #12",
        "resolve #12",
        "resolved:   #12",
        "This PR fixes #12.",
        "(closes #12)",
        "fixes psf/requests#12",
        "Fixes https://github.com/psf/requests/issues/12",
        "fixes: https://github.com/PSF/Requests/issues/12",
        "Some text\n\nCloses #12\n",
    ],
)
def test_same_repo_forms(text: str) -> None:
    linked = find_linked_issues(REPO, body=text)
    assert linked.numbers == [12]
    assert linked.cross_repo == []


@pytest.mark.parametrize(
    "text",
    [
        "See #12",
        "#12",
        "Related to #12",
        "prefix fixes: nothing",
        "affixes #12",
        "fixes #12abc",
        "fixes https://github.com/psf/requests/pull/12",
        "`fixes #12`",
        "```\nfixes #12\n```",
        "<!-- Fixes #12 -->",
        "fixing #12",
        "fixes issue #12",
    ],
)
def test_false_positives(text: str) -> None:
    linked = find_linked_issues(REPO, title=text, body=text)
    assert linked.same_repo == [] and linked.cross_repo == []


def test_cross_repo_references_are_reported_not_used() -> None:
    linked = find_linked_issues(
        REPO,
        body="Fixes urllib3/urllib3#7 and closes https://github.com/pallets/flask/issues/9",
    )
    assert linked.same_repo == []
    assert [(r.repo, r.number) for r in linked.cross_repo] == [
        ("urllib3/urllib3", 7),
        ("pallets/flask", 9),
    ]


def test_title_body_and_commits_are_all_read_and_deduplicated() -> None:
    linked = find_linked_issues(
        REPO,
        title="Fix #1: crash",
        body="Resolves #2, fixes #1",
        commit_messages=["tidy up", "closes #3\n\nfixes psf/requests#2"],
    )
    assert linked.numbers == [1, 2, 3]
    assert [r.source for r in linked.same_repo] == ["title", "body", "commit"]


def test_each_reference_needs_its_own_keyword() -> None:
    assert find_linked_issues(REPO, body="Fixes #1, #2 and #3").numbers == [1]
