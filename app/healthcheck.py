"""`python -m app.healthcheck`: the container health check, fitting the role the container runs.

One image runs both roles: the web service is healthy when its `/healthz` says so, a queue
worker when it has proven recently that it can reach its store (its heartbeat file). Kept to
the standard library so a check every 30 s costs milliseconds.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

HEARTBEAT_EVERY_S = 30.0
STALE_AFTER_S = 4 * HEARTBEAT_EVERY_S


def heartbeat_path(data_dir: Path) -> Path:
    """One file per worker host (container), so workers sharing a data volume do not vouch
    for each other."""
    return data_dir / f"worker-{socket.gethostname()}.alive"


def container_command() -> list[str]:
    """What the container's first process runs (`spice serve --port 9000`, `spice worker`)."""
    try:
        argv = Path("/proc/1/cmdline").read_bytes().split(b"\0")
    except OSError:
        return []
    return [part.decode(errors="replace") for part in argv if part]


def container_role(command: list[str]) -> str:
    """`web` or `worker`, from the container's command."""
    return "worker" if "worker" in command else "web"


def served_port(command: list[str]) -> int | None:
    """The port of `spice serve --port N`, or of the gunicorn it becomes (`--bind HOST:N`)."""
    for i, part in enumerate(command):
        name, _, value = part.partition("=")
        if name in ("--port", "--bind") and not value and i + 1 < len(command):
            value = command[i + 1]
        if name == "--bind":
            value = value.rpartition(":")[2]
        if name in ("--port", "--bind") and value.isdigit():
            return int(value)
    return None


def check_web(port: int) -> str | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=4) as answer:
            return None if answer.status == 200 else f"/healthz answered {answer.status}"
    except (urllib.error.URLError, OSError) as exc:
        return f"/healthz: {exc}"


def check_worker(data_dir: Path) -> str | None:
    path = heartbeat_path(data_dir)
    try:
        age = time.time() - path.stat().st_mtime
    except OSError:
        return f"no heartbeat at {path}"
    return None if age <= STALE_AFTER_S else f"last heartbeat {age:.0f} s ago ({path})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--role", choices=("web", "worker"), default=None)
    parser.add_argument("--port", type=int, default=None, help="default: the served one")
    args = parser.parse_args(argv)
    command = container_command()
    role = args.role or os.environ.get("SPICE_ROLE") or container_role(command)
    # The port `docker run IMAGE serve --port 9000` serves on, unless told another.
    port = args.port or int(os.environ.get("SPICE_PORT") or 0) or served_port(command) or 8000
    data_dir = Path(os.environ.get("SPICE_DATA_DIR", ".spice-data"))
    problem = check_worker(data_dir) if role == "worker" else check_web(port)
    print(f"{role}: {problem or 'ok'}")
    return 1 if problem else 0


if __name__ == "__main__":
    sys.exit(main())
