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


def container_role() -> str:
    """`web` or `worker`, from what the container's first process runs."""
    try:
        argv = Path("/proc/1/cmdline").read_bytes().split(b"\0")
    except OSError:
        return "web"
    return "worker" if b"worker" in argv else "web"


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
    parser.add_argument("--port", type=int, default=int(os.environ.get("SPICE_PORT", "8000")))
    args = parser.parse_args(argv)
    role = args.role or os.environ.get("SPICE_ROLE") or container_role()
    data_dir = Path(os.environ.get("SPICE_DATA_DIR", ".spice-data"))
    problem = check_worker(data_dir) if role == "worker" else check_web(args.port)
    print(f"{role}: {problem or 'ok'}")
    return 1 if problem else 0


if __name__ == "__main__":
    sys.exit(main())
