"""A person changing a label of our families on an item we assessed: their final label of
that family is stored as the human label ours is measured by (`spice eval --from-store`)."""

from __future__ import annotations

from typing import Any

from app.handlers.outcome import Done, Skipped
from app.handlers.run_context import RunContext
from app.redaction import redacted_excerpt
from spice_engine.dimensions import REGISTRY


def dimension_of_label(name: str, prefix: str) -> tuple[str, int] | None:
    """(dimension, score) of one of our labels; None for anyone else's."""
    for dim in REGISTRY:
        for score, level in enumerate(dim.levels):
            if level.label is not None and prefix + level.label == name:
                return dim.key, score
    return None


def feedback_value(args: str) -> tuple[str, int] | None:
    """`DIMENSION VALUE` of `/spice feedback`: VALUE a score, a value name or a label name."""
    key, _, value = args.strip().partition(" ")
    value = value.strip().lower()
    for dim in REGISTRY:
        if dim.key != key.strip().lower():
            continue
        for score, level in enumerate(dim.levels):
            if value in (str(score), level.name.lower(), (level.label or "").lower()):
                return dim.key, score
    return None


def record_feedback(ctx: RunContext, number: int, login: str, args: str) -> Done:
    """`/spice feedback DIMENSION VALUE` by someone with write access: a human label."""
    given = feedback_value(args)
    if given is None:
        shown = redacted_excerpt(args, head=80, secrets=ctx.deps.secrets(), marker="")
        raise Skipped(f"feedback not understood: {shown!r} (see /spice help)")
    if ctx.deps.record_human_label is None:
        raise Skipped("no store of results to keep feedback in")
    if not ctx.deps.record_human_label(ctx.repo.full_name, number, given[0], given[1], login):
        raise Skipped("an item we never assessed")
    return ctx.done("feedback", number)


def could_be_ours(name: str) -> bool:
    """Whether a label, under some repository's prefix, may be ours (decided without a call)."""
    return any(
        level.label is not None and name.endswith(level.label)
        for dim in REGISTRY
        for level in dim.levels
    )


def from_a_person(payload: dict[str, Any], bot: str | None = None) -> bool:
    sender = payload.get("sender") or {}
    return sender.get("type") != "Bot" and (bot is None or sender.get("login") != bot)


def not_a_correction(payload: dict[str, Any]) -> str | None:
    """The event table's pre-filter: our own label writes come back as events."""
    if not from_a_person(payload):
        return "label changed by a bot"
    if not could_be_ours(str((payload.get("label") or {}).get("name"))):
        return "not a label of ours"
    return None


def handle_label_change(ctx: RunContext, payload: dict[str, Any]) -> Done:
    if not from_a_person(payload, ctx.bot):
        raise Skipped("label changed by a bot")
    prefix = ctx.config.label_prefix
    changed = dimension_of_label(str((payload.get("label") or {}).get("name") or ""), prefix)
    if changed is None:
        raise Skipped("not a label of ours")
    record = ctx.deps.record_human_label
    if record is None:
        raise Skipped("no store of results to keep corrections in")
    dimension = changed[0]
    item = payload.get("issue") or payload.get("pull_request") or {}
    left = [dimension_of_label(str(lb.get("name")), prefix) for lb in item.get("labels") or []]
    human = next((found[1] for found in left if found and found[0] == dimension), None)
    login = str((payload.get("sender") or {}).get("login") or "")
    if not record(ctx.repo.full_name, ctx.number, dimension, human, login):
        raise Skipped("an item we never assessed")
    return ctx.done("feedback")
