"""`.github/spice.yml` from the default branch, validated; cached with a TTL; errors reported."""

from __future__ import annotations

import hashlib
import re
import threading
from typing import Literal

import yaml
from cachetools import TTLCache
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from app.github.client import GitHubRepo

CONFIG_PATH = ".github/spice.yml"
CommentMode = Literal["always", "when-actionable", "never"]


class Pipelines(BaseModel):
    model_config = ConfigDict(extra="forbid")

    issues: bool = True
    pull_requests: bool = True
    harvest: bool = True
    """Merged PRs become labelled task instances in the App's store (model calls, no writes
    to GitHub)."""


class Models(BaseModel):
    """Model per pipeline; None = the service default."""

    model_config = ConfigDict(extra="forbid")

    issues: str | None = None
    pull_requests: str | None = None


class RepoConfig(BaseModel):
    """What a repository's maintainers can choose; unknown keys are errors, not silence."""

    model_config = ConfigDict(extra="forbid")

    pipelines: Pipelines = Field(default_factory=Pipelines)
    models: Models = Field(default_factory=Models)
    votes: int | None = Field(default=None, ge=1, le=9)
    label_prefix: str = Field(default="", max_length=20, pattern=r"^[A-Za-z0-9 _./:-]*$")
    comment_mode: CommentMode = "always"
    dry_run: bool = False
    ignored_authors: list[str] = Field(
        default_factory=lambda: ["*[bot]", "dependabot", "renovate"], max_length=100
    )
    """Logins or globs whose issues and PRs are not assessed."""
    cost_cap_usd: float | None = Field(default=None, gt=0, le=100)
    """Per issue or PR."""
    test_paths: list[str] = Field(default_factory=list, max_length=50)
    calibration: bool = True
    """Let maintainers' labels on this repository calibrate ours (app.calibration)."""
    """Globs that mark test files in a PR diff, overriding the built-in rules."""
    execute_tests: bool = False
    """Run pull requests' tests against mutants of their fix (only where the operator allows:
    SPICE_EXECUTE_PULL_REQUESTS)."""

    def ignores(self, login: str) -> bool:
        """Case-insensitive; `*` is the only wildcard (so `*[bot]` means what it says)."""
        return any(_glob(p).fullmatch(login) for p in self.ignored_authors)


def _glob(pattern: str) -> re.Pattern[str]:
    return re.compile(re.escape(pattern).replace(r"\*", ".*"), re.IGNORECASE)


class ConfigResult(BaseModel):
    """The config in force and, when the file was invalid, why (defaults are NOT used then)."""

    config: RepoConfig | None
    error: str | None = None
    problems: list[tuple[str, str]] = Field(default_factory=list)
    """(field path, message) per validation error."""
    source_hash: str = ""
    """Hash of the file's text (empty when absent): tells whether a reported error changed."""


def parse_config(text: str | None) -> ConfigResult:
    if text is None:
        return ConfigResult(config=RepoConfig())
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        return ConfigResult(config=None, error=f"not valid YAML: {exc}", source_hash=digest)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        return ConfigResult(
            config=None, error="the top level must be a mapping", source_hash=digest
        )
    try:
        return ConfigResult(config=RepoConfig.model_validate(data), source_hash=digest)
    except ValidationError as exc:
        problems = [(".".join(str(p) for p in err["loc"]), err["msg"]) for err in exc.errors()]
        error = "; ".join(f"{path or '(root)'}: {msg}" for path, msg in problems)
        return ConfigResult(config=None, error=error, problems=problems, source_hash=digest)


class ConfigCache:
    """Config per repository, re-read after `ttl_s` (a push to the default branch shows soon)."""

    def __init__(self, ttl_s: float = 300.0, maxsize: int = 4096) -> None:
        self._cache: TTLCache[str, ConfigResult] = TTLCache(maxsize=maxsize, ttl=ttl_s)
        self._lock = threading.Lock()

    def load(self, repo: GitHubRepo) -> ConfigResult:
        with self._lock:
            hit = self._cache.get(repo.full_name)
        if hit is not None:
            return hit
        result = parse_config(repo.read_default_branch_file(CONFIG_PATH))
        with self._lock:
            self._cache[repo.full_name] = result
        return result
