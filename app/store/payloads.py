"""Delivery payloads as stored: LZ4 frames, or nothing once the retention period is over.

GitHub's payloads are mostly repeated URL templates (4.9x smaller as LZ4 over the 20 real
ones in ../shared/data/webhooks); LZ4 compresses a 20 KB payload in ~17 us.
"""

from __future__ import annotations

import hashlib
from enum import StrEnum

import lz4.frame


class PayloadCodec(StrEnum):
    lz4 = "lz4"
    pruned = "pruned"
    """Dropped after the retention period (app.store.retention); the row and hash stay."""


class CorruptPayload(ValueError):
    """A stored payload that does not decode to the bytes it was stored from."""


class PrunedPayload(LookupError):
    """The payload was dropped after the retention period; a redelivery brings it back."""


def pack(raw: bytes) -> tuple[bytes, PayloadCodec]:
    return lz4.frame.compress(raw), PayloadCodec.lz4


def unpack(stored: bytes, codec: str | None, sha256: str | None = None) -> bytes:
    """The payload as received; `codec` None for rows stored before compression."""
    if codec == PayloadCodec.pruned:
        raise PrunedPayload("the payload was pruned after the retention period")
    if codec is None:
        raw = stored
    elif codec == PayloadCodec.lz4:
        try:
            raw = lz4.frame.decompress(stored)
        except RuntimeError as exc:  # lz4 reports a damaged frame as RuntimeError
            raise CorruptPayload(f"stored payload is not a valid LZ4 frame: {exc}") from exc
    else:
        raise CorruptPayload(f"unknown payload codec {codec!r}")
    if sha256 is not None and hashlib.sha256(raw).hexdigest() != sha256:
        raise CorruptPayload("stored payload does not match its SHA-256")
    return raw
