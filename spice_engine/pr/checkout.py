"""One clone per repository at a stable path, the base commit per job, locks and a disk budget."""

from __future__ import annotations

import logging
import os
import re
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout
from pydantic import BaseModel, Field

from spice_engine.errors import InputError, SpiceError
from spice_engine.redaction import redacted_excerpt

log = logging.getLogger(__name__)

HARDENED = [
    "core.hooksPath=/dev/null",
    "core.symlinks=false",
    "core.fsmonitor=false",
    "submodule.recurse=false",
    "protocol.ext.allow=never",
]
"""A repository is data: no hooks run, links are checked out as plain files holding their
target, no submodule is fetched (and LFS never smudges: `GIT_LFS_SKIP_SMUDGE`)."""


class CheckoutConfig(BaseModel):
    """Where clones live and how much disk they may use."""

    cache_dir: Path
    """Clones go to `<cache_dir>/repos/<owner__name>`, locks to `<cache_dir>/locks/`."""
    disk_budget_mb: float = Field(default=20_000, gt=0)
    """Least recently used clones are removed once all clones together exceed this."""
    lock_timeout_s: float = Field(default=900, ge=0)
    """How long a job waits for another job using the same clone."""


class CheckoutError(SpiceError):
    """A clone, fetch or checkout failed."""


def _git(args: list[str], cwd: Path | None = None, http_header: str | None = None) -> str:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ADVICE": "0", "GIT_LFS_SKIP_SMUDGE": "1"}
    if http_header is not None:
        # Through the environment, not the URL or `-c`: a credential in the URL would be
        # written to the clone's config, and arguments are visible to every local user.
        env |= {
            "GIT_CONFIG_COUNT": "1",
            "GIT_CONFIG_KEY_0": "http.extraHeader",
            "GIT_CONFIG_VALUE_0": http_header,
        }
    proc = subprocess.run(
        ["git", "-c", "advice.detachedHead=false", *_config_flags(HARDENED), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        # Clone URLs may carry an installation token: never let it reach an error or a log.
        # Masked and redacted before the cut, which could split a token past recognition.
        masked = re.sub(r"://[^/@\s]+@", "://***@", proc.stderr.strip())
        detail = redacted_excerpt(masked, tail=400)
        raise CheckoutError(f"git {args[0]} failed: {detail}")
    return proc.stdout


def _config_flags(settings: list[str]) -> list[str]:
    return [flag for setting in settings for flag in ("-c", setting)]


def _dir_size(path: Path) -> int:
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                continue
    return total


class CheckoutManager:
    """Keeps clones warm between jobs; one job at a time per clone."""

    def __init__(self, config: CheckoutConfig) -> None:
        self.config = config
        self.repos = config.cache_dir / "repos"
        self.locks = config.cache_dir / "locks"

    def path_for(self, key: str) -> Path:
        """The stable clone path for a repository key such as `owner/name`."""
        safe = re.sub(r"[^A-Za-z0-9._-]+", "__", key).strip("_")
        if not safe or safe in {".", ".."}:
            raise InputError(f"unusable repository key {key!r}")
        return self.repos / safe

    def _lock(self, path: Path) -> FileLock:
        self.locks.mkdir(parents=True, exist_ok=True)
        return FileLock(
            str(self.locks / f"{path.name}.lock"), timeout=self.config.lock_timeout_s, mode=0o600
        )

    @contextmanager
    def checkout(
        self, key: str, source: str, base_sha: str, http_header: str | None = None
    ) -> Iterator[Path]:
        """The clone of `source` (URL or local path) at `base_sha`, locked while in use.

        `http_header` (e.g. `Authorization: ...`) goes with the clone and fetch only.
        """
        if not re.fullmatch(r"[0-9a-fA-F]{7,40}", base_sha):
            raise InputError(f"base commit must be a hex sha, got {base_sha!r}")
        path = self.path_for(key)
        try:
            with self._lock(path):
                self._prepare(path, source, base_sha, http_header)
                (path / ".git" / "spice-last-used").touch()
                yield path
        except Timeout as exc:
            raise CheckoutError(f"clone {path} is busy (waited {exc.lock_file})") from exc
        self.evict(keep=path)

    def _prepare(self, path: Path, source: str, sha: str, http_header: str | None) -> None:
        if not (path / ".git").is_dir():
            path.parent.mkdir(parents=True, exist_ok=True)
            log.info("cloning %s into %s", key_of(source), path)
            clone = ["clone", "--quiet", "--no-checkout", "--no-recurse-submodules"]
            # --config writes them into the clone: git run there later (aider's too) keeps them.
            persisted = [f"--config={c}" for c in HARDENED]
            _git([*clone, *persisted, source, str(path)], None, http_header)
        try:
            _git(["cat-file", "-e", f"{sha}^{{commit}}"], cwd=path)
        except CheckoutError:
            _git(["fetch", "--quiet", "origin", sha], path, http_header)
        # Only files that differ between commits are rewritten, so unchanged files keep their
        # mtime and aider's tag cache (in .git) stays valid for them.
        _git(["checkout", "--quiet", "--force", "--detach", sha], cwd=path)
        _git(["clean", "-q", "-ffdx"], cwd=path)

    def clones(self) -> list[Path]:
        if not self.repos.is_dir():
            return []
        return [
            p for p in self.repos.iterdir() if (p / ".git").is_dir() and ".removing-" not in p.name
        ]

    def evict(self, keep: Path | None = None) -> list[Path]:
        """Remove least recently used clones not in use until under the disk budget."""
        budget = self.config.disk_budget_mb * 1024 * 1024
        sizes = {p: _dir_size(p) for p in self.clones()}
        total = sum(sizes.values())
        removed: list[Path] = []
        for path in sorted(sizes, key=_last_used):
            if total <= budget:
                break
            if path == keep:
                continue
            lock = FileLock(str(self.locks / f"{path.name}.lock"), timeout=0, mode=0o600)
            try:
                with lock:
                    _remove_tree(path)
            except Timeout:
                continue  # in use by another job
            total -= sizes[path]
            removed.append(path)
            log.info("evicted clone %s (%.1f MB)", path, sizes[path] / 1e6)
        return removed


def _last_used(path: Path) -> float:
    marker = path / ".git" / "spice-last-used"
    return marker.stat().st_mtime if marker.exists() else 0.0


def _remove_tree(path: Path) -> None:
    import shutil

    # Rename first so a half-removed clone is never mistaken for a usable one.
    doomed = path.with_name(f"{path.name}.removing-{time.time_ns()}")
    path.rename(doomed)
    shutil.rmtree(doomed, ignore_errors=True)


def key_of(source: str) -> str:
    """A readable repository key from a URL or path (`owner/name` for GitHub URLs)."""
    m = re.search(r"github\.com[/:]([^/]+/[^/]+?)(?:\.git)?/?$", source)
    return m.group(1) if m else Path(source.rstrip("/")).name
