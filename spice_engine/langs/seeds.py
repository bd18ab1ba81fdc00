"""A plan's seed (spice_engine.langs.base.Seed): made once per toolchain and settings, copied
into each job.

Go compiles its standard library into each job's build cache: 20 s of every cold job, the
same bytes for every tree. The cache cannot be shared: Go trusts what it finds there, and a
tree's tests can write to it. So the seed is made by a run that sees no tree (the language's
own small project, the toolchain, an empty job), kept outside every sandbox, and each job
gets a copy of it that only that job's commands can change.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from spice_engine.langs.base import Phase, Plan, Seed
from spice_engine.redaction import redacted_excerpt
from spice_engine.validate import door
from spice_engine.validate.env_once import built_once
from spice_engine.validate.executor import RunResult

log = logging.getLogger(__name__)

SEEDS_DIR = "SPICE_SEEDS_DIR"
"""Where seeds are kept when set (several data folders of one machine then share them, as the
test suite's do); else beside the environments."""
SEED_TIMEOUT_S = 900

RunSeed = Callable[[Phase, Plan, Path, Path], RunResult]
"""Runs the seed's phase in the sandbox: (the phase, the plan to run it with, the job folder,
the folder holding the seed's project as `/testbed`)."""


class SeedFailed(Exception):
    """The seed's own project did not build: jobs go without it (slower, not wrong)."""


def seeds_dir(envs_dir: Path) -> Path:
    return Path(os.environ.get(SEEDS_DIR) or envs_dir / "seeds")


def seed_key(plan: Plan, seed: Seed) -> str:
    """The seed's folder name: what its bytes depend on (the toolchain, the project, and the
    settings every command of the plan runs with)."""
    parts = [
        plan.toolchain.model_dump_json(),
        seed.model_dump_json(),
        repr(sorted(plan.env.items())),
    ]
    digest = hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]
    return f"{plan.language}-{plan.toolchain.name}-{digest}".replace("/", "_")


def plant(plan: Plan, job: Path, envs_dir: Path, run: RunSeed) -> bool:
    """Copy `plan`'s seed into `job` (made first if no run has made it); False when the plan
    has none or it could not be made (said once in the log)."""
    seed = plan.seed
    if seed is None:
        return False
    where = seeds_dir(envs_dir)
    key = seed_key(plan, seed)
    # What makes it sees nothing of a tree: no caches, no environment shown in it.
    alone = plan.model_copy(update={"caches": (), "tree_binds": {}, "seed": None})

    def make(folder: Path) -> None:
        folder.mkdir(mode=0o700)
        scratch = Path(tempfile.mkdtemp(dir=where, prefix=f"{key}-making-"))
        try:
            project = scratch / "project"
            project.mkdir()
            for path, text in seed.files.items():
                door.write_text(project, path, text)
            for own in ("home", "tmp"):
                (scratch / "job" / own).mkdir(parents=True)
            done = run(seed.phase, alone, scratch / "job", project)
            made = scratch / "job" / seed.folder
            if done.killed or done.returncode != 0 or not made.is_dir() or made.is_symlink():
                why = done.killed or f"exit {done.returncode}"
                raise SeedFailed(f"{why}: {redacted_excerpt(done.log, tail=300)}")
            shutil.copytree(made, folder / seed.folder, symlinks=True)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    try:
        built_once(where, key, make)
        shutil.copytree(
            where / key / seed.folder, job / seed.folder, symlinks=True, dirs_exist_ok=True
        )
    except SeedFailed as exc:
        log.warning("no seed %s: its project did not build (%s)", key, " ".join(str(exc).split()))
        return False
    except OSError as exc:  # a seeds folder this user cannot use: slower, not wrong
        log.warning("no seed %s: %s", key, exc)
        return False
    return True
