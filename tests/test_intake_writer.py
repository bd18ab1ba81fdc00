"""The intake writer over a real Unix socket: outcomes per delivery, failures answered, never lost."""

from __future__ import annotations

import asyncio
import base64
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from sqlalchemy import func, select

from app.intake.accept import store_each
from app.intake.client import IntakeClient
from app.intake.contract import Intake, IntakeUnavailable
from app.intake.supervisor import WriterSupervisor, socket_accepts
from app.intake.wire import MAX_FRAME_BYTES, FrameError, FrameReader, Outcome, frame
from app.intake.writer import IntakeWriter, Store, serve_socket
from app.store.deliveries import NewDelivery, delivery_body, get_delivery
from app.store.models import Delivery
from tests.service.settings import service_settings
from tests.service.stack import Stack, build_stack

ROOT = Path(__file__).resolve().parents[1]


def new(delivery_id: str, key: str) -> NewDelivery:
    return NewDelivery.received(
        delivery_id=delivery_id,
        event="issues",
        action="opened",
        repo="o/r",
        job_key=key,
        body=b'{"action": "opened", "n": "' + delivery_id.encode() + b'"}',
    )


def test_frames_survive_any_chunking_and_oversized_ones_are_refused() -> None:
    stream = b"".join(frame(Outcome(seq=i, intake="queued")) for i in range(50))
    reader = FrameReader()
    bodies: list[bytes] = []
    for start in range(0, len(stream), 7):
        bodies += reader.feed(stream[start : start + 7])
    assert len(bodies) == 50
    with pytest.raises(FrameError):
        FrameReader().feed((MAX_FRAME_BYTES + 1).to_bytes(4, "big") + b"x")


class _Writer:
    """A writer serving `socket_path` on the test's loop until closed: the stack's store, or
    the `store` given."""

    def __init__(self, stack: Stack, socket_path: Path, store: Store | None = None) -> None:
        self.stop = asyncio.Event()
        writer = IntakeWriter(
            store or (lambda batch: store_each(stack.sessions, batch)), stack.queue.enqueue_many
        )
        self.task = asyncio.create_task(serve_socket(writer, socket_path, self.stop))

    async def close(self) -> None:
        self.stop.set()
        await self.task


async def _listening(path: Path) -> None:
    for _ in range(200):
        if path.exists():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("writer socket never appeared")


def test_outcomes_come_back_per_delivery_and_each_is_stored_once(tmp_path: Path) -> None:
    stack = build_stack(service_settings(tmp_path))
    socket_path = tmp_path / "intake.sock"

    async def scenario() -> list[Intake]:
        writer = _Writer(stack, socket_path)
        await _listening(socket_path)
        clients = [IntakeClient(socket_path), IntakeClient(socket_path)]  # two web workers
        deliveries = [new(f"d{i % 30}", f"o/r#{i % 12}") for i in range(60)]
        try:
            return await asyncio.gather(
                *(clients[i % 2].submit(d) for i, d in enumerate(deliveries))
            )
        finally:
            for client in clients:
                await client.aclose()
            await writer.close()

    results = asyncio.run(scenario())
    assert results.count(Intake.duplicate) == 30
    assert results.count(Intake.queued) == 12
    assert results.count(Intake.coalesced) == 18
    with stack.sessions() as session:
        assert session.scalar(select(func.count()).select_from(Delivery)) == 30
    assert stack.queue.huey.pending_count() == 12
    assert not socket_path.exists()  # removed on the way out


def test_a_payload_near_githubs_cap_is_stored_whole_beside_small_ones(tmp_path: Path) -> None:
    # Random bytes do not compress: the frame is as long as the payload, many socket reads.
    stack = build_stack(service_settings(tmp_path))
    socket_path = tmp_path / "intake.sock"
    large_body = b'{"blob": "' + base64.b64encode(os.urandom(15 * 1024 * 1024)) + b'"}'
    large = NewDelivery.received(
        delivery_id="large",
        event="issues",
        action="opened",
        repo="o/r",
        job_key="o/r#1",
        body=large_body,
    )

    async def scenario() -> list[Intake]:
        writer = _Writer(stack, socket_path)
        await _listening(socket_path)
        client = IntakeClient(socket_path)
        try:
            return await asyncio.gather(
                client.submit(new("before", "o/r#2")),
                client.submit(large),
                client.submit(new("after", "o/r#3")),
            )
        finally:
            await client.aclose()
            await writer.close()

    assert len(large_body) > 20 * 1024 * 1024
    assert asyncio.run(scenario()) == [Intake.queued] * 3
    with stack.sessions() as session:
        stored = get_delivery(session, "large")
        assert stored is not None and delivery_body(stored) == large_body
        assert {d.delivery_id for d in session.scalars(select(Delivery))} == {
            "before",
            "large",
            "after",
        }


def test_a_delivery_the_store_refused_is_answered_unavailable_alone(tmp_path: Path) -> None:
    stack = build_stack(service_settings(tmp_path))
    socket_path = tmp_path / "intake.sock"

    def store(batch: Sequence[NewDelivery]) -> tuple[list[Intake | IntakeUnavailable], list[str]]:
        # A row PostgreSQL would refuse; the real store answers such a row like this.
        outcomes, ids = store_each(stack.sessions, [n for n in batch if n.delivery_id != "bad"])
        it = iter(outcomes)
        return [
            IntakeUnavailable("store failed: DataError") if n.delivery_id == "bad" else next(it)
            for n in batch
        ], ids

    async def scenario() -> list[Intake | BaseException]:
        writer = _Writer(stack, socket_path, store)
        await _listening(socket_path)
        client = IntakeClient(socket_path)
        try:
            return await asyncio.gather(
                client.submit(new("good", "o/r#1")),
                client.submit(new("bad", "o/r#2")),
                return_exceptions=True,
            )
        finally:
            await client.aclose()
            await writer.close()

    good, bad = asyncio.run(scenario())
    assert good == Intake.queued
    assert isinstance(bad, IntakeUnavailable) and "DataError" in str(bad)


def test_a_writer_leaving_does_not_remove_the_socket_of_one_that_took_over(
    tmp_path: Path,
) -> None:
    stack = build_stack(service_settings(tmp_path))
    socket_path = tmp_path / "intake.sock"

    async def scenario() -> Intake:
        old = _Writer(stack, socket_path)
        await _listening(socket_path)
        replaced = socket_path.stat().st_ino
        new_writer = _Writer(stack, socket_path)  # a second server on the same data dir
        for _ in range(200):
            if socket_path.exists() and socket_path.stat().st_ino != replaced:
                break
            await asyncio.sleep(0.01)
        await old.close()
        assert socket_path.exists()
        client = IntakeClient(socket_path)
        outcome = await client.submit(new("after", "o/r#1"))
        await client.aclose()
        await new_writer.close()
        return outcome

    assert asyncio.run(scenario()) == Intake.queued
    assert not socket_path.exists()


def test_a_store_that_fails_outright_answers_every_waiting_worker(tmp_path: Path) -> None:
    stack = build_stack(service_settings(tmp_path))
    socket_path = tmp_path / "intake.sock"

    def broken(_batch: Sequence[NewDelivery]) -> tuple[list[Intake | IntakeUnavailable], list[str]]:
        raise OSError("write lock file is gone")

    async def scenario() -> list[Intake | BaseException]:
        writer = _Writer(stack, socket_path, broken)
        await _listening(socket_path)
        client = IntakeClient(socket_path, submit_timeout_s=30)
        try:
            return await asyncio.wait_for(
                asyncio.gather(
                    *(client.submit(new(f"x{i}", f"o/r#{i}")) for i in range(3)),
                    return_exceptions=True,
                ),
                timeout=5,  # answered at once, long before the client's own timeout
            )
        finally:
            await client.aclose()
            await writer.close()

    outcomes = asyncio.run(scenario())
    assert all(isinstance(o, IntakeUnavailable) and "lock file" in str(o) for o in outcomes)


def test_a_missing_silent_or_vanished_writer_is_unavailable_then_recovered(
    tmp_path: Path,
) -> None:
    stack = build_stack(service_settings(tmp_path))
    socket_path = tmp_path / "intake.sock"

    async def scenario() -> None:
        client = IntakeClient(socket_path, submit_timeout_s=0.3)
        with pytest.raises(IntakeUnavailable, match="unreachable"):
            await client.submit(new("early", "o/r#1"))

        # A writer that reads and never answers: the request gives up in time.
        async def swallow(reader: asyncio.StreamReader, _w: asyncio.StreamWriter) -> None:
            while await reader.read(65536):
                pass

        mute = await asyncio.start_unix_server(swallow, str(socket_path))
        with pytest.raises(IntakeUnavailable, match="silent"):
            await client.submit(new("muted", "o/r#1"))
        mute.close()
        await mute.wait_closed()
        socket_path.unlink()

        writer = _Writer(stack, socket_path)
        await _listening(socket_path)
        assert await client.submit(new("later", "o/r#1")) == Intake.queued
        await writer.close()  # the writer goes away under a connected client
        with pytest.raises(IntakeUnavailable):
            await client.submit(new("orphan", "o/r#2"))
        writer = _Writer(stack, socket_path)
        await _listening(socket_path)
        assert await client.submit(new("again", "o/r#3")) == Intake.queued
        await client.aclose()
        await writer.close()

    asyncio.run(scenario())
    with stack.sessions() as session:
        ids = set(session.scalars(select(Delivery.delivery_id)))
    assert {"later", "again"} <= ids and "early" not in ids


def test_garbage_on_one_connection_closes_it_and_the_others_go_on(tmp_path: Path) -> None:
    stack = build_stack(service_settings(tmp_path))
    socket_path = tmp_path / "intake.sock"

    async def scenario() -> tuple[bytes, Intake]:
        writer = _Writer(stack, socket_path)
        await _listening(socket_path)
        reader, raw = await asyncio.open_unix_connection(str(socket_path))
        raw.write((5).to_bytes(4, "big") + b"\xc1junk")  # 0xc1 is never valid msgpack
        closed = await asyncio.wait_for(reader.read(), timeout=5)
        raw.close()
        client = IntakeClient(socket_path)
        outcome = await client.submit(new("fine", "o/r#1"))
        await client.aclose()
        await writer.close()
        return closed, outcome

    closed, outcome = asyncio.run(scenario())
    assert closed == b"" and outcome == Intake.queued


def test_supervisor_restarts_a_killed_writer_and_stops_it(tmp_path: Path) -> None:
    socket_path = tmp_path / "intake.sock"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPICE_")}
    env |= {
        "SPICE_DATA_DIR": str(tmp_path),
        "SPICE_INTAKE_SOCKET": str(socket_path),
        "PYTHONPATH": str(ROOT),
    }
    build_stack(service_settings(tmp_path))  # the schema, as `spice serve` migrates first
    supervisor = WriterSupervisor(socket_path, env=env)
    supervisor.start()
    try:
        first = supervisor.pid
        assert first is not None and socket_accepts(socket_path)
        os.kill(first, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while supervisor.restarts < 1:
            assert time.monotonic() < deadline, "writer was not restarted"
            time.sleep(0.05)
        assert supervisor.pid != first and socket_accepts(socket_path)
    finally:
        supervisor.stop()
    second = supervisor.pid
    assert second is not None
    with pytest.raises(ProcessLookupError):
        os.kill(second, 0)
    assert not socket_path.exists()


def test_the_writer_exits_when_its_supervisor_is_gone(tmp_path: Path) -> None:
    """A SIGKILLed gunicorn master must not leave an orphan writer holding the store."""
    socket_path = tmp_path / "intake.sock"
    build_stack(service_settings(tmp_path))
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPICE_")}
    env |= {"SPICE_DATA_DIR": str(tmp_path), "SPICE_INTAKE_SOCKET": str(socket_path)}
    # A middle process that starts the writer, reports its pid, and dies without a word.
    middle = subprocess.run(
        [
            sys.executable,
            "-c",
            "import os, subprocess, sys; p = subprocess.Popen([sys.executable, '-m', "
            "'app.intake.writer', '--parent', str(os.getpid())], "
            "stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); print(p.pid)",
        ],
        cwd=ROOT,
        env=env | {"PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    stat = Path(f"/proc/{int(middle.stdout)}/stat")
    deadline = time.monotonic() + 30
    # Gone, or a zombie waiting for whoever adopted it to reap it: either way, not serving.
    while stat.exists() and stat.read_text().rsplit(")", 1)[1].split()[0] != "Z":
        assert time.monotonic() < deadline, "orphaned writer kept running"
        time.sleep(0.1)
