"""Refuse every socket connection that is not loopback or a Unix socket (tests are offline)."""

from __future__ import annotations

import ipaddress
import socket
from typing import Any

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex
attempts: list[str] = []


def _allowed(sock: socket.socket, address: Any) -> bool:
    if sock.family not in (socket.AF_INET, socket.AF_INET6):
        return True
    host = address[0] if isinstance(address, tuple) else str(address)
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def _guarded_connect(self: socket.socket, address: Any) -> None:
    if not _allowed(self, address):
        attempts.append(repr(address))
        raise ConnectionRefusedError(f"tests may only reach loopback, not {address!r}")
    _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: Any) -> int:
    if not _allowed(self, address):
        attempts.append(repr(address))
        return 111
    return _real_connect_ex(self, address)


def install() -> None:
    socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
    socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign]
