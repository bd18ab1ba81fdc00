"""The index proxy on its own, asked over its unix socket as the sandbox's forwarder asks it,
in front of real loopback servers: what the worker's settings allow, which addresses are
refused, chaining through the worker's own proxy, an operator's plain-http index, and a proxy
process that ends with its route."""

from __future__ import annotations

import http.server
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest

from spice_engine.validate.executor import RunResult
from spice_engine.validate.index_access import (
    IndexAccess,
    IndexSettingError,
    refused_address,
)
from spice_engine.validate.index_proxy import SAY_LIMIT
from spice_engine.validate.index_route import SAID_LIMIT, index_route


def ask(sock: Path, request: bytes) -> bytes:
    """`request` to the proxy, and everything it answers until it closes."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(20)
        conn.connect(str(sock))
        conn.sendall(request)
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
        return answer


def test_the_workers_settings_name_hosts_every_install_reaches() -> None:
    access = IndexAccess.from_environ(
        {
            "UV_INDEX_URL": "https://user:secret@Mirror.Corp.example:8443/simple",
            "UV_INDEX": "internal=http://10.0.0.5:3141/root/pypi https://other.example/simple",
            "UV_EXTRA_INDEX_URL": "/srv/wheels https://extra.example/simple",
            "HTTPS_PROXY": "proxy.corp.example:3128",
            "no_proxy": ".corp.example,10.0.0.0/8",
        }
    )
    assert access.https == {"mirror.corp.example:8443", "other.example:443", "extra.example:443"}
    assert access.http == {"10.0.0.5:3141"}
    assert "mirror.corp.example" in access.named
    assert not access.allows("https", "pypi.org", 443)  # no language's registry of itself
    python = access.reaching(["pypi.org:443", "files.pythonhosted.org:443"])
    assert python.https == access.https | {"pypi.org:443", "files.pythonhosted.org:443"}
    assert "pypi.org" not in python.named  # a public registry: never at a private address
    assert python.allows("https", "PyPI.org.", 443) and not python.allows("https", "pypi.org", 80)
    assert not python.allows("http", "pypi.org", 443)
    assert not python.allows("https", "registry.npmjs.org", 443)
    assert access.upstream("https", "pypi.org") == "http://proxy.corp.example:3128"
    assert access.upstream("https", "mirror.corp.example") is None  # NO_PROXY: a domain
    assert access.upstream("http", "10.0.0.5") is None  # no http proxy set


def test_a_registry_without_its_port_is_refused_as_a_mistake() -> None:
    with pytest.raises(ValueError, match=r"not 'pypi\.org'"):
        IndexAccess().reaching(["pypi.org"])


def test_a_proxy_it_cannot_chain_through_is_said() -> None:
    with pytest.raises(IndexSettingError, match="http:// proxy, not socks5://"):
        IndexAccess.from_environ({"HTTPS_PROXY": "socks5://127.0.0.1:1080"})


@pytest.mark.parametrize(
    "address",
    [
        "169.254.169.254",
        "10.1.2.3",
        "172.17.0.1",
        "192.168.1.1",
        "100.64.0.1",
        "100.100.100.200",
        "127.0.0.1",
        "0.0.0.0",
        "224.0.0.1",
        "255.255.255.255",
        "::1",
        "::",
        "fe80::1%eth0",
        "fd00::1",
        "ff02::1",
        "::ffff:169.254.169.254",
        "64:ff9b::a9fe:a9fe",
    ],
)
def test_the_machines_own_networks_are_refused(address: str) -> None:
    assert refused_address(address) is not None


@pytest.mark.parametrize("address", ["151.101.0.223", "2a04:4e42::223", "203.0.113.80"])
def test_public_addresses_are_not(address: str) -> None:
    """(203.0.113.0/24 is for documentation, and what some networks' DNS answers for PyPI.)"""
    assert refused_address(address) is None


class _Upstream(threading.Thread):
    """The worker's own proxy: takes one CONNECT, says yes, then echoes the tunnel's bytes."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.head = b""
        self.start()

    def run(self) -> None:
        conn, _ = self.sock.accept()
        with conn:
            while b"\r\n\r\n" not in self.head:
                self.head += conn.recv(4096)
            conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            while data := conn.recv(4096):
                conn.sendall(data)
                conn.shutdown(socket.SHUT_WR)


def test_tunnels_go_through_the_workers_proxy_with_its_credentials() -> None:
    """`.invalid` never resolves: a worker without DNS of its own leaves that to its proxy."""
    upstream = _Upstream()
    access = IndexAccess(
        https=frozenset({"index.invalid:443"}),
        https_proxy=f"http://spice:p%40ss@127.0.0.1:{upstream.port}",
    )
    with index_route(access) as route:
        answer = ask(route.socket, b"CONNECT index.invalid:443 HTTP/1.1\r\n\r\nhello")
    assert answer == b"HTTP/1.1 200 Connection established\r\n\r\nhello"
    assert upstream.head.startswith(b"CONNECT index.invalid:443 HTTP/1.1\r\n")
    assert b"Proxy-Authorization: Basic c3BpY2U6cEBzcw==\r\n" in upstream.head  # spice:p@ss
    assert route.refused() == []


class _Index(http.server.BaseHTTPRequestHandler):
    seen: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.seen.append(str(self.headers))
        body = b"six index\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        return


@pytest.fixture
def http_index() -> Iterator[int]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Index)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def test_an_operators_plain_http_index_is_served_and_nothing_else(http_index: int) -> None:
    access = IndexAccess.from_environ({"UV_INDEX_URL": f"http://127.0.0.1:{http_index}/simple"})
    url = f"http://127.0.0.1:{http_index}/simple/six/"
    with index_route(access) as route:
        got = ask(
            route.socket,
            f"GET {url} HTTP/1.1\r\nHost: elsewhere\r\nProxy-Authorization: x\r\n\r\n".encode(),
        )
        posted = ask(route.socket, f"POST {url} HTTP/1.1\r\n\r\n".encode())
        other = ask(route.socket, b"GET http://localhost:9/simple/ HTTP/1.1\r\n\r\n")
        junk = ask(route.socket, b"\x16\x03\x01 not http\r\n\r\n")
    assert got.startswith(b"HTTP/1.0 200 OK") and got.endswith(b"six index\n")
    [headers] = _Index.seen
    assert f"Host: 127.0.0.1:{http_index}" in headers and "Proxy-Authorization" not in headers
    assert "Connection: close" in headers
    assert posted.startswith(b"HTTP/1.1 405 ")
    assert other.startswith(b"HTTP/1.1 403 Forbidden")
    assert junk.startswith(b"HTTP/1.1 400 ")
    assert len(route.refused()) == 3


@pytest.mark.parametrize(
    ("request_line", "refused"),
    [
        ("CONNECT registry.yarnpkg.com:443", "registry.yarnpkg.com:443"),
        ("GET http://repo.maven.example/org/x/1.0/x-1.0.pom", "repo.maven.example:80"),
    ],
)
def test_a_refused_host_gets_a_final_answer_naming_it(request_line: str, refused: str) -> None:
    """A 403 (npm, cargo and maven retry a 5xx or a dropped connection for minutes, not a 4xx)
    with one line naming the host, then the proxy closes (`ask` reads until it does)."""
    why = f"{refused} is not a package index host"
    with index_route(IndexAccess()) as route:
        answer = ask(route.socket, f"{request_line} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    head, body = answer.split(b"\r\n\r\n", 1)
    lines = head.decode().split("\r\n")
    assert lines[0] == "HTTP/1.1 403 Forbidden" and "Connection: close" in lines
    assert body == f"spice index proxy: {why}\n".encode()
    assert route.refused() == [f"refused {request_line} HTTP/1.1: {why}"]


def test_a_flood_of_refused_requests_is_counted_not_kept() -> None:
    with index_route(IndexAccess()) as route:
        for n in range(SAID_LIMIT + 50):
            ask(
                route.socket,
                f"CONNECT \x1b[2J{'x' * 2000}{n}.example:443 HTTP/1.1\r\n\r\n".encode(),
            )
    assert len(route.refused()) == SAID_LIMIT and route.unsaid == 50
    assert all(len(line) <= SAY_LIMIT and "\x1b" not in line for line in route.said)
    noted = route.noted(RunResult(log="", returncode=1, seconds=0.0)).log
    assert noted.endswith("[spice sandbox: index proxy: 50 more lines not kept]\n")


def test_the_proxy_process_ends_with_its_route() -> None:
    with index_route(IndexAccess()) as route:
        where = str(route.socket)
        assert _processes_naming(where)
    assert _processes_naming(where) == []
    assert not route.socket.parent.exists()


def _processes_naming(text: str) -> list[str]:
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if text.encode() in (proc / "cmdline").read_bytes():
                found.append(proc.name)
        except OSError:
            continue
    return found
