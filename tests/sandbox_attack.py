"""The attack repository (tests/data/attack_repo) made into a real git repository and an
instance to validate, with the paths and ports of one run as its targets, and what its probes
report read back from the validated row."""

from __future__ import annotations

import binascii
import contextlib
import gzip
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.validation_support import git, instance_of

TEMPLATE = Path(__file__).parent / "data" / "attack_repo"
CANARIES = {
    "SPICE_WEBHOOK_SECRET": "canary-webhook-secret-7f3a9c",
    "SPICE_API_KEY": "canary-model-key-2b8d41",
    "OPENAI_API_KEY": "canary-openai-key-9e0c55",
    "SPICE_GITHUB_TOKEN": "canary-github-token-41aa07",
    "SPICE_DASHBOARD_TOKEN": "canary-dashboard-token-5c6e2d9b",
    "SPICE_GITHUB_PRIVATE_KEY": (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIcanaryPEMbodyLineOne0123456789abcdefABCDEF\n"
        "-----END RSA PRIVATE KEY-----\n"
    ),
}
FILE_CANARY = "canary-file-contents-d41d8c"
_PROBE = re.compile(r"::test_probe\[(\w+):([\w.]+)=(\w+)\]$")
_LOOT = re.compile(r"::test_loot\[(\d+)-([0-9a-f]+)\]")


class Listener:
    """A TCP port on 127.0.0.1 (or `host`) that counts who connects (the App, the model
    server)."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.sock = socket.socket()
        self.sock.bind((host, 0))
        self.sock.listen(16)
        self.port = int(self.sock.getsockname()[1])
        self.connections = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            with contextlib.suppress(OSError):
                conn.sendall(b"SPICE-LISTENER\n")
            conn.close()

    def close(self) -> None:
        self.sock.close()


@dataclass
class Scene:
    """The host around one attacked validation: what the attack is told to go for."""

    root: Path
    data: Path
    home: Path
    marker: str = field(default_factory=lambda: f"spice-linger-{uuid.uuid4().hex}")
    listeners: dict[str, Listener] = field(default_factory=dict)

    @classmethod
    def make(cls, root: Path) -> Scene:
        scene = cls(root=root, data=root / "data", home=root / "home")
        (scene.home / ".ssh").mkdir(parents=True)
        (scene.home / ".ssh" / "id_rsa").write_text(FILE_CANARY)
        (scene.home / ".cache").mkdir()
        (scene.data / "repos" / "other+repo.git").mkdir(parents=True)
        (scene.data / "repos" / "other+repo.git" / "config").write_text(FILE_CANARY)
        (scene.data / "payloads").mkdir()
        (scene.data / "payloads" / "delivery.json").write_text(FILE_CANARY)
        (scene.data / "envs").mkdir()
        scene.listeners = {"app": Listener(), "model": Listener()}
        return scene

    def targets(self, mirror: Path, decoy: bool = False) -> dict[str, Any]:
        """The real paths and ports of this run; with `decoy`, a stand-in for the App's own
        venv (for a run that is expected to write there)."""
        import sysconfig

        app_site = Path(sysconfig.get_paths()["purelib"])
        if decoy:
            app_site = self.root / "decoy-venv" / "site-packages"
            app_site.mkdir(parents=True)
        return {
            "read": {
                "data_dir": str(self.data),
                "database": str(self.data / "spice.db"),  # the App's (SQLite) when it runs
                "payloads": str(self.data / "payloads" / "delivery.json"),
                "other_checkout": str(self.data / "repos" / "other+repo.git" / "config"),
                "app_venv": str(Path(os.sys.prefix) / "pyvenv.cfg"),
                "app_site": str(app_site),
                "worker_ssh": str(self.home / ".ssh" / "id_rsa"),
                "etc_shadow": "/etc/shadow",
            },
            "host_addresses": host_addresses(),
            "ports": {
                "postgres": 5432,
                "redis": 6379,
                **{name: lst.port for name, lst in self.listeners.items()},
            },
            "write": {
                "app_site": str(app_site),
                "worker_cache": str(self.home / ".cache"),
                "mirror_hooks": str(mirror / "hooks"),
                "data_dir": str(self.data),
                "envs_dir": str(self.data / "envs"),
            },
            "fork_bomb": 600,
            "fill_mb": 200,
            "marker": self.marker,
        }

    def env(self) -> dict[str, str]:
        """The worker's environment: its secrets, its home, small limits for the attack."""
        pyenv = os.environ.get("PYENV_ROOT") or str(Path.home() / ".pyenv")
        return {
            "PATH": os.environ["PATH"],
            "HOME": str(self.home),
            "PYENV_ROOT": pyenv,
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "SPICE_DATA_DIR": str(self.data),
            "SPICE_SANDBOX_PROCESSES": "256",
            "SPICE_SANDBOX_FILE_MB": "64",
            "SPICE_SANDBOX_TMP_MB": "64",
            **CANARIES,
        }

    def close(self) -> None:
        for listener in self.listeners.values():
            listener.close()

    def planted(self) -> list[Path]:
        """Files the attack managed to leave anywhere on the host it was pointed at."""
        places = [self.root, Path(os.sys.prefix)]
        return [p for where in places for p in where.rglob("zz_spice_planted_*")]

    def lingering(self) -> list[str]:
        found = []
        for pid in os.listdir("/proc"):
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if self.marker.encode() in cmd:
                found.append(pid)
        return found


def host_addresses() -> list[str]:
    """This machine's own IPv4 addresses but loopback (its LAN address, docker0's bridge)."""
    done = subprocess.run(["ip", "-j", "-4", "addr"], capture_output=True, text=True, check=False)
    found = json.loads(done.stdout or "[]")
    return [
        a["local"]
        for link in found
        for a in link.get("addr_info", [])
        if not a["local"].startswith("127.")
    ]


def attack_repo(where: Path, targets: dict[str, Any]) -> tuple[Path, dict[str, str]]:
    """The attack repository with its targets, and its instance: `add` subtracts; the fix;
    a test that shows it."""
    repo = where / "attack"
    shutil.copytree(TEMPLATE, repo)
    (repo / "targets.json").write_text(json.dumps(targets))
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    row = instance_of(
        repo,
        "evil/victim",
        fix={"victim/__init__.py": "def add(a, b):\n    return a + b\n"},
        test=(
            "tests/test_victim.py",
            "\n\ndef test_add():\n    from victim import add\n    assert add(2, 3) == 5\n",
        ),
        problem="add() subtracts",
    )
    return repo, row


def probes(row: dict[str, Any]) -> dict[str, str]:
    """`phase:name` -> result, from the probe tests' ids in the row's lists."""
    found: dict[str, str] = {}
    for key in ("FAIL_TO_PASS", "PASS_TO_PASS"):
        for test in json.loads(str(row.get(key) or "[]")):
            if m := _PROBE.search(test):
                found[f"{m.group(1)}:{m.group(2)}"] = m.group(3)
    return found


def loot(row: dict[str, Any], logs: str | None = None) -> str:
    """Everything the attack found and got out through its test ids, decoded: from the row's
    lists and from every run log kept (a test id that differs between runs is in no list)."""
    texts = ["\n".join(_listed(row))]
    logs = logs or (row.get("spice") or {}).get("validation", {}).get("logs")
    for log in sorted(Path(logs).glob("*.log.gz")) if logs else []:
        with gzip.open(log, "rt", encoding="utf-8", errors="replace") as fh:
            texts.append(fh.read())
    found = []
    for text in texts:
        chunks = dict(sorted((int(m.group(1)), m.group(2)) for m in _LOOT.finditer(text)))
        found.append(binascii.unhexlify("".join(chunks.values())).decode(errors="replace"))
    return "\n".join(found)


def _listed(row: dict[str, Any]) -> list[str]:
    return [
        t for key in ("FAIL_TO_PASS", "PASS_TO_PASS") for t in json.loads(str(row.get(key) or "[]"))
    ]


def leaked(text: str) -> list[str]:
    """The canaries (configured secrets, planted files) that appear in `text`."""
    values = [*CANARIES.values(), FILE_CANARY, "MIIcanaryPEMbodyLineOne"]
    return [v for v in values if v in text]


SPICE = str(Path(sys.executable).with_name("spice"))
BLOCKED = "blocked"


def _listing(found: str) -> str:
    """What the attack listed of the data directory."""
    return " ".join(line for line in found.splitlines() if line.startswith("ls "))


def validate(scene: Scene, rows: list[dict[str, Any]], repo: Path, *flags: str) -> Any:
    instances = scene.root / f"in-{len(list(scene.root.glob('in-*')))}.jsonl"
    instances.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = instances.with_suffix(".out.jsonl")
    name = str(rows[0]["repo"])
    args = [SPICE, "validate", str(instances), "--out", str(out), "--repo", f"{name}={repo}"]
    done = subprocess.run(
        [*args, "--timeout", "300", *flags],
        env=scene.env(),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows_out = [json.loads(line) for line in out.read_text().splitlines()]
    return rows_out, done.stdout + done.stderr + out.read_text()


def assert_the_attack_failed(scene: Scene, row: dict[str, Any], said: str) -> None:
    """Every attempt of every phase failed, the instance still validated, nothing is left."""
    assert row["spice"]["validation"]["status"] == "valid", row["spice"]["validation"]
    assert json.loads(row["FAIL_TO_PASS"]) == ["tests/test_victim.py::test_add"]
    seen = probes(row)
    # It ran at every phase: the build backend and setup.py resolving the dependencies (with
    # the package index: `_net`) and installing the project (without), conftest.py (the tests).
    phases = {"backend_net", "setup_py_net", "backend", "setup_py", "tests"}
    assert {p.split(":")[0] for p in seen} == phases, seen
    # The data directory's path exists in the sandbox (the job's scratch is under it), with
    # nothing of the App's in it.
    open_ = {
        k: v
        for k, v in seen.items()
        if k.split(":")[1].startswith(("read_", "connect_", "tunnel_")) and "data_dir" not in k
    }
    assert sum("connect_" in k for k in open_) >= 5 * 4 and set(open_.values()) == {BLOCKED}, open_
    # The installs' proxy opened no tunnel to the host's services either.
    assert sum(k.startswith(("backend_net:tunnel_", "setup_py_net:tunnel_")) for k in open_) >= 8
    assert not {"spice.db", "repos"} & set(re.findall(r"[\w.+-]+", _listing(loot(row))))
    writes = {
        k: v
        for k, v in seen.items()
        if k.split(":")[1].startswith("write_") and "site" not in k.split(":")[1]
    }
    assert set(writes.values()) == {BLOCKED}, writes
    assert seen["tests:fork_bomb"] == seen["tests:fill_disk"] == "limited"
    assert seen["tests:fill_tmp"] == "limited"
    assert all(int(seen[f"{p}:processes_seen"]) < 5 for p in phases)
    assert seen["tests:uid"] != "0"
    assert leaked(loot(row)) == [] and leaked(said) == []
    assert all(lst.connections == 0 for lst in scene.listeners.values())
    assert scene.lingering() == []
    assert scene.planted() == []  # nothing it wrote outlived its job's scratch
