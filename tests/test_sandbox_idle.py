"""The idle limit of installs: a command that shows no sign of life (no output, no bytes through
the index proxy) for `idle_s` is stopped with that reason; one that keeps printing, or keeps
downloading quietly through the proxy from a real loopback index, is not; and a host the proxy
refuses fails the client at once, not at the idle limit."""

from __future__ import annotations

import http.server
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from spice_engine.validate.bubblewrap import Bubblewrap
from spice_engine.validate.index_access import IndexAccess
from spice_engine.validate.index_route import INDEX_QUIET, index_route
from spice_engine.validate.sandbox import FIXED_PATH, Limits, run_limited
from tests.test_sandbox_limits import _alive
from tests.validation_support import sandbox_fixture  # noqa: F401

TRICKLE_BYTES = 24
TRICKLE_EVERY_S = 0.25
"""The slow index sends a byte this often: 6 s in all, twice the idle limit the tests set."""
IDLE_S = 3.0

FETCH_THROUGH_SOCKET = """
import socket, sys
conn = socket.socket(socket.AF_UNIX)
conn.connect(sys.argv[1])
conn.sendall(("GET " + sys.argv[2] + " HTTP/1.1\\r\\n\\r\\n").encode())
got = b""
while True:
    chunk = conn.recv(65536)
    if not chunk:
        break
    got += chunk
print("fetched", got.split(b"\\r\\n\\r\\n", 1)[1].decode())
"""
"""A quiet downloader: asks the index proxy's socket itself, prints only at the end."""

FETCH_THROUGH_FORWARDER = """
import sys, urllib.request
print("fetched", urllib.request.urlopen(sys.argv[1], timeout=120).read().decode())
"""
"""The same inside the sandbox, through the proxy variables the forwarder sets."""


def test_a_command_that_falls_silent_is_stopped_with_the_reason() -> None:
    marker = f"spice-idle-{uuid.uuid4().hex}"
    script = f"echo started; python3 -c 'import time; time.sleep(120)' {marker}"
    done = run_limited(
        ["sh", "-c", script],
        env={"PATH": FIXED_PATH},
        timeout_s=120,
        limits=Limits(),
        idle_s=1,
    )
    assert done.killed == "no progress for 1 s (no output)" and not done.timed_out
    assert done.returncode is None
    assert done.log.startswith("started\n")
    assert done.log.endswith("[spice sandbox: killed, no progress for 1 s (no output)]\n")
    assert _alive(marker) == []


def test_a_command_that_keeps_printing_is_not() -> None:
    script = "for i in $(seq 24); do echo line $i; sleep 0.25; done"
    done = run_limited(
        ["sh", "-c", script],
        env={"PATH": FIXED_PATH},
        timeout_s=120,
        limits=Limits(),
        idle_s=IDLE_S,
    )
    assert done.killed is None and done.returncode == 0, done.log
    assert "line 24" in done.log


def test_without_an_idle_limit_silence_is_allowed() -> None:
    done = run_limited(
        ["sh", "-c", "sleep 2; echo done"], env={"PATH": FIXED_PATH}, timeout_s=60, limits=Limits()
    )
    assert done.killed is None and done.log == "done\n"


def test_the_sandbox_stops_a_silent_install_and_its_whole_tree(sandbox: Bubblewrap) -> None:
    marker = f"spice-idle-{uuid.uuid4().hex}"
    sleeper = f"python3 -c 'import time; time.sleep(300)' {marker}"
    script = f"echo resolving; (setsid {sleeper} &) ; {sleeper}"
    done = sandbox.run(
        ["sh", "-c", script], binds=[], cwd=Path("/"), env={}, timeout_s=120, idle_s=1
    )
    assert done.killed == "no progress for 1 s (no output)", done.log
    assert _alive(marker) == []


class _SlowIndex(http.server.BaseHTTPRequestHandler):
    """`/slow`: a byte every `TRICKLE_EVERY_S`; `/stalled`: the head, then nothing until the
    test ends."""

    release: ClassVar[threading.Event] = threading.Event()
    protocol_version = "HTTP/1.0"

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", str(TRICKLE_BYTES))
        self.end_headers()
        self.wfile.flush()
        if self.path == "/stalled":
            self.release.wait(120)
            return
        for _ in range(TRICKLE_BYTES):
            time.sleep(TRICKLE_EVERY_S)
            self.wfile.write(b"x")
            self.wfile.flush()

    def log_message(self, *args: object) -> None:
        return


@pytest.fixture
def slow_index() -> Iterator[str]:
    """A real index on the loopback, as an operator's plain-http mirror: its base URL."""
    _SlowIndex.release.clear()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _SlowIndex)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    _SlowIndex.release.set()
    server.shutdown()
    server.server_close()


def _access(base: str) -> IndexAccess:
    return IndexAccess.from_environ({"UV_INDEX_URL": f"{base}/simple"})


def _fetch(slow_index: str, path: str) -> tuple[Any, Any]:
    """`path` of the slow index fetched through a real index route, under the idle limit."""
    with index_route(_access(slow_index)) as route:
        argv = [sys.executable, "-I", "-c", FETCH_THROUGH_SOCKET, str(route.socket)]
        done = run_limited(
            [*argv, f"{slow_index}{path}"],
            env={"PATH": FIXED_PATH},
            timeout_s=120,
            limits=Limits(),
            idle_s=IDLE_S,
            progress=route.progress,
        )
    return done, route


def test_bytes_through_the_proxy_keep_a_quiet_download_alive(slow_index: str) -> None:
    done, route = _fetch(slow_index, "/slow")
    assert done.killed is None and done.returncode == 0, done.log
    assert done.log == f"fetched {'x' * TRICKLE_BYTES}\n"
    assert route.relayed > 0
    assert route.said == []  # progress is neither kept nor logged as the proxy's complaints


def test_a_download_that_stalls_is_stopped_saying_the_index_was_quiet(slow_index: str) -> None:
    done, _ = _fetch(slow_index, "/stalled")
    assert done.killed == f"no progress for {IDLE_S:g} s ({INDEX_QUIET})", done.log
    assert INDEX_QUIET == "no output, nothing from the package index"


@pytest.mark.parametrize(("path", "stopped"), [("/slow", False), ("/stalled", True)])
def test_in_the_sandbox_the_proxys_bytes_are_the_installs_sign_of_life(
    sandbox: Bubblewrap, slow_index: str, path: str, stopped: bool
) -> None:
    python = Path("/usr/bin/python3")
    if not python.exists():
        pytest.skip("no /usr/bin/python3 for the sandbox's forwarder")
    box = Bubblewrap(index=_access(slow_index))
    done = box.run(
        [str(python), "-I", "-c", FETCH_THROUGH_FORWARDER, f"{slow_index}{path}"],
        binds=[],
        cwd=Path("/"),
        env={},
        timeout_s=120,
        network=True,
        network_python=python,
        idle_s=IDLE_S,
    )
    if stopped:
        assert done.killed == f"no progress for {IDLE_S:g} s ({INDEX_QUIET})", done.log
    else:
        assert done.killed is None and done.returncode == 0, done.log
        assert f"fetched {'x' * TRICKLE_BYTES}" in done.log


FETCH_OR_SAY = """
import sys, urllib.error, urllib.request
try:
    urllib.request.urlopen(sys.argv[1], timeout=120)
except (urllib.error.URLError, OSError) as exc:
    print("failed:", getattr(exc, "reason", exc))
    sys.exit(1)
"""


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("https://registry.yarnpkg.com/left-pad", "Tunnel connection failed: 403 Forbidden"),
        ("http://repo.maven.example/org/x/1.0/x-1.0.pom", "failed: Forbidden"),
    ],
)
def test_a_host_the_proxy_refuses_fails_the_client_at_once(
    sandbox: Bubblewrap, url: str, said: str
) -> None:
    """Not killed: the client had its answer long before the idle limit (a minute here)."""
    python = Path("/usr/bin/python3")
    if not python.exists():
        pytest.skip("no /usr/bin/python3 for the sandbox's forwarder")
    done = Bubblewrap(index=IndexAccess()).run(
        [str(python), "-I", "-c", FETCH_OR_SAY, url],
        binds=[],
        cwd=Path("/"),
        env={},
        timeout_s=120,
        network=True,
        network_python=python,
        idle_s=60,
    )
    assert done.killed is None and done.returncode == 1, done.log
    assert said in done.log
    assert "[spice sandbox: index proxy refused " in done.log
    assert "is not a package index host]" in done.log
