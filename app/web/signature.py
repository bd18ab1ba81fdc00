"""GitHub's `X-Hub-Signature-256`: HMAC-SHA256 of the raw body, compared in constant time."""

from __future__ import annotations

import hashlib
import hmac

PREFIX = "sha256="


def sign(secret: bytes, body: bytes) -> str:
    """The header value GitHub sends for this body (tests and the benchmark sign with it)."""
    return PREFIX + hmac.new(secret, body, hashlib.sha256).hexdigest()


def signature_valid(secret: bytes, body: bytes, header: str | None) -> bool:
    return matches(sign(secret, body), header)


def matches(expected: str, header: str | None) -> bool:
    """Whether `header` is the `sign` value `expected`, compared in constant time."""
    if not header or not header.startswith(PREFIX):
        return False
    return hmac.compare_digest(expected.encode(), header.encode(errors="replace"))
