"""Run inside a sandbox by tests/test_sandbox_network.py: what this command can reach.

`python sandbox_net_probe.py CHECKS` (CHECKS: JSON of `fetch` URLs, `connect` and `tunnel`
[host, port] pairs, `resolve` names) prints one line, `PROBE {...}`: each check and what came
of it. A tunnel is a CONNECT through the proxy the sandbox gave (HTTPS_PROXY): its status line.
"""

import json
import os
import socket
import sys
import urllib.request


def fetch(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            return f"{answer.status} {len(answer.read())} bytes"
    except OSError as exc:
        return f"error: {exc}"


def connect(host: str, port: int) -> str:
    try:
        socket.create_connection((host, port), timeout=3).close()
        return "open"
    except OSError as exc:
        return f"error: {exc}"


def tunnel(host: str, port: int) -> str:
    where = os.environ.get("HTTPS_PROXY", "").split("://", 1)[-1].rstrip("/")
    if not where:
        return "error: no proxy"
    proxy_host, proxy_port = where.rsplit(":", 1)
    try:
        with socket.create_connection((proxy_host, int(proxy_port)), timeout=10) as sock:
            sock.sendall(f"CONNECT {host}:{port} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
            return sock.recv(256).decode("latin-1").split("\r\n")[0]
    except OSError as exc:
        return f"error: {exc}"


def resolve(name: str) -> str:
    try:
        return f"resolved: {socket.getaddrinfo(name, 443)[0][4][0]}"
    except OSError as exc:
        return f"error: {exc}"


def main() -> None:
    checks = json.loads(sys.argv[1])
    found = {}
    for url in checks.get("fetch", []):
        found[f"fetch {url}"] = fetch(url)
    for host, port in checks.get("connect", []):
        found[f"connect {host}:{port}"] = connect(host, port)
    for host, port in checks.get("tunnel", []):
        found[f"tunnel {host}:{port}"] = tunnel(host, port)
    for name in checks.get("resolve", []):
        found[f"resolve {name}"] = resolve(name)
    print("PROBE " + json.dumps(found), flush=True)


if __name__ == "__main__":
    main()
