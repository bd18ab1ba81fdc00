"""The fields of a webhook body that routing reads, validated as GitHub describes them
(its number range, the `owner/name` shape): a signed payload is still input."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
import orjson

MAX_NUMBER = 2**31 - 1  # issue and PR numbers are GitHub Int (32-bit) values
MAX_ID = 2**63 - 1
Number = Annotated[int, msgspec.Meta(ge=1, le=MAX_NUMBER)]
Identifier = Annotated[int, msgspec.Meta(ge=1, le=MAX_ID)]
# GitHub owners: letters, digits, hyphens (39 max); names: letters, digits, `-._` (100 max).
FullName = Annotated[
    str, msgspec.Meta(pattern=r"^[A-Za-z0-9][A-Za-z0-9-]{0,38}/(?!\.\.?$)[A-Za-z0-9._-]{1,100}$")
]
Action = Annotated[str, msgspec.Meta(min_length=1, max_length=60, pattern=r"^[a-z_]+$")]


class MalformedBody(ValueError):
    """Not a JSON object: answered 400 before anything else is looked at."""


class InvalidPayload(ValueError):
    """A handled event whose payload lacks or mangles the fields every such event has."""


class Repo(msgspec.Struct):
    full_name: FullName


class Numbered(msgspec.Struct):
    number: Number


class Identified(msgspec.Struct):
    id: Identifier


class Label(msgspec.Struct):
    name: Annotated[str, msgspec.Meta(min_length=1, max_length=100)]


class PullRequest(msgspec.Struct):
    merged: bool | None = None


class Envelope(msgspec.Struct):
    """What routing reads of a handled event; which fields must be there depends on it."""

    action: Action | None = None
    repository: Repo | None = None
    issue: Numbered | None = None
    number: Number | None = None
    comment: Identified | None = None
    installation: Identified | None = None
    pull_request: PullRequest | None = None
    label: Label | None = None
    repositories_removed: list[Repo] | None = None
    repositories_added: list[Repo] | None = None


def parse_body(body: bytes) -> dict[str, Any]:
    """The body as a JSON object; strict UTF-8 and at most 1,024 levels deep (orjson)."""
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise MalformedBody(f"body is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise MalformedBody("expected a JSON object")
    return data
