"""Local clones for the CLI: a repository given on the command line, checked out at a commit."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any

from app.settings import Settings
from spice_engine.errors import InputError
from spice_engine.pr.checkout import CheckoutConfig, CheckoutError, CheckoutManager


def checkout_at(
    settings: Settings, source: Path | None, key: str, sha: str | None
) -> AbstractContextManager[Path | None]:
    """A stable clone of `source` at `sha` under the data dir, or nothing without a repository."""
    if source is None:
        return nullcontext(None)
    if not sha:
        raise InputError("a repository checkout needs the base commit (--base)")
    manager = CheckoutManager(CheckoutConfig(cache_dir=settings.data_dir / "checkouts"))
    return manager.checkout(key, str(source.resolve()), sha)


def repo_dir(repos_dir: Path | None, repo: str) -> Path | None:
    """`DIR/owner__name`, `DIR/owner/name` or `DIR/name`, whichever is a git repository."""
    if repos_dir is None or not repo:
        return None
    owner, _, name = repo.partition("/")
    for candidate in (repos_dir / f"{owner}__{name}", repos_dir / owner / name, repos_dir / name):
        if (candidate / ".git").exists():
            return candidate
    return None


@contextmanager
def instance_checkout(
    settings: Settings, repos_dir: Path | None, row: dict[str, Any], notes: list[str]
) -> Iterator[Path | None]:
    """The instance's repository at its base commit when `--repos-dir` has it, else None."""
    source = repo_dir(repos_dir, str(row.get("repo") or ""))
    if source is None or not row.get("base_commit"):
        yield None
        return
    try:
        cm = checkout_at(settings, source, str(row["repo"]), str(row["base_commit"]))
        path = cm.__enter__()
    except CheckoutError as exc:
        notes.append(f"checkout failed, patches only: {exc}")
        yield None
        return
    try:
        yield path
    finally:
        cm.__exit__(None, None, None)
