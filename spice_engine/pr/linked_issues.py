"""Closing references in a PR's title, body and commit messages, as GitHub recognises them."""

from __future__ import annotations

import re
from collections.abc import Iterable

from pydantic import BaseModel

_KEYWORDS = r"close[sd]?|fix(?:e[sd])?|resolve[sd]?"
_REPO = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]+"
_TARGET = (
    r"(?:https?://github\.com/(?P<url_repo>" + _REPO + r")/issues/(?P<url_num>\d+)"
    r"|(?P<ref_repo>" + _REPO + r")?#(?P<ref_num>\d+))"
)
# A keyword, an optional colon, whitespace, then one target; the target must end on a word
# boundary so `#12abc` or `fixes #12.5` style noise does not count as issue 12.
_CLOSING = re.compile(
    r"(?<![\w-])(?:" + _KEYWORDS + r"):?\s+" + _TARGET + r"(?![\w/-])",
    re.IGNORECASE,
)
_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


class IssueRef(BaseModel):
    """One closing reference: `repo` is `owner/name` in the case written."""

    repo: str
    number: int
    source: str
    """Where it was found: `title`, `body` or `commit`; `github` for a link only GitHub
    knows (closingIssuesReferences, e.g. set in the PR's sidebar)."""

    @property
    def key(self) -> tuple[str, int]:
        return self.repo.lower(), self.number


class LinkedIssues(BaseModel):
    """Closing references of a PR, split into same-repository (used) and cross-repository."""

    same_repo: list[IssueRef]
    cross_repo: list[IssueRef]

    @property
    def numbers(self) -> list[int]:
        return [r.number for r in self.same_repo]


def _visible(text: str) -> str:
    # GitHub ignores keywords inside code and HTML comments (PR templates are full of them).
    return _CODE.sub(" ", _COMMENT.sub(" ", text))


def closing_refs(text: str, repo: str, source: str) -> list[IssueRef]:
    """References closed by `text`; a bare `#N` resolves to `repo`."""
    refs = []
    for m in _CLOSING.finditer(_visible(text)):
        if m.group("url_num"):
            target, number = m.group("url_repo"), int(m.group("url_num"))
        else:
            target, number = m.group("ref_repo") or repo, int(m.group("ref_num"))
        refs.append(IssueRef(repo=target, number=number, source=source))
    return refs


def find_linked_issues(
    repo: str, title: str = "", body: str = "", commit_messages: Iterable[str] = ()
) -> LinkedIssues:
    """Closing references of a PR in `repo` (`owner/name`), deduplicated in order of appearance."""
    found: list[IssueRef] = []
    found += closing_refs(title, repo, "title")
    found += closing_refs(body, repo, "body")
    for message in commit_messages:
        found += closing_refs(message, repo, "commit")
    seen: set[tuple[str, int]] = set()
    same: list[IssueRef] = []
    cross: list[IssueRef] = []
    for ref in found:
        if ref.key in seen:
            continue
        seen.add(ref.key)
        (same if ref.repo.lower() == repo.lower() else cross).append(ref)
    return LinkedIssues(same_repo=same, cross_repo=cross)
