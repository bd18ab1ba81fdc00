"""issue_comment `/spice relabel | explain | help | feedback | not-useful`: only from users
with write access, and only while the command's comment still exists."""

from __future__ import annotations

import logging
import re
from typing import Any

from github import GithubException
from markdown_it.token import Token

from app.github.comment_render import render_help
from app.github.sticky_comment import upsert_sticky
from app.handlers.corrections import record_feedback
from app.handlers.issues import handle_issue
from app.handlers.outcome import CommentChange, Done, Skipped
from app.handlers.pull_requests import handle_pull_request
from app.handlers.run_context import RunContext
from app.handlers.survivor_answers import record_not_useful
from spice_engine.markdown_parser import issue_markdown

log = logging.getLogger(__name__)
COMMAND = re.compile(
    r"^\s*/spice\s+(relabel|explain|help|feedback|not-useful)(?![\w-])(.*)$",
    re.MULTILINE | re.IGNORECASE,
)
MAX_COMMENT_CHARS = 65_536  # GitHub's own limit on a comment body
WRITE_PERMISSIONS = frozenset({"admin", "maintain", "write"})
ACK = "+1"


def parse_command(body: str) -> str | None:
    found = parse_command_line(body)
    return found[0] if found else None


def parse_command_line(body: str) -> tuple[str, str] | None:
    """The first `/spice <command>` at the start of a line of a top-level paragraph, and
    the rest of its line (a command's arguments).

    Code (fenced, indented, inline), quotes and lists only show a command: quoting
    someone's `/spice relabel` or documenting it in a code block must not run it.
    """
    if "/spice" not in (body or "").lower():
        return None  # most comments: no parse
    tokens = issue_markdown().parse(body[:MAX_COMMENT_CHARS])
    for token in tokens:
        if token.type == "inline" and token.level == 1 and _top_level_paragraph(tokens, token):
            match = COMMAND.search(token.content)
            if match:
                return match.group(1).lower(), match.group(2).strip()
    return None


def _top_level_paragraph(tokens: list[Token], inline: Token) -> bool:
    index = tokens.index(inline)
    return index > 0 and tokens[index - 1].type == "paragraph_open" and tokens[index - 1].level == 0


def may_command(ctx: RunContext, comment: dict[str, Any]) -> bool:
    """Whether the comment's author has write access (one API call)."""
    login = (comment.get("user") or {}).get("login")
    return bool(login) and ctx.repo.permission(str(login)) in WRITE_PERMISSIONS


def not_a_command(payload: dict[str, Any]) -> str | None:
    """The event table's pre-filter: most comments need no API call at all."""
    comment = payload.get("comment") or {}
    if (comment.get("user") or {}).get("type") == "Bot":
        return "comment by a bot"  # our own comments come back as events
    if parse_command(comment.get("body") or "") is None:
        return "no /spice command in the comment"
    return None


def handle_comment(ctx: RunContext, payload: dict[str, Any]) -> Done:
    """Run a maintainer's command; refuse (silently, logged) anyone without write access."""
    comment, issue = payload["comment"], payload["issue"]
    user = comment.get("user") or {}  # null: a deleted account, who may command nothing
    author = user.get("login")
    if not author:
        raise Skipped("comment by a deleted account")
    if author == ctx.bot or user.get("type") == "Bot":
        raise Skipped("comment by a bot")
    command = parse_command(comment.get("body") or "")
    if command is None:
        raise Skipped("no /spice command in the comment")
    if not ctx.repo.comment_exists(int(comment["id"])):
        # Taken back before the job ran (or before its retry): nothing left to answer.
        log.info("skipped /spice %s: comment %s was deleted", command, comment["id"])
        raise Skipped(f"the /spice {command} comment was deleted before the job ran")
    permission = ctx.repo.permission(author)
    if permission not in WRITE_PERMISSIONS:
        refused = f"refused /spice {command}: {author!r} has {permission!r} permission"
        log.info("%s", refused)
        raise Skipped(refused)
    number = int(issue["number"])
    reaction = None
    if not ctx.dry_run:
        try:
            ctx.repo.react_to_comment(int(comment["id"]), ACK)
        except GithubException as exc:
            if exc.status != 404:
                raise
            raise Skipped(f"the /spice {command} comment was deleted before the job ran") from exc
        reaction = ACK
    if command == "help":
        body = render_help(ctx.config.label_prefix)
        if ctx.dry_run:
            return ctx.done("help", number, comment=CommentChange(action="planned", body=body))
        done = upsert_sticky(ctx.repo, number, ctx.bot, "help", body, ctx.deps.retry_policy)
        change = CommentChange(action=done.action, id=done.comment_id)
        return ctx.done("help", number, comment=change, reaction=reaction)
    found = parse_command_line(comment.get("body") or "")
    if command == "feedback":
        result = record_feedback(ctx, number, author, found[1] if found else "")
    elif command == "not-useful":
        result = record_not_useful(ctx, number, author, found[1] if found else "")
    else:
        handler = handle_pull_request if issue.get("pull_request") else handle_issue
        result = handler(ctx, number, force=True, explain=command == "explain")
    return result.model_copy(update={"reaction": reaction})
