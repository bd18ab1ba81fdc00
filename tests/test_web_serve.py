"""`spice serve`: refuses without a secret; otherwise gunicorn serves the contract on 127.0.0.1."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.service.deliveries import SECRET, issue_payload, signed_headers

ROOT = Path(__file__).resolve().parents[1]
SPICE = str(Path(sys.executable).parent / "spice")


def env_for(data_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPICE_")}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    return env | {"SPICE_DATA_DIR": str(data_dir)} | extra


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_serve_refuses_without_a_secret(tmp_path: Path) -> None:
    done = subprocess.run(
        [SPICE, "serve", "--port", str(free_port())],
        cwd=ROOT,
        env=env_for(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert "SPICE_WEBHOOK_SECRET" in done.stderr


def test_serve_refuses_a_data_dir_too_long_for_the_intake_socket(tmp_path: Path) -> None:
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    done = subprocess.run(
        [SPICE, "serve", "--port", str(free_port())],
        cwd=ROOT,
        env=env_for(deep, SPICE_WEBHOOK_SECRET=SECRET.decode()),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert "too long for a Unix socket" in done.stderr and "SPICE_INTAKE_SOCKET" in done.stderr


def start_serve(data_dir: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [SPICE, "serve", "--host", "127.0.0.1", "--port", str(port), "--workers", "2"],
        cwd=ROOT,
        env=env_for(data_dir, SPICE_WEBHOOK_SECRET=SECRET.decode()),
        stdout=subprocess.DEVNULL,
        stderr=open(data_dir / "serve.log", "wb"),  # noqa: SIM115
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                return server, base
        except httpx.TransportError:
            pass
        assert server.poll() is None and time.monotonic() < deadline, "serve did not start"
        time.sleep(0.2)


def writer_pids(master: int) -> list[int]:
    """The intake writer(s) `spice serve` (gunicorn's master) started."""
    found = subprocess.run(
        ["pgrep", "-f", f"app.intake.writer --parent {master}"], capture_output=True, text=True
    )
    return [int(pid) for pid in found.stdout.split()]


def test_serve_answers_the_contract(tmp_path: Path) -> None:
    server, base = start_serve(tmp_path)
    try:
        body = json.dumps(issue_payload(11)).encode()
        headers = signed_headers(body, "issues", "serve-1")
        assert httpx.post(f"{base}/webhook", content=body, headers=headers).status_code == 202
        assert httpx.post(f"{base}/webhook", content=body, headers=headers).status_code == 200
        unsigned = {k: v for k, v in headers.items() if k != "X-Hub-Signature-256"}
        assert httpx.post(f"{base}/webhook", content=body, headers=unsigned).status_code == 401
        bad = signed_headers(b"{oops", "issues")
        assert httpx.post(f"{base}/webhook", content=b"{oops", headers=bad).status_code == 400
        ping = signed_headers(b"{}", "ping")
        assert httpx.post(f"{base}/webhook", content=b"{}", headers=ping).status_code == 200
        # Both workers' counters add up in /metrics (whichever worker answers the scrape).
        metrics = httpx.get(f"{base}/metrics").text
        assert 'spice_webhook_deliveries_total{event="issues",outcome="queued"} 1.0' in metrics
        assert 'spice_webhook_deliveries_total{event="issues",outcome="duplicate"} 1.0' in metrics
        assert 'spice_jobs{state="pending"} 1.0' in metrics
        # From the intake writer: one commit for the delivery, one that found it stored.
        assert "spice_intake_batch_size_count 2.0" in metrics
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    log = (tmp_path / "serve.log").read_text()
    assert "webhook queued delivery=serve-1 event=issues action=opened" in log
    assert SECRET.decode() not in log


def test_serve_restarts_a_killed_writer_and_loses_no_accepted_delivery(tmp_path: Path) -> None:
    server, base = start_serve(tmp_path)
    accepted: list[str] = []

    def deliver(n: int) -> int:
        body = json.dumps(issue_payload(100 + n)).encode()
        status = httpx.post(
            f"{base}/webhook", content=body, headers=signed_headers(body, "issues", f"k-{n}")
        ).status_code
        assert status in (202, 503), status  # stored, or refused so that GitHub redelivers
        if status == 202:
            accepted.append(f"k-{n}")
        return status

    try:
        (writer,) = writer_pids(server.pid)
        assert deliver(0) == 202
        os.kill(writer, signal.SIGKILL)
        statuses = [deliver(n) for n in range(1, 40)]
        deadline = time.monotonic() + 30
        while deliver(len(statuses) + 1) != 202:
            statuses.append(503)
            assert time.monotonic() < deadline, "no delivery stored after the writer was killed"
            time.sleep(0.1)
        (restarted,) = writer_pids(server.pid)
        assert restarted != writer
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    assert writer_pids(server.pid) == []  # stopped with the server, not orphaned
    with sqlite3.connect(tmp_path / "spice.db") as conn:
        stored = {row[0] for row in conn.execute("SELECT delivery_id FROM deliveries")}
    assert set(accepted) <= stored
    assert "intake writer exited" in (tmp_path / "serve.log").read_text()


def test_serve_refuses_absurd_worker_counts_and_ports_before_starting(tmp_path: Path) -> None:
    # 99,999,999 workers once forked until the machine swapped.
    for args in (["--workers", "99999999"], ["--workers", "0"], ["--port", "70000"]):
        done = subprocess.run(
            [SPICE, "serve", *args],
            cwd=ROOT,
            env=env_for(tmp_path) | {"SPICE_WEBHOOK_SECRET": "s3cret-value"},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 2, (args, done.stderr)
        assert "Invalid value" in done.stderr
