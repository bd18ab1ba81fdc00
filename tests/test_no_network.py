"""Nothing reaches the network at import: every package imported under a connection recorder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests import network_guard

ROOT = Path(__file__).resolve().parents[1]

PROBE = """
import socket, sys
seen = []
real = socket.socket.connect
def record(self, address):
    seen.append(address)
    raise ConnectionRefusedError("offline probe")
socket.socket.connect = record
import pkgutil, importlib
import app, spice_engine
for pkg in (spice_engine, app):
    for mod in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
        if ".migrations" in mod.name:
            continue
        importlib.import_module(mod.name)
from app.cli.main import cli
import litellm  # its price table must come from the package, not the network
print("connections:", seen)
sys.exit(1 if seen else 0)
"""


def test_importing_every_module_opens_no_connection() -> None:
    env = {k: v for k, v in os.environ.items() if k != "LITELLM_LOCAL_MODEL_COST_MAP"}
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    proc = subprocess.run(
        [sys.executable, "-c", PROBE],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "connections: []" in proc.stdout


def test_the_suite_guard_refuses_public_addresses() -> None:
    import socket

    with socket.socket() as sock, pytest.raises(ConnectionRefusedError, match="loopback"):
        sock.connect(("93.184.216.34", 80))
    network_guard.attempts.clear()
