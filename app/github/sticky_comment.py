"""One comment per issue/PR, found by a hidden marker AND our identity, edited in place."""

from __future__ import annotations

import json
import re

from github import UnknownObjectException
from pydantic import BaseModel, Field, ValidationError

from app.github.client import CommentData, GitHubRepo
from app.github.retries import RetryPolicy, call_with_retries

MARKER = "<!-- spice-triage:{kind} -->"
_STATE = re.compile(r"^<!-- spice-triage:state (\{[^\n]*\}) -->$", re.MULTILINE)


class StickyState(BaseModel):
    """What the last run saw and decided; equal `input_hash` = nothing to re-vote."""

    input_hash: str
    pipeline: str
    model: str = ""
    prompt_version: str = ""
    votes: dict[str, list[int]] = Field(default_factory=dict)
    labels: list[str] = Field(default_factory=list)


def marker(kind: str) -> str:
    return MARKER.format(kind=kind)


def state_line(state: StickyState) -> str:
    # `--` and `>` cannot occur in json.dumps output of our fields except inside strings,
    # which are hex digests, model names and integers; escape anyway so the comment stays closed.
    text = json.dumps(state.model_dump(), separators=(",", ":"), ensure_ascii=True)
    text = text.replace("--", "\\u002d\\u002d").replace(">", "\\u003e")
    return f"<!-- spice-triage:state {text} -->"


def find_sticky(comments: list[CommentData], bot_login: str, kind: str) -> CommentData | None:
    """Our oldest comment that starts with the marker; anyone else's copies are ignored."""
    head = marker(kind)
    for comment in comments:
        if comment.author == bot_login and comment.body.startswith(head):
            return comment
    return None


def read_state(comment: CommentData | None) -> StickyState | None:
    if comment is None:
        return None
    match = _STATE.search(comment.body)
    if match is None:
        return None
    try:
        return StickyState.model_validate_json(match.group(1))
    except ValidationError:
        return None


class Upserted(BaseModel):
    comment_id: int
    action: str
    """`created`, `edited` or `unchanged`."""


def upsert_sticky(
    repo: GitHubRepo,
    number: int,
    bot_login: str,
    kind: str,
    body: str,
    policy: RetryPolicy,
    listed: list[CommentData] | None = None,
) -> Upserted:
    """Create or edit our comment; a retried create looks again first, so it never duplicates.
    `listed`: the item's comments when the caller has listed them already."""
    if not body.startswith(marker(kind)):
        raise ValueError("a sticky comment body must start with its marker")
    comments = repo.list_comments(number) if listed is None else listed
    existing = find_sticky(comments, bot_login, kind)
    if existing is not None:
        if existing.body == body:
            return Upserted(comment_id=existing.id, action="unchanged")
        try:
            return Upserted(comment_id=repo.edit_comment(existing.id, body).id, action="edited")
        except UnknownObjectException:
            pass  # a maintainer deleted it since we listed it: the explanation is posted anew
    attempts = 0

    def create() -> Upserted:
        nonlocal attempts
        attempts += 1
        if attempts > 1:  # the failed POST may have landed and only its reply was lost
            landed = find_sticky(repo.list_comments(number), bot_login, kind)
            if landed is not None:
                return Upserted(comment_id=landed.id, action="created")
        return Upserted(comment_id=repo.create_comment(number, body).id, action="created")

    return call_with_retries(policy, f"create comment {repo.full_name}#{number}", create)
