"""A web worker's side of the intake writer: submit a delivery, await its stored outcome."""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path

from app.intake.contract import Intake, IntakeUnavailable
from app.intake.wire import FramedConnection, Outcome, Submission, frame, outcome_decoder
from app.store.deliveries import NewDelivery

SUBMIT_TIMEOUT_S = 8.0
"""Under GitHub's 10 s: a writer this slow is answered 503 and the delivery redelivered."""
CONNECT_TIMEOUT_S = 2.0


class _Channel(FramedConnection[Outcome]):
    """One connection; submissions written once per loop iteration, outcomes matched by seq.

    One watchdog per connection, not a timer per request (a tenth of the request's cost
    here): if the oldest unanswered submission is older than `timeout_s`, the writer is
    stuck or drowning, and the connection is dropped, failing everything it carried.
    """

    def __init__(self, timeout_s: float) -> None:
        super().__init__(outcome_decoder)
        self._waiting: dict[int, tuple[asyncio.Future[Intake], float]] = {}
        self._outgoing: list[bytes] = []
        self._seq = itertools.count()
        self._timeout_s = timeout_s
        self._watchdog: asyncio.TimerHandle | None = None
        self._failure = "intake writer connection lost"
        self.closed = False

    def submit(self, new: NewDelivery) -> asyncio.Future[Intake]:
        loop = asyncio.get_running_loop()
        seq = next(self._seq)
        future: asyncio.Future[Intake] = loop.create_future()
        self._waiting[seq] = (future, loop.time() + self._timeout_s)
        if not self._outgoing:
            loop.call_soon(self._send)
        if self._watchdog is None:
            self._watchdog = loop.call_later(self._sweep_every(), self._sweep)
        self._outgoing.append(frame(Submission(seq=seq, **dict(new))))
        return future

    def _sweep_every(self) -> float:
        return min(1.0, self._timeout_s / 4)

    def _sweep(self) -> None:
        self._watchdog = None
        if not self._waiting:
            return
        loop = asyncio.get_running_loop()
        _, oldest_deadline = next(iter(self._waiting.values()))  # seqs arrive in order
        if oldest_deadline <= loop.time() and self.transport is not None:
            self._failure = f"intake writer silent for {self._timeout_s:g} s"
            self.transport.close()
            return
        self._watchdog = loop.call_later(self._sweep_every(), self._sweep)

    def _send(self) -> None:
        outgoing, self._outgoing = self._outgoing, []
        self.send(outgoing)

    def received(self, messages: list[Outcome]) -> None:
        for outcome in messages:
            waiting = self._waiting.pop(outcome.seq, None)
            if waiting is None or waiting[0].done():  # its request went away
                continue
            future = waiting[0]
            if outcome.intake is None:
                future.set_exception(IntakeUnavailable(outcome.error or "not stored"))
            else:
                future.set_result(Intake(outcome.intake))

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.transport = None
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None
        # Stored or not, we cannot know: 503, and GitHub's redelivery is deduplicated.
        waiting, self._waiting = self._waiting, {}
        for future, _ in waiting.values():
            if not future.done():
                future.set_exception(IntakeUnavailable(self._failure))


class IntakeClient:
    """`DeliveryIntake` through the host's intake writer; reconnects after it restarts."""

    def __init__(self, socket_path: Path, submit_timeout_s: float = SUBMIT_TIMEOUT_S) -> None:
        self._path = socket_path
        self._timeout_s = submit_timeout_s
        self._channel: _Channel | None = None
        self._connecting: asyncio.Lock | None = None

    async def _connect(self) -> _Channel:
        if self._connecting is None:
            self._connecting = asyncio.Lock()
        async with self._connecting:
            if self._channel is None or self._channel.closed:
                loop = asyncio.get_running_loop()
                try:
                    async with asyncio.timeout(CONNECT_TIMEOUT_S):
                        _, channel = await loop.create_unix_connection(
                            lambda: _Channel(self._timeout_s), str(self._path)
                        )
                except (OSError, TimeoutError) as exc:
                    raise IntakeUnavailable(f"intake writer unreachable: {exc}") from exc
                self._channel = channel
            return self._channel

    async def submit(self, new: NewDelivery) -> Intake:
        channel = self._channel
        if channel is None or channel.closed:
            channel = await self._connect()
        return await channel.submit(new)

    async def ready(self) -> bool:
        try:
            await self._connect()
        except IntakeUnavailable:
            return False
        return True

    async def aclose(self) -> None:
        if self._channel is not None and self._channel.transport is not None:
            self._channel.transport.close()
        self._channel = None
