"""The install phase's network, in bubblewrap and in Docker: the package index through the host's
index proxy, and nothing else. A Python script in the sandbox (tests/data/sandbox_net_probe.py)
fetches from PyPI, then tries the cloud metadata address, listeners of this test on the host's
loopback and its other addresses, tunnels through the proxy to other hosts, and DNS: every
attempt but the index fails. A name the proxy allows that resolves to the host's loopback is
refused unless the operator named it (and then the tunnel opens: the probe can tell). As a
non-root worker, 20 networked starts in a row all start."""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from spice_engine.langs.python_interpreters import find_pythons
from spice_engine.validate.bubblewrap import Bubblewrap
from spice_engine.validate.docker import DEFAULT_IMAGE, DockerSandbox
from spice_engine.validate.index_access import IndexAccess
from spice_engine.validate.sandbox import Bind, Sandbox
from tests.sandbox_attack import Listener, host_addresses

PROBE = Path(__file__).parent / "data" / "sandbox_net_probe.py"
SEEN_PROBE = Path("/probe/sandbox_net_probe.py")
SIX = "https://pypi.org/simple/six/"
PYPI = ("pypi.org:443",)
"""The registry each probe's install may reach (a Python install's, as its plan names it)."""
METADATA = ("169.254.169.254", 80)


@dataclass
class Subject:
    """A sandbox to probe, with an interpreter it shows (and the binds that show it)."""

    make: Callable[[IndexAccess | None], Sandbox]
    python: Path
    binds: list[Bind]

    def probe(self, checks: dict[str, list[object]], index: IndexAccess | None = None) -> Probed:
        done = self.make(index).run(
            [str(self.python), str(SEEN_PROBE), json.dumps(checks)],
            binds=[Bind(source=PROBE, target=SEEN_PROBE), *self.binds],
            cwd=Path("/"),
            env={},
            timeout_s=120,
            network=True,
            network_python=self.python,
            registries=PYPI,
        )
        assert done.returncode == 0, done.log
        line = next(ln for ln in done.log.splitlines() if ln.startswith("PROBE "))
        return Probed(json.loads(line.removeprefix("PROBE ")), done.log)


@dataclass
class Probed:
    found: dict[str, str]
    log: str


def _host_python() -> tuple[Path, list[Bind]]:
    """The machine's interpreter: the system's (under /usr, which every sandbox shows) if
    there is one, else this one's base install, shown at its own path."""
    system = Path("/usr/bin/python3")
    if system.exists():
        return system.resolve(), []
    python = (Path(sys.base_prefix) / "bin" / "python3").resolve()
    return python, [Bind(source=python.parent.parent, target=python.parent.parent)]


def _bubblewrap(python: Path, binds: list[Bind]) -> Subject:
    if shutil.which("bwrap") is None:
        pytest.skip("no bwrap here: install Debian's bubblewrap")
    if why := Bubblewrap().problem():
        pytest.skip(f"no sandbox here: {why}")
    return Subject(lambda index: Bubblewrap(index=index), python, binds)


@pytest.fixture(
    scope="module", params=["bubblewrap", pytest.param("docker", marks=pytest.mark.docker)]
)
def subject(request: pytest.FixtureRequest) -> Subject:
    if request.param == "bubblewrap":
        python, binds = _host_python()
        return _bubblewrap(python, binds)
    image = os.environ.get("SPICE_DOCKER_IMAGE", DEFAULT_IMAGE)
    if why := DockerSandbox(image).problem():
        pytest.skip(f"Docker suite: {why}")
    # The image's own interpreter (a job's is mounted at its path; this one needs no mount).
    return Subject(lambda index: DockerSandbox(image, index=index), Path("/usr/bin/python3"), [])


@pytest.fixture
def listeners() -> Iterator[list[Listener]]:
    """TCP listeners on the host's loopback and on each of its other addresses."""
    made = [Listener(host) for host in ["127.0.0.1", *host_addresses()]]
    yield made
    for listener in made:
        listener.close()


@functools.cache
def _host_reaches_pypi() -> str | None:
    """Why this machine itself cannot reach PyPI (None: it can). Asked of another process:
    this one refuses non-loopback connections (tests/network_guard.py)."""
    check = f"import urllib.request; urllib.request.urlopen({SIX!r}, timeout=20).read()"
    try:
        done = subprocess.run(
            [sys.executable, "-c", check], capture_output=True, text=True, timeout=60
        )
    except subprocess.TimeoutExpired:
        return "no answer from pypi.org in 60 s"
    return None if done.returncode == 0 else (done.stderr.strip().splitlines() or ["?"])[-1]


def test_an_install_fetches_from_the_index(subject: Subject) -> None:
    if why := _host_reaches_pypi():
        pytest.skip(f"this machine cannot reach pypi.org itself: {why}")
    probed = subject.probe({"fetch": [SIX]})
    assert probed.found[f"fetch {SIX}"].startswith("200 "), probed.found
    assert "index proxy refused" not in probed.log


def test_an_install_reaches_nothing_but_the_index(
    subject: Subject, listeners: list[Listener]
) -> None:
    ours = [(lst.sock.getsockname()[0], lst.port) for lst in listeners]
    probed = subject.probe(
        {
            "connect": [METADATA, *ours, ("1.1.1.1", 443), ("pypi.org", 443)],
            "tunnel": [METADATA, *ours, ("example.com", 443), ("pypi.org", 22)],
            "resolve": ["pypi.org", "example.com"],
        }
    )
    found = probed.found
    # No network of its own: no address, no route, no resolver.
    for host, port in [METADATA, *ours, ("1.1.1.1", 443), ("pypi.org", 443)]:
        assert found[f"connect {host}:{port}"].startswith("error: "), found
    assert "unreachable" in found["connect 1.1.1.1:443"].lower(), found
    assert found["resolve pypi.org"].startswith("error: "), found
    assert found["resolve example.com"].startswith("error: "), found
    # Through the proxy: only the index's hosts, only on 443.
    for host, port in [METADATA, *ours, ("example.com", 443), ("pypi.org", 22)]:
        assert found[f"tunnel {host}:{port}"] == "HTTP/1.1 403 Forbidden", found
    assert all(lst.connections == 0 for lst in listeners)
    # Each refusal is said at the end of the command's output.
    assert f"index proxy refused CONNECT {METADATA[0]}:{METADATA[1]}" in probed.log
    assert "refused CONNECT example.com:443 HTTP/1.1: example.com:443 is not a package" in (
        probed.log
    )


def test_an_allowed_name_at_a_private_address_opens_only_if_the_operator_named_it(
    subject: Subject, listeners: list[Listener]
) -> None:
    """`localhost` stands for an index name that resolves to the host (a poisoned resolver, a
    mistake): allowed, it is still refused; named by the operator (their own mirror), it
    opens."""
    loopback = listeners[0]
    target = f"localhost:{loopback.port}"
    allowed = IndexAccess(https=frozenset({target}))
    probed = subject.probe({"tunnel": [("localhost", loopback.port)]}, allowed)
    assert probed.found[f"tunnel {target}"] == "HTTP/1.1 403 Forbidden", probed.found
    assert "refused CONNECT localhost" in probed.log and "a loopback address" in probed.log
    assert loopback.connections == 0

    named = IndexAccess(https=frozenset({target}), named=frozenset({"localhost"}))
    probed = subject.probe({"tunnel": [("localhost", loopback.port)]}, named)
    assert probed.found[f"tunnel {target}"] == "HTTP/1.1 200 Connection established"
    assert loopback.connections == 1


def test_the_forwarder_runs_on_the_oldest_python_a_job_may_have() -> None:
    """The forwarder runs under the job's own interpreter: 3.6 onwards (in bubblewrap; Docker
    mounts the machine's interpreters the same way)."""
    pythons = find_pythons()
    if not pythons:
        pytest.skip("no interpreters found (pyenv's or pythonX.Y on PATH)")
    oldest = min(pythons, key=lambda v: tuple(int(x) for x in v.split(".")))
    python = pythons[oldest].resolve()
    prefix = python.parent.parent
    binds = [] if prefix.is_relative_to("/usr") else [Bind(source=prefix, target=prefix)]
    old = _bubblewrap(python, binds)
    checks: dict[str, list[object]] = {"tunnel": [("example.com", 443)]}
    if not _host_reaches_pypi():
        checks["fetch"] = [SIX]
    found = old.probe(checks).found
    assert found["tunnel example.com:443"] == "HTTP/1.1 403 Forbidden", (oldest, found)
    if "fetch" in checks:
        assert found[f"fetch {SIX}"].startswith("200 "), (oldest, found)


DRIVER = """
import json, sys
from pathlib import Path
from spice_engine.validate.bubblewrap import Bubblewrap
from spice_engine.validate.sandbox import Bind
python, probe, runs = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
box = Bubblewrap(setup_attempts=1)  # no retry: every start must work the first time
failed = []
for _ in range(runs):
    done = box.run([str(python), "-c", "import os; print('uid', os.getuid())"], binds=[],
                   cwd=Path("/"), env={}, timeout_s=60, network=True, network_python=python)
    if done.returncode != 0 or "uid" not in done.log:
        failed.append(done.log[-400:])
checks = json.loads(sys.argv[4])
fetched = box.run([str(python), "/probe/p.py", json.dumps(checks)],
                  binds=[Bind(source=probe, target="/probe/p.py")], cwd=Path("/"), env={},
                  timeout_s=120, network=True, network_python=python,
                  registries=["pypi.org:443"])
print("DRIVER " + json.dumps({"privileged": box.privileged, "failed": failed,
                              "fetched": fetched.log}))
"""


def test_twenty_networked_starts_as_a_non_root_worker_all_start() -> None:
    """A non-root worker runs bubblewrap in a user namespace; with slirp4netns one networked
    start in six failed ("Network is unreachable"). Run as `nobody` by a small driver."""
    if shutil.which("bwrap") is None:
        pytest.skip("no bwrap here: install Debian's bubblewrap")
    python = Path("/usr/bin/python3").resolve()
    have = subprocess.run(
        [str(python), "-c", "import sys; print(sys.version_info[:2])"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    if have != str(sys.version_info[:2]):
        pytest.skip(f"the driver runs this venv's packages under {python}, which is {have}")
    site = next(p for p in sys.path if p.endswith("site-packages") and p.startswith(sys.prefix))
    root = str(Path(__file__).resolve().parents[1])
    with tempfile.TemporaryDirectory() as where:
        probe = Path(where) / "p.py"
        shutil.copy(PROBE, probe)
        Path(where).chmod(0o755)
        probe.chmod(0o644)
        fetch = [] if _host_reaches_pypi() else [SIX]
        args = [str(python), "-c", DRIVER, str(python), str(probe), "20"]
        args.append(json.dumps({"fetch": fetch, "tunnel": [["example.com", 443]]}))
        if os.geteuid() == 0:
            args = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *args]
        done = subprocess.run(
            args,
            capture_output=True,
            text=True,
            timeout=600,
            cwd=where,
            env={"PATH": os.environ["PATH"], "PYTHONPATH": f"{root}:{site}", "LANG": "C.UTF-8"},
        )
    assert done.returncode == 0, done.stderr[-3000:]
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("DRIVER "))
    said = json.loads(line.removeprefix("DRIVER "))
    assert said["privileged"] is False
    assert said["failed"] == []
    assert '"tunnel example.com:443": "HTTP/1.1 403 Forbidden"' in said["fetched"]
    if fetch:
        assert f'"fetch {SIX}": "200 ' in said["fetched"], said["fetched"]
