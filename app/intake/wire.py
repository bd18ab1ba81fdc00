"""The intake writer's wire format: length-prefixed msgpack frames over a Unix socket."""

from __future__ import annotations

import asyncio
import logging
import struct
from typing import Generic, TypeVar, cast

import msgspec

log = logging.getLogger("app.intake.wire")

HEADER = struct.Struct("!I")
MAX_FRAME_BYTES = 32 * 1024 * 1024
"""Above GitHub's 25 MB payload cap plus the fields around it: anything longer is garbage."""


class Submission(msgspec.Struct, array_like=True):
    seq: int
    delivery_id: str
    event: str
    action: str | None
    repo: str | None
    job_key: str
    payload: bytes
    payload_codec: str | None
    payload_sha256: str


DELIVERY_FIELDS = tuple(name for name in Submission.__struct_fields__ if name != "seq")
"""A submission is a `NewDelivery` (these fields) and its sequence number."""


class Outcome(msgspec.Struct, array_like=True):
    seq: int
    intake: str | None
    """An `Intake` value; None with `error` when the delivery was not stored."""
    error: str | None = None


class FrameError(ValueError):
    """The peer sent something that is not a frame of this protocol."""


_encoder = msgspec.msgpack.Encoder()


def frame(message: Submission | Outcome) -> bytes:
    body = _encoder.encode(message)
    return HEADER.pack(len(body)) + body


class FrameReader:
    """Splits a byte stream into frame bodies, however the stream was chunked."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
        self._buffer += data
        frames: list[bytes] = []
        start = 0
        buffer = self._buffer
        while len(buffer) - start >= HEADER.size:
            (length,) = HEADER.unpack_from(buffer, start)
            if length > MAX_FRAME_BYTES:
                raise FrameError(f"frame of {length} bytes exceeds {MAX_FRAME_BYTES}")
            end = start + HEADER.size + length
            if len(buffer) < end:
                break
            frames.append(bytes(buffer[start + HEADER.size : end]))
            start = end
        del buffer[:start]
        return frames


submission_decoder = msgspec.msgpack.Decoder(Submission)
outcome_decoder = msgspec.msgpack.Decoder(Outcome)


M = TypeVar("M", Submission, Outcome)


class FramedConnection(asyncio.Protocol, Generic[M]):
    """One end of an intake connection: frames of one message type in, frames out.

    A peer that sends anything else is not speaking this protocol: the connection closes.
    """

    def __init__(self, decoder: msgspec.msgpack.Decoder[M]) -> None:
        self._decoder: msgspec.msgpack.Decoder[M] = decoder
        self._reader = FrameReader()
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports implement asyncio.Transport without subclassing it.
        self.transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        try:
            messages = [self._decoder.decode(body) for body in self._reader.feed(data)]
        except (FrameError, msgspec.DecodeError) as exc:
            log.error("intake connection closed, not this protocol: %s", exc)
            assert self.transport is not None
            self.transport.close()
            return
        self.received(messages)

    def received(self, messages: list[M]) -> None:
        raise NotImplementedError

    def send(self, frames: list[bytes]) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.writelines(frames)
