"""How a sandbox gives an install the package index and nothing else.

The sandbox has no network of its own in any phase. For an install, `index_route` starts the
index proxy (spice_engine.validate.index_proxy) in a process of its own on the host, listening
on a unix socket in a directory only the worker can enter; the sandbox is shown that socket and
the forwarder (spice_engine.validate.index_forwarder), and its command runs under the forwarder,
which points uv's proxy variables at it. What the proxy refused is logged here and added to the
command's output; the bytes it relays are the install's sign of life (`Progress`) for the
sandbox's idle limit.
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import subprocess
import sys
import tempfile
import threading
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from spice_engine.validate.command_progress import Progress
from spice_engine.validate.executor import RunResult
from spice_engine.validate.index_access import IndexAccess, IndexSettingError
from spice_engine.validate.sandbox import Bind, Sandbox, SandboxUnavailable

SOCKET = Path("/run/spice/index.sock")
"""Where the sandbox sees the index proxy's socket."""
FORWARDER = Path("/run/spice/index_forwarder.py")
"""Where the sandbox sees the forwarder."""
PROXY_ENV = ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "NO_PROXY")
"""Never passed into the sandbox (any case): the forwarder sets the proxy, the host chains."""
_PROXY_PROCESS_ENV = ("PATH", "PYTHONPATH", "PYTHONHOME", "LANG", "LC_ALL")
"""What the proxy's own process is given of the worker's environment (not its secrets)."""
PROXY_MODULE = "spice_engine.validate.index_proxy"
START_TIMEOUT_S = 30.0
SAID_LIMIT = 100
STOP_TIMEOUT_S = 5.0
INDEX_QUIET = "no output, nothing from the package index"
log = logging.getLogger(__name__)


def worker_access(given: IndexAccess | None) -> IndexAccess:
    """`given`, else what the worker's own index and proxy settings allow."""
    if given is not None:
        return given
    try:
        return IndexAccess.from_environ(os.environ)
    except IndexSettingError as exc:
        raise SandboxUnavailable(str(exc)) from exc


class IndexRoute:
    """One sandboxed install's way to the index: binds, command and environment to use."""

    def __init__(self, socket: Path, progress: Progress | None = None) -> None:
        self.socket = socket
        self.progress = progress if progress is not None else Progress(INDEX_QUIET)
        """Marked by each tunnel the proxy opens and each of its `progress` lines."""
        self.relayed = 0
        """Bytes the proxy has relayed, as it last said."""
        # Read-only: connecting to a socket needs no write to its mount (and a writable bind
        # would have the sandbox watch the free space of the worker's temporary directory).
        self.binds = [
            Bind(source=Path(__file__).with_name("index_forwarder.py"), target=FORWARDER),
            Bind(source=socket, target=SOCKET),
        ]
        self.said: list[str] = []
        """The proxy's refusals and failures, the first `SAID_LIMIT` of them."""
        self.unsaid = 0

    def command(self, cmd: Sequence[str], python: Path | None) -> list[str]:
        """`cmd` under the forwarder, run by `python` (as the sandbox shows it; else the
        sandbox's `python3`) isolated from its site-packages."""
        interpreter = str(python) if python is not None else "python3"
        return [interpreter, "-I", "-S", str(FORWARDER), str(SOCKET), "--", *cmd]

    @staticmethod
    def env(env: Mapping[str, str]) -> dict[str, str]:
        return {k: v for k, v in env.items() if k.upper() not in PROXY_ENV}

    def refused(self) -> list[str]:
        return [line for line in self.said if line.startswith("refused ")]

    def noted(self, done: RunResult) -> RunResult:
        """`done`, its output ending with what the proxy refused (a failed resolution says
        why: the index proxy, not the index, said no)."""
        lines = "".join(f"[spice sandbox: index proxy {line}]\n" for line in self.refused())
        if self.unsaid:
            lines += f"[spice sandbox: index proxy: {self.unsaid} more lines not kept]\n"
        return done.model_copy(update={"log": done.log + lines}) if lines else done

    def hear(self, line: str) -> None:
        """One line of the proxy's: logged and kept, up to a limit (a build that asks a
        million times must not fill the worker's memory or its log). Its `progress` lines (one
        a second at most, while bytes move) only mark the install alive."""
        kind, _, rest = line.partition(" ")
        if kind == "progress" and rest.isdigit():
            self.relayed = int(rest)
            self.progress.mark()
        elif line.startswith("tunnel "):
            self.progress.mark()
            log.debug("index proxy: %s", line)
        elif len(self.said) < SAID_LIMIT:
            self.said.append(line)
            log.warning("index proxy: %s", line)  # a refusal, or the proxy's own failure
        else:
            self.unsaid += 1


@contextmanager
def index_route(access: IndexAccess, progress: Progress | None = None) -> Iterator[IndexRoute]:
    """The index proxy for one sandboxed command, stopped (and its output logged) on exit;
    what it relays marks `progress` (default: the route's own)."""
    with tempfile.TemporaryDirectory(prefix="spice-index-") as where:
        route = IndexRoute(Path(where) / "index.sock", progress)
        proc = subprocess.Popen(
            [sys.executable, "-P", "-m", PROXY_MODULE, str(Path(where) / "index.sock")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd="/",
            env={k: v for k, v in os.environ.items() if k in _PROXY_PROCESS_ENV},
        )
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        reader = threading.Thread(target=_hear, args=(proc.stderr, route), daemon=True)
        reader.start()
        try:
            proc.stdin.write(access.model_dump_json().encode() + b"\n")
            proc.stdin.flush()
            if not select.select([proc.stdout], [], [], START_TIMEOUT_S)[0] or (
                proc.stdout.readline() != b"ready\n"
            ):
                raise SandboxUnavailable("the index proxy did not start: see the worker's log")
            yield route
        finally:
            with contextlib.suppress(BrokenPipeError):
                proc.stdin.close()  # the proxy's signal to stop
            try:
                proc.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            reader.join(STOP_TIMEOUT_S)
            proc.stdout.close()
            proc.stderr.close()
            if route.unsaid:
                log.warning("index proxy: %d more lines not logged", route.unsaid)


def run_via_index(
    sandbox: Sandbox,
    index: IndexAccess | None,
    cmd: Sequence[str],
    *,
    registries: Collection[str],
    binds: Sequence[Bind],
    cwd: Path,
    env: Mapping[str, str],
    timeout_s: float,
    python: Path | None,
    idle_s: float | None = None,
    progress: Progress | None = None,
) -> RunResult:
    """`cmd` in `sandbox` with only its loopback, under the forwarder to the index proxy, which
    lets it reach `index` (None: the worker's settings) and `registries`; with `idle_s`,
    stopped once neither its output nor the proxy's bytes have moved for that long."""
    with index_route(worker_access(index).reaching(registries), progress) as route:
        done = sandbox.run(
            route.command(cmd, python),
            binds=[*binds, *route.binds],
            cwd=cwd,
            env=route.env(env),
            timeout_s=timeout_s,
            idle_s=idle_s,
            progress=route.progress,
        )
    return route.noted(done)


def _hear(pipe: Iterator[bytes], route: IndexRoute) -> None:
    for raw in pipe:
        route.hear(raw.decode("utf-8", errors="replace").rstrip())
