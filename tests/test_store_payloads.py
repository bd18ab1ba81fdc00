"""Stored payloads: LZ4 round trip, rows from before compression, damage found, not passed on."""

from __future__ import annotations

import hashlib

import pytest

from app.store.payloads import CorruptPayload, pack, unpack


def test_round_trip_and_rows_stored_before_compression() -> None:
    raw = b'{"action": "opened", "issue": {"body": "' + b"x" * 5000 + b'"}}'
    stored, codec = pack(raw)
    assert len(stored) < len(raw) / 10
    assert unpack(stored, codec, hashlib.sha256(raw).hexdigest()) == raw
    assert unpack(raw, None, hashlib.sha256(raw).hexdigest()) == raw


def test_damage_is_reported() -> None:
    raw = b'{"action": "opened"}' * 50
    stored, codec = pack(raw)
    with pytest.raises(CorruptPayload, match="not a valid LZ4 frame"):
        unpack(stored[:-7] + b"garbage", codec)
    with pytest.raises(CorruptPayload, match="SHA-256"):
        unpack(stored, codec, hashlib.sha256(b"something else").hexdigest())
    with pytest.raises(CorruptPayload, match="unknown payload codec"):
        unpack(stored, "zstd")
