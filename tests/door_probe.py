"""The door repository (tests/data/door_probe_repo) as a git repository, its instances, and the host
around their runs (issue 34: the sandbox must be a one-way door).

An instance is the clean one or one attack: a test patch naming attacks for the repository's
`conftest.py` (rows 1, 2, 3 and 5), or a patch that itself makes a link or touches `.git`
(row 4). Every run (the CLI's `validate` and `test-strength` with bubblewrap or Docker, the
live App) aims its instances at host paths of its own, so that one repository and one
environment serve them all and what a host path shows is the doing of one run and attack."""

from __future__ import annotations

import json
import os
import shutil
import sysconfig
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.fakes.github_fixtures import REPO
from tests.fakes.sample_project import git
from tests.sandbox_attack import CANARIES, FILE_CANARY

TEMPLATE = Path(__file__).parent / "data" / "door_probe_repo"
SOURCE = "victim/__init__.py"
FIX = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
WEAK_TEST = "\n\ndef test_add():\n    from victim import add\n    assert add(2, 0) == 2\n"
"""Passes with the fix and with its `a - b` mutant: an honest measurement has a survivor."""
FAIL_TO_PASS = ["tests/test_victim.py::test_add"]
PASS_TO_PASS = ["tests/test_victim.py::test_sub"]
HOST_TEXT = "a host file: no repository code may read or change it\n"
HOST_TIME = 1_000_000_000
"""The host files' modification time: any write through a link changes it (even one that
writes back what the file held)."""
UP = "../" * 40
PLANS: dict[str, dict[str, list[str]]] = {
    "git_job_scratch": {"now": ["door_git.through_job_scratch"]},
    "git_dotgit_dir": {"now": ["door_git.dotgit_directory"]},
    "git_testbed": {"now": ["door_git.through_testbed"]},
    "link_abs": {"after": ["door_links.to_host_file"]},
    "link_rel": {"after": ["door_links.up_to_host_file"]},
    "link_pth": {"after": ["door_links.to_app_venv"]},
    "plugin_environ_all": {"after": ["door_plugin.environ_everywhere"]},
    "plugin_environ_words": {"after": ["door_plugin.environ_last_word"]},
    "plugin_worker_key": {"after": ["door_plugin.worker_key"]},
    "fake_verdicts": {"now": ["door_plugin.spawn_faker"], "after": ["door_plugin.fake_verdicts"]},
}
ROW1 = ("git_job_scratch", "git_dotgit_dir", "git_testbed")
ROW2 = ("link_abs", "link_rel", "link_pth")
ROW3 = ("plugin_environ_all", "plugin_environ_words", "plugin_worker_key")
ROW4 = ("fix_link_abs", "fix_link_rel", "test_link", "fix_git_config", "fix_attributes_git_config")
ROW5 = ("fake_verdicts",)
LIVE_MERGED = ("git_job_scratch", "git_dotgit_dir")
LIVE_OPEN = ("plugin_worker_key", "plugin_environ_words", "fake_verdicts")
CHANNELS: dict[str, tuple[str, ...]] = {
    "bwrap-validate": ("clean", *ROW1, "plugin_environ_all", "plugin_worker_key", *ROW4),
    "bwrap-test-strength": ("clean", *ROW2, *ROW3, *ROW4, *ROW5),
    # Docker's containers start slowly: each row, not each variant (bubblewrap runs them all).
    "docker-validate": (
        *("clean", "git_job_scratch", "git_dotgit_dir", "plugin_worker_key"),
        *("fix_link_abs", "test_link", "fix_attributes_git_config"),
    ),
    "docker-test-strength": (
        *("clean", "link_rel", "link_pth", "plugin_worker_key", "plugin_environ_words"),
        *("fix_link_abs", "fake_verdicts"),
    ),
    "live": (*LIVE_MERGED, *LIVE_OPEN),
}
"""The variants each run holds (rows 2, 3 and 5 are about test strength's own files); the
live App's merged pull requests are validated, its open ones validated and measured."""


def app_site() -> Path:
    """The App's own venv (its `.pth` files run whenever it starts)."""
    return Path(sysconfig.get_paths()["purelib"])


@dataclass(frozen=True)
class World:
    """The repository, the data directory its runs share, and the host paths they aim at."""

    root: Path

    @property
    def repo(self) -> Path:
        return self.root / "repo"

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def home(self) -> Path:
        return self.root / "home"

    @classmethod
    def make(cls, root: Path) -> World:
        world = cls(root)
        shutil.copytree(TEMPLATE, world.repo)
        (world.repo / "README.md").unlink()
        git(world.repo, "init", "-q")
        git(world.repo, "add", "-A")
        git(world.repo, "commit", "-qm", "init")
        git(world.repo, "tag", "v0.1.0")
        (world.home / ".ssh").mkdir(parents=True)
        (world.home / ".ssh" / "id_rsa").write_text(FILE_CANARY)
        found = {name: world._instances(name, variants) for name, variants in CHANNELS.items()}
        (root / "instances.json").write_text(json.dumps(found))
        return world

    def instances(self, channel: str) -> dict[str, dict[str, Any]]:
        """Variant -> its instance, as aimed by `channel`."""
        found: dict[str, dict[str, Any]] = json.loads((self.root / "instances.json").read_text())
        return dict(found[channel])

    def targets(self, channel: str, variant: str) -> dict[str, str]:
        return {
            "marker": str(self.root / "markers" / channel / variant),
            "victim": str(self.root / "victims" / channel / f"{variant}.txt"),
            # Not `zz_spice_planted_*`: tests/sandbox_attack.py looks for those in this venv,
            # perhaps while this module runs beside it.
            "pth": str(app_site() / f"zz_door_planted_{channel}_{variant}.pth"),
            "secret": str(self.home / ".ssh" / "id_rsa"),
        }

    def host_text(self, variant: str) -> str:
        """What the variant's host file holds: a row-4 link's target holds the canary (a
        read of it shows in the output)."""
        return FILE_CANARY if variant in ROW4 else HOST_TEXT

    def _instances(self, channel: str, variants: tuple[str, ...]) -> dict[str, dict[str, Any]]:
        (self.root / "markers" / channel).mkdir(parents=True)
        (self.root / "victims" / channel).mkdir(parents=True)
        base = git(self.repo, "rev-parse", "HEAD").strip()
        found = {}
        for variant in variants:
            targets = self.targets(channel, variant)
            Path(targets["victim"]).write_text(self.host_text(variant))
            os.utime(targets["victim"], (HOST_TIME, HOST_TIME))
            gold, test = _patches(self.repo, variant, targets)
            found[variant] = {
                "instance_id": f"{REPO.replace('/', '__')}-{channel}-{variant}",
                "repo": REPO,
                "base_commit": base,
                "patch": gold,
                "test_patch": test,
                "problem_statement": "add() returns b",
                "hints_text": "",
                "created_at": "2025-06-02T00:00:00Z",
                "FAIL_TO_PASS": json.dumps(FAIL_TO_PASS),
                "PASS_TO_PASS": json.dumps(PASS_TO_PASS),
            }
        return found

    def env(self) -> dict[str, str]:
        """The worker's environment: its secrets, its home (and its key). A secret comes first
        and another last (after the private key's lines), the worst order for a reader of the
        environment's first or last word."""
        pyenv = os.environ.get("PYENV_ROOT") or str(Path.home() / ".pyenv")
        first, last = "SPICE_WEBHOOK_SECRET", "SPICE_DASHBOARD_TOKEN"
        return {
            first: CANARIES[first],
            "PATH": os.environ["PATH"],
            "HOME": str(self.home),
            "PYENV_ROOT": pyenv,
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "SPICE_DATA_DIR": str(self.data),
            **{k: v for k, v in CANARIES.items() if k not in (first, last)},
            last: CANARIES[last],
        }

    def host_after(self, channel: str) -> dict[str, dict[str, Any]]:
        """Variant -> what its run left on the host: the git command's marker, its host file
        (and whether it was written), a file planted in the App's venv (removed here: nothing
        else may run it)."""
        state = {}
        for variant in CHANNELS[channel]:
            targets = self.targets(channel, variant)
            marker, pth = Path(targets["marker"]), Path(targets["pth"])
            planted = pth.read_text(errors="replace") if pth.is_file() else None
            if pth.is_file() or pth.is_symlink():
                pth.unlink()
            victim = Path(targets["victim"])
            state[variant] = {
                "marker": marker.read_text(errors="replace") if marker.exists() else None,
                "victim": victim.read_text(errors="replace"),
                "victim_written": victim.stat().st_mtime != HOST_TIME,
                "planted": planted,
            }
        return state


def _patches(repo: Path, variant: str, targets: dict[str, str]) -> tuple[str, str]:
    """The variant's gold patch and test patch."""
    victim = targets["victim"]
    test_files: dict[str, str] = {}
    if variant in PLANS:
        plan = PLANS[variant] | {"targets": targets}
        test_files["tests/door_plan.json"] = json.dumps(plan, indent=1) + "\n"
    links = {"tests/host_file.txt": victim} if variant == "test_link" else {}
    test = _diff(repo, _append_test, test_files, links)
    fix_links = {"fix_link_abs": victim, "fix_link_rel": UP + victim.lstrip("/")}
    if variant in fix_links:
        link = {SOURCE: fix_links[variant]}
        return _diff(repo, lambda r: (r / SOURCE).unlink(), {}, link), test
    gold = _diff(repo, lambda r: (r / SOURCE).write_text(FIX), {}, {})
    if variant == "fix_git_config":
        gold += _new_file(".git/config", _git_config(targets["marker"]))
    elif variant == "fix_attributes_git_config":
        gold += _new_file(".gitattributes", "* filter=door diff=door\n")
        gold += _new_file(".git/config", _git_config(targets["marker"]))
    return gold, test


def _append_test(repo: Path) -> None:
    with (repo / "tests" / "test_victim.py").open("a") as fh:
        fh.write(WEAK_TEST)


def _diff(
    repo: Path, change: Callable[[Path], None], files: dict[str, str], links: dict[str, str]
) -> str:
    """The diff of `change`, new `files` (path -> text) and new `links` (path -> target) in
    the repository's working copy, which is left clean."""
    change(repo)
    for path, text in files.items():
        (repo / path).write_text(text)
    for path, target in links.items():
        (repo / path).symlink_to(target)
    git(repo, "add", "--intent-to-add", "--", *files, *links)
    try:
        return git(repo, "diff")
    finally:
        git(repo, "reset", "-q")
        git(repo, "checkout", "-q", ".")
        git(repo, "clean", "-qfd")


def _git_config(marker: str) -> str:
    run = f"sh -c '{{ id -u; env; }} >> {marker}; cat'"
    return (
        f'[filter "door"]\n\tclean = {run}\n\tsmudge = {run}\n[diff "door"]\n\ttextconv = {run}\n'
    )


def _new_file(path: str, text: str) -> str:
    lines = text.splitlines()
    body = "".join(f"+{line}\n" for line in lines)
    head = f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
    return f"{head}@@ -0,0 +1,{len(lines)} @@\n{body}"
