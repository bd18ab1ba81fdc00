"""The door attack (tests/data/door_repo): a tiny project whose own conftest.py, run in the
sandbox by every test session, goes for the host's work on the tree *after* the run — git with
the tree's config, writes through links, results read from files — and the instances made of it:
a clean one, and one whose fix itself turns the source into a link to a host file."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.fakes.sample_project import git, instance_of
from tests.sandbox_attack import CANARIES, SPICE

PAYLOAD = Path(__file__).parent / "data" / "door_repo" / "conftest.py"
BUG = "def add(a, b):\n    return b\n\n\ndef mul(a, b):\n    return a * b\n"
FIX = {"victim.py": BUG.replace("return b", "return a + b")}
WEAK = "\n\ndef test_add():\n    from victim import add\n    assert add(2, 0) == 2\n"
"""A test a wrong fix passes: `a - b` survives, honestly (score 0.5, not 1.0)."""
HOST_TEXT = "the host's own file, which no sandboxed run may read or change\n"


@dataclass
class Door:
    """One attacked run's host side: where a host-run command would leave its mark, the host
    file the links point at, the repository and its instance."""

    root: Path
    marker: Path
    host_file: Path
    repo: Path
    row: dict[str, Any]

    def env(self) -> dict[str, str]:
        """The worker's environment, with its secrets (which must never come out)."""
        pyenv = os.environ.get("PYENV_ROOT") or str(Path.home() / ".pyenv")
        return {
            "PATH": os.environ["PATH"],
            "HOME": str(self.root / "home"),
            "PYENV_ROOT": pyenv,
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "SPICE_DATA_DIR": str(self.root / "data"),
            **CANARIES,
        }

    def untouched(self) -> list[str]:
        """What went wrong on the host: a mark left by a command of the tree's, a host file
        read or changed."""
        wrong = []
        if self.marker.exists():
            wrong.append(
                f"a command of the tree's ran on the host: {self.marker.read_text()[:200]}"
            )
        if self.host_file.read_text() != HOST_TEXT:
            wrong.append(f"the host file was written: {self.host_file.read_text()[:200]!r}")
        return wrong

    def cli(self, command: str, rows: list[dict[str, Any]], *flags: str) -> tuple[list[Any], str]:
        """`spice validate` or `spice test-strength` on `rows`, as the worker would run it."""
        n = len(list(self.root.glob("in-*.jsonl")))
        given = self.root / f"in-{n}.jsonl"
        given.write_text("".join(json.dumps(r) + "\n" for r in rows))
        out = self.root / f"out-{n}.jsonl"
        args = [SPICE, command, str(given), "--out", str(out), "--repo", f"octo/door={self.repo}"]
        done = subprocess.run(
            [*args, "--timeout", "300", *flags],
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert done.returncode in (0, 3), done.stderr[-3000:]
        text = out.read_text()
        return [json.loads(line) for line in text.splitlines()], done.stdout + done.stderr + text


def door_repo(root: Path) -> Door:
    """The attack project, committed, with the host's targets written into it."""
    root.mkdir(parents=True, exist_ok=True)
    marker, host_file = root / "host-marker", root / "host-file.py"
    host_file.write_text(HOST_TEXT)
    repo = root / "door"
    (repo / "tests").mkdir(parents=True)
    (repo / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n'
        '[project]\nname = "victim"\nversion = "0.1.0"\nrequires-python = ">=3.11"\n'
        '[tool.setuptools]\npy-modules = ["victim"]\n'
    )
    (repo / "victim.py").write_text(BUG)
    (repo / "tests" / "test_victim.py").write_text(
        "from victim import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n"
    )
    (repo / "tests" / "door_attacks.txt").write_text(
        ""
    )  # none: an instance's test patch names them
    shutil.copyfile(PAYLOAD, repo / "conftest.py")
    targets = {"marker": str(marker), "host_file": str(host_file)}
    (repo / "door_targets.json").write_text(json.dumps(targets))
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "victim")
    git(repo, "tag", "v0.1.0")
    row = instance_of(repo, "octo/door", FIX, ("tests/test_victim.py", WEAK), "add returns b")
    row["instance_id"] = "octo__door-clean"
    return Door(root, marker, host_file, repo, row)


def attacking(door: Door, *attacks: str) -> dict[str, Any]:
    """The instance with the conftest's `attacks` on (`git`, `source`, `results`, `forge`):
    its test patch also adds the file naming them."""
    name = "tests/door_attacks.txt"  # a test file: a PR's split puts it with the tests
    extra = (
        f"diff --git a/{name} b/{name}\n--- a/{name}\n+++ b/{name}\n"
        "@@ -0,0 +1 @@\n+" + " ".join(attacks) + "\n"
    )
    iid = "octo__door-" + "-".join(attacks)
    return door.row | {"instance_id": iid, "test_patch": door.row["test_patch"] + extra}


def linking_fix(door: Door) -> dict[str, Any]:
    """An instance whose fix turns `victim.py` into a link to the host file (no code runs)."""
    repo = door.repo
    (repo / "victim.py").unlink()
    (repo / "victim.py").symlink_to(door.host_file)
    patch = git(repo, "diff")
    git(repo, "checkout", "-q", "victim.py")
    assert "new file mode 120000" in patch or "new mode 120000" in patch
    return door.row | {"instance_id": "octo__door-2", "patch": patch}


def secrets_in(text: str) -> list[str]:
    """The worker's secrets (or their environment lines) that came out in `text`."""
    found = [name for name, value in CANARIES.items() if value.splitlines()[0] in text]
    return found + [k for k in CANARIES if f"{k}=" in text]
