"""An environment built once: the first job of a key builds it under a lock, the others wait
and reuse it; a half-built one (a crash, a failed build) is never reused."""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

from spice_engine.validate import door

READY = ".ready"


def is_built(envs_dir: Path, key: str) -> bool:
    """Whether a finished `envs_dir/key` is there (it is never taken away once finished)."""
    return door.is_file(envs_dir / key, READY)


def built_once(envs_dir: Path, key: str, build: Callable[[Path], None]) -> bool:
    """`envs_dir/key`, made by `build(folder)` unless a finished one is there; True when this
    call built it (a cold start)."""
    shared = envs_dir / key
    envs_dir.mkdir(parents=True, exist_ok=True)
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
    with os.fdopen(os.open(envs_dir / f"{key}.lock", flags, 0o600), "rb") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one builder per environment; others wait
        if door.is_file(shared, READY):
            return False
        shutil.rmtree(shared, ignore_errors=True)  # a half-built one from a crash
        try:
            build(shared)
        except BaseException:
            shutil.rmtree(shared, ignore_errors=True)
            raise
        door.write_text(shared, READY, "")
        return True
