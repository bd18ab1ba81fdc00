"""The index proxy: an HTTP proxy on a unix socket that reaches the package index and nothing else.

One process per sandboxed install (spice_engine.validate.index_route starts it, outside the
sandbox): it reads its `IndexAccess` as one JSON line on stdin, says `ready` on stdout once it
listens, writes a line on stderr per tunnel and per refusal (and `progress N`, the bytes
relayed so far, at most once a second while bytes move: the install's sign of life), and ends
when its stdin closes.
It takes `CONNECT host:port` (TLS stays end to end) and, for an operator's http index, a plain
`GET`; each only to a host and port `IndexAccess` allows, at addresses it resolved and checked
itself, directly or through the worker's own proxy.
"""

from __future__ import annotations

import asyncio
import base64
import socket
import sys
import time
from pathlib import Path
from urllib.parse import unquote, urlsplit

from spice_engine.validate.index_access import IndexAccess, refused_address

HEAD_LIMIT = 1 << 16
HEAD_TIMEOUT_S = 30.0
CONNECT_TIMEOUT_S = 30.0
SAY_LIMIT = 500
PROGRESS_EVERY_S = 1.0
_HOP_BY_HOP = {
    "connection",
    "keep-alive",
    "proxy-authorization",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
}
"""Request headers not passed on with a plain GET (the proxy writes its own `Host`)."""

_REASONS = {400: "Bad Request", 403: "Forbidden", 405: "Method Not Allowed", 502: "Bad Gateway"}

Streams = tuple[asyncio.StreamReader, asyncio.StreamWriter]


class Refused(Exception):
    """A request the proxy answers itself, with `status` and why."""

    def __init__(self, status: int, why: str) -> None:
        super().__init__(why)
        self.status, self.why = status, why


class Meter:
    """Bytes relayed, said as `progress N` at most every `PROGRESS_EVERY_S` while they move:
    a line per read would cost a write per 64 KiB, and the worker needs only to know they do."""

    def __init__(self) -> None:
        self.relayed = 0
        self._said_at = -float("inf")

    def add(self, count: int) -> None:
        self.relayed += count
        now = time.monotonic()
        if now - self._said_at >= PROGRESS_EVERY_S:
            self._said_at = now
            _say(f"progress {self.relayed}")


class IndexProxy:
    """Serves one sandboxed command's connections."""

    def __init__(self, access: IndexAccess) -> None:
        self.access = access
        self.meter = Meter()

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await self._serve(reader, writer)
        except asyncio.CancelledError:
            # The command's run is over and the loop is closing: a connection still being
            # opened has no one left to serve (asyncio would print each as a traceback).
            writer.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        request = "request"
        try:
            try:
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), HEAD_TIMEOUT_S)
            except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
                return
            lines = head.decode("latin-1").split("\r\n")
            request = lines[0]
            method, target, scheme, host, port = _destination(request)
            upstream, chained = await self._open(scheme, host, port)
        except Refused as exc:
            _say(f"refused {request}: {exc.why}")
            body = f"spice index proxy: {exc.why}\n".encode()
            writer.write(
                f"HTTP/1.1 {exc.status} {_REASONS[exc.status]}\r\nContent-Type: text/plain\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
                + body
            )
            await _close(writer)
            return
        _say(f"tunnel {request}" + (" (through the worker's proxy)" if chained else ""))
        if method == "CONNECT":
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            await _relay((reader, writer), upstream, self.meter)
            return
        # A plain GET: one request per connection, its answer back, then both close.
        upstream[1].write(_plain_head(method, target, lines[1:], host, port, chained))
        await _relay((reader, writer), upstream, self.meter, client_sends=False)

    async def _open(self, scheme: str, host: str, port: int) -> tuple[Streams, str | None]:
        """A connection towards `host:port` (through the worker's proxy: the proxy's URL)."""
        if not self.access.allows(scheme, host, port):
            raise Refused(403, f"{host}:{port} is not a package index host")
        proxy = self.access.upstream(scheme, host)
        loop = asyncio.get_running_loop()
        try:
            found = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except socket.gaierror as exc:
            if proxy is None:
                raise Refused(502, f"{host} does not resolve here ({exc.strerror})") from exc
            found = []  # the worker's proxy resolves it (this host may have no DNS of its own)
        addresses = list(dict.fromkeys(str(info[4][0]) for info in found))
        if host.strip("[]").rstrip(".").lower() not in self.access.named:
            for address in addresses:
                if why := refused_address(address):
                    raise Refused(403, f"{host} resolves to {address}, {why}")
        if proxy is not None:
            return await _through(proxy, scheme, host, port), proxy
        for address in addresses:  # the checked addresses, not the name again
            try:
                return await _connect(address, port), None
            except OSError:
                continue
        raise Refused(502, f"cannot connect to {host}:{port}")


def _destination(request: str) -> tuple[str, str, str, str, int]:
    """(method, target, scheme, host, port) of a request line this proxy serves."""
    words = request.split(" ")
    if len(words) != 3 or not words[2].startswith("HTTP/1."):
        raise Refused(400, "not an HTTP/1 request")
    method, target, _ = words
    try:
        if method == "CONNECT":
            parts = urlsplit(f"//{target}")
            if parts.hostname and parts.port:
                return method, target, "https", parts.hostname, parts.port
        elif method in ("GET", "HEAD") and target.lower().startswith("http://"):
            parts = urlsplit(target)
            if parts.hostname:
                return method, target, "http", parts.hostname, parts.port or 80
    except ValueError:
        pass
    raise Refused(405, "only CONNECT host:port, or GET of an http index, is served")


async def _connect(host: str, port: int) -> Streams:
    return await asyncio.wait_for(asyncio.open_connection(host, port), CONNECT_TIMEOUT_S)


async def _through(proxy: str, scheme: str, host: str, port: int) -> Streams:
    """A connection through the worker's proxy: a tunnel for https, the proxy itself for http."""
    parts = urlsplit(proxy)
    try:
        reader, writer = await _connect(parts.hostname or "", parts.port or 80)
    except OSError as exc:
        raise Refused(502, f"the worker's proxy cannot be reached ({exc})") from exc
    if scheme == "http":
        return reader, writer
    authority = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    writer.write(
        f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n{_proxy_auth(proxy)}\r\n".encode()
    )
    try:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), HEAD_TIMEOUT_S)
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError) as exc:
        raise Refused(502, "the worker's proxy gave no answer") from exc
    status = head.split(b" ", 2)[1:2]
    if status != [b"200"]:
        await _close(writer)
        raise Refused(502, f"the worker's proxy answered {head.splitlines()[0].decode()!r}")
    return reader, writer


def _proxy_auth(proxy: str) -> str:
    parts = urlsplit(proxy)
    if parts.username is None:
        return ""
    pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
    return f"Proxy-Authorization: Basic {base64.b64encode(pair.encode()).decode()}\r\n"


def _plain_head(
    method: str, target: str, headers: list[str], host: str, port: int, proxy: str | None
) -> bytes:
    """The GET as the index (or the worker's proxy) gets it: its own Host, no hop-by-hop
    headers, no body, and the connection closed after the answer."""
    parts = urlsplit(target)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    authority = host if port == 80 else f"{host}:{port}"
    line = f"{method} http://{authority}{path}" if proxy else f"{method} {path}"
    kept = [h for h in headers if h and h.split(":", 1)[0].strip().lower() not in _HOP_BY_HOP]
    auth = _proxy_auth(proxy) if proxy else ""
    return (
        f"{line} HTTP/1.1\r\nHost: {authority}\r\n"
        + "".join(f"{h}\r\n" for h in kept)
        + f"{auth}Connection: close\r\n\r\n"
    ).encode("latin-1")


async def _relay(
    client: Streams, upstream: Streams, meter: Meter, client_sends: bool = True
) -> None:
    """Bytes both ways (or only back), counted, until either side ends; then both connections
    close."""

    async def pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        try:
            while data := await source.read(1 << 16):
                meter.add(len(data))
                sink.write(data)
                await sink.drain()
        except OSError:
            return

    pumps = [asyncio.create_task(pump(upstream[0], client[1]))]
    if client_sends:
        pumps.append(asyncio.create_task(pump(client[0], upstream[1])))
    try:
        await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in pumps:
            task.cancel()
        await _close(client[1])
        await _close(upstream[1])


async def _close(writer: asyncio.StreamWriter) -> None:
    writer.close()
    try:
        await writer.wait_closed()
    except OSError:
        return


def _say(line: str) -> None:
    """One line for the worker's log: the sandbox wrote part of it, so no control characters
    and no more than `SAY_LIMIT` of them."""
    print(
        "".join(c if c.isprintable() else "?" for c in line[:SAY_LIMIT]),
        file=sys.stderr,
        flush=True,
    )


async def serve(access: IndexAccess, path: Path) -> None:
    """Until stdin closes (the sandbox's run is over, or the worker is gone)."""
    proxy = IndexProxy(access)
    server = await asyncio.start_unix_server(proxy.handle, path=str(path), limit=HEAD_LIMIT)
    # Connecting to a unix socket takes write permission: the sandbox's user is another user.
    # Only the sandbox sees it: its directory is the worker's own (0700).
    path.chmod(0o666)
    print("ready", flush=True)
    try:
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.buffer.read)
    finally:
        server.close()  # open tunnels are cancelled with the loop (asyncio.run)


def main() -> None:
    access = IndexAccess.model_validate_json(sys.stdin.buffer.readline())
    asyncio.run(serve(access, Path(sys.argv[1])))


if __name__ == "__main__":
    main()
