"""`spice serve`: refuses without a secret; otherwise gunicorn serves the contract on 127.0.0.1."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import psutil

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


def world_or_group_readable(data_dir: Path) -> list[str]:
    """Paths under the data directory that anyone but its owner could read."""
    paths = [data_dir, *data_dir.rglob("*")]
    return [str(p) for p in paths if p.lstat().st_mode & 0o077]


def test_serve_answers_the_contract(tmp_path: Path) -> None:
    tmp_path.chmod(0o755)  # as an earlier release left it
    (tmp_path / "legacy.db").write_bytes(b"payloads")
    (tmp_path / "legacy.db").chmod(0o644)
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
        # Payloads of private repositories are stored here: the owner alone may read them.
        assert (tmp_path / "spice.db").exists()
        assert world_or_group_readable(tmp_path) == []
        port = base.rsplit(":", 1)[1]
        check = [sys.executable, "-m", "app.healthcheck", "--role", "web", "--port", port]
        assert subprocess.run(check, cwd=ROOT, capture_output=True, timeout=30).returncode == 0
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    log = (tmp_path / "serve.log").read_text()
    assert "webhook queued delivery=serve-1 event=issues action=opened" in log
    assert SECRET.decode() not in log


def start_serve(data_dir: Path, port: int | None = None) -> tuple[subprocess.Popen[bytes], str]:
    port = port or free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [SPICE, "serve", "--host", "127.0.0.1", "--port", str(port), "--workers", "2"],
        cwd=ROOT,
        env=env_for(data_dir, SPICE_WEBHOOK_SECRET=SECRET.decode()),
        stdout=subprocess.DEVNULL,
        stderr=open(data_dir / "serve.log", "ab"),  # noqa: SIM115
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                return server, base
        except httpx.TransportError:
            pass
        assert server.poll() is None and time.monotonic() < deadline, "serve did not start"
        time.sleep(0.1)


def test_a_killed_master_leaves_no_worker_behind_and_serve_starts_again(tmp_path: Path) -> None:
    server, base = start_serve(tmp_path)
    port = int(base.rsplit(":", 1)[1])
    workers = psutil.Process(server.pid).children()
    assert len(workers) == 2
    server.send_signal(signal.SIGKILL)  # as the OOM killer would
    server.wait(timeout=10)
    # Told by the kernel that their master died, the workers close their sockets and exit.
    gone, alive = psutil.wait_procs(workers, timeout=10)
    assert alive == [] and len(gone) == 2
    # The port is free at once (no orphan holds it): the new master binds it on its first try
    # (gunicorn says "Connection in use" for each retry).
    again, _ = start_serve(tmp_path, port)
    try:
        assert "Connection in use" not in (tmp_path / "serve.log").read_text()
        assert {w.pid for w in psutil.Process(again.pid).children()}.isdisjoint(
            {w.pid for w in workers}
        )
        body = json.dumps(issue_payload(12)).encode()
        headers = signed_headers(body, "issues", "after-kill")
        assert httpx.post(f"{base}/webhook", content=body, headers=headers).status_code == 202
    finally:
        again.send_signal(signal.SIGTERM)
        again.wait(timeout=30)


def _stream_chunked(port: int, total: int, chunk: int) -> bytes:
    """An unsigned chunked POST of `total` bytes; what the server answered (b"" if none)."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(
            b"POST /webhook HTTP/1.1\r\nHost: x\r\nX-GitHub-Event: issues\r\n"
            b"Transfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n"
        )
        block = f"{chunk:x}\r\n".encode() + b"[" * chunk + b"\r\n"
        try:
            for _ in range(total // chunk):
                sock.sendall(block)
            sock.sendall(b"0\r\n\r\n")
        except OSError:
            pass  # the server answered and closed: what it answered is what counts
        try:
            return sock.recv(200)
        except OSError:
            return b""


def test_a_gigabyte_body_is_refused_with_the_worker_under_100_mb(tmp_path: Path) -> None:
    server, base = start_serve(tmp_path)
    port = int(base.rsplit(":", 1)[1])
    workers = psutil.Process(server.pid).children()
    idle = max(w.memory_info().rss for w in workers)
    own = max(w.memory_full_info().uss for w in workers)
    peak = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], *(w.memory_info().rss for w in workers if w.is_running()))
            time.sleep(0.02)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        answer = _stream_chunked(port, 1024**3, 1024**2)
        done.set()
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            # A client that goes away mid-body: one line at INFO, no traceback.
            sock.sendall(b"POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{")
        time.sleep(0.5)
    finally:
        done.set()
        sampler.join()
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    assert answer.startswith(b"HTTP/1.1 413"), answer
    grew = peak[0] - idle
    print(
        f"web worker: {idle / 2**20:.0f} MiB resident idle ({own / 2**20:.0f} MiB its own), "
        f"{grew / 2**20:.1f} MiB more at the peak of a 1 GiB body"
    )
    # What the body costs is bounded (a 1 MiB spool, then disk) whatever its size...
    assert grew < 16 * 1024**2, f"a 1 GiB body grew a web worker by {grew / 1e6:.0f} MB"
    # ...and the worker stays small: it enqueues, it loads no handler and no engine run. Its
    # own pages, then, as resident ones count the libraries every process on the host shares.
    assert own + grew < 100 * 1000**2, f"a web worker reached {(own + grew) / 1e6:.0f} MB"
    log = (tmp_path / "serve.log").read_text()
    assert "INFO app.web.webhook webhook client went away" in log
    assert "Traceback" not in log and "ERROR" not in log


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
