"""The one reader of the environment: every `SPICE_*` setting, validated."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from app.log_format import LogFormat
from spice_engine.llm.config import ModelConfig, OutputMode

LOCAL_PLACEHOLDER_KEY = "sk-local-no-key"


class ConfigError(ValueError):
    """The configuration cannot work as given (a required setting missing)."""


class Settings(BaseSettings):
    """Process-wide configuration, read once at start-up."""

    model_config = SettingsConfigDict(
        env_prefix="SPICE_", env_file=None, extra="ignore", use_attribute_docstrings=True
    )

    model: str = "gpt-4o-mini"
    """Default litellm model string for every pipeline."""
    api_base: str | None = None
    """OpenAI-compatible base URL (local servers, proxies)."""
    api_key: SecretStr | None = None
    """Model key; falls back to OPENAI_API_KEY, or a placeholder when api_base is local."""
    votes: int = Field(default=3, ge=1, le=15)
    """Votes per label (k); a repository may only lower it."""
    output_mode: OutputMode = "auto"
    """How answers are constrained: `json_schema`, `json_object` (+ schema for local servers),
    `text`; `auto` picks from what litellm knows of the model."""
    timeout_s: float = Field(default=60.0, gt=0)
    """Longest wait for one model answer (one attempt)."""
    connect_timeout_s: float = Field(default=10.0, gt=0)
    """A model server that does not accept the connection within this is down."""
    deadline_s: float = Field(default=90.0, gt=0)
    """Most one model request may take, retries included: a hung server fails in this."""
    max_attempts: int = Field(default=3, ge=1, le=10)
    """Attempts per model request on timeouts, 429, 5xx and connection errors."""
    cost_cap_usd: float | None = Field(default=None, gt=0)
    """Most an item may spend; a repository's `.github/spice.yml` can only lower it."""
    allowed_models: Annotated[list[str], NoDecode] = Field(default_factory=list)
    """Models a repository's `.github/spice.yml` may choose (comma-separated or JSON);
    empty = `model` alone. Every model is called through `api_base`, never the repository's."""
    allow_unpriced: bool = False
    """With a cost cap, a model whose price litellm does not know gets one request per
    item; true lets it vote on, unbounded by the cap."""
    data_dir: Path = Path(".spice-data")
    """Where the SQLite database, queue and repository clones live by default."""
    repo_context: bool = True
    """Pull requests are read against the repository at their base (aider RepoMap and the
    files the fix touches), from a clone kept under data_dir/checkouts; false: patches only."""
    checkout_disk_mb: float = Field(default=20_000, gt=0)
    """Least recently used clones are removed past this much disk."""
    log_level: str = "INFO"
    """DEBUG, INFO, WARNING or ERROR."""
    log_format: LogFormat = "text"
    """`json`: one JSON object per log line, for log pipelines."""

    # --- service (webhook App) ---
    webhook_secret: SecretStr | None = None
    """HMAC secret of the GitHub webhook; required to serve (refused when missing)."""
    database_url: str | None = None
    """SQLAlchemy URL; default SQLite under data_dir. PostgreSQL: postgresql+psycopg://..."""
    redis_url: str | None = None
    """When set, jobs go through Redis (RedisHuey) instead of the embedded SQLite queue."""
    min_free_disk_mb: float = Field(default=200.0, ge=0)
    """`/healthz` answers 503 when the data directory's disk has less free space than this."""
    calibration_min_labels: int = Field(default=20, ge=1)
    """Maintainers' clarity labels on a repository before they may calibrate ours there."""
    payload_retention_days: float = Field(default=30.0, gt=0)
    """Stored webhook payloads older than this are pruned by the worker; jobs' outcomes and
    assessments are kept."""
    worker_stop_grace_s: float = Field(default=8.0, ge=0)
    """On SIGTERM a worker lets running jobs finish this long, then hands them back to the
    queue for another worker (Docker sends SIGKILL 10 s after SIGTERM)."""
    queue_name: str = "spice"
    """Queue name (the Redis key prefix); every web and worker process must agree."""
    job_retries: int = Field(default=3, ge=0)
    """Retries of a failed job, with exponential backoff from job_retry_delay_s."""
    job_retry_delay_s: float = Field(default=10.0, ge=0)
    """First wait before a failed job runs again; doubles per retry."""
    job_max_deferrals: int = Field(default=12, ge=1)
    """A job GitHub keeps rate-limiting fails, saying why, after this many waits."""
    job_max_deferred_s: float = Field(default=6 * 3600.0, gt=0)
    """A job GitHub keeps rate-limiting fails once its delivery has waited this long."""
    job_lease_s: float = Field(default=900.0, gt=0)
    """A running job silent this long is presumed crashed and runs again."""
    test_mode: bool = False
    """Tests only: allow the web app without a webhook secret (every delivery is then 401)."""

    # --- executing repository code (validation) ---
    live_validation: bool = True
    """Validate instances harvested from merged pull requests by running their tests, always
    inside the sandbox; off (or no working sandbox) = harvested rows stay unvalidated."""
    execute_pull_requests: bool = False
    """Run an open pull request's tests against mutants of its fix (test strength), as a CI
    runner would, for repositories whose `.github/spice.yml` asks (`execute_tests: true`);
    always in the sandbox, one run per head commit."""
    execute_fork_pull_requests: bool = False
    """With `execute_pull_requests`: also pull requests from forks (anyone's code)."""
    execute_budget_s: float = Field(default=600.0, ge=10)
    """Seconds one pull request's execution may take (validation, then mutants)."""
    strength_check_conclusion: Literal["neutral", "failure_when_shown"] = "neutral"
    """The test-strength check run's conclusion: `neutral` always (informs, never blocks a
    merge), or `failure_when_shown`: failure when a wrong fix the tests accept is shown,
    success when none is (a required check then blocks such pull requests)."""
    bwrap_path: str = "bwrap"
    """bubblewrap, the sandbox every build and test run of a repository goes through."""
    sandbox_uid: int = Field(default=65534, ge=1)
    """Unprivileged user sandboxed code runs as when the worker is root."""
    sandbox_memory_mb: int = Field(default=8192, ge=256)
    """Address space per sandboxed process."""
    sandbox_processes: int = Field(default=1024, ge=16)
    """Processes the sandbox's user may have at once (a fork bomb stops here)."""
    sandbox_file_mb: int = Field(default=4096, ge=1)
    """Largest file a sandboxed process may write."""
    sandbox_tmp_mb: int = Field(default=1024, ge=1)
    """Size of a sandboxed command's own `/tmp` (memory-backed)."""
    docker_image: str = "spice-base:bookworm"
    """Base image of `--executor docker` containers: the host's distribution, so the host's
    interpreters run in it (scripts/docker-base-image.sh makes one)."""
    sandbox_min_free_disk_mb: int = Field(default=1024, ge=0)
    """A sandboxed command is killed when the disk it writes to falls below this much free."""

    # --- dashboard ---
    dashboard_token: SecretStr | None = None
    """Operator token for the dashboard (`/dashboard`): whoever holds it sees every repository
    (at least 20 characters)."""
    github_oauth_client_id: str | None = None
    """The GitHub App's client id: people sign in to the dashboard with GitHub and see the
    repositories they can write to."""
    github_oauth_client_secret: SecretStr | None = None
    """The GitHub App's client secret (with `github_oauth_client_id`)."""
    github_web_url: str = "https://github.com"
    """Where people sign in with GitHub (a GitHub Enterprise Server's own address)."""
    dashboard_session_s: float = Field(default=3600.0, ge=60)
    """How long a dashboard sign-in lasts; a GitHub user's write access is read again at the
    next sign-in."""
    dashboard_session_key: SecretStr | None = Field(default=None, min_length=32)
    """Key that signs dashboard sign-ins (at least 32 characters; changing it signs everyone
    out). Unset: a random key kept in data_dir/dashboard-session.key (mode 0600), made at the
    first sign-in; several hosts without a shared data_dir must set the same key."""

    # --- GitHub ---
    git_base_url: str = "https://github.com"
    """Where repositories are cloned from to validate harvested instances (`{url}/{owner}/{name}.git`;
    a `file://` folder for a local stand-in)."""
    github_api_url: str = "https://api.github.com"
    """REST base URL: a GitHub Enterprise Server's, or a local stand-in's such as the fake GitHub
    the tests and the offline tours use (`python -m tests.fakes.github_server`)."""
    github_app_id: int | None = None
    """The GitHub App's id (App mode, with its private key)."""
    github_private_key: SecretStr | None = None
    """PEM text of the App's private key."""
    github_private_key_path: Path | None = None
    """A file holding that key, instead of the PEM text."""
    github_token: SecretStr | None = None
    """Plain token auth (Action mode: GITHUB_TOKEN)."""
    bot_login: str | None = None
    """Our own login (e.g. `spice-triage[bot]`); found from the API when unset."""
    github_max_wait_s: float = Field(default=60.0, ge=0)
    """Longest wait a job sits through inside one run for GitHub (a rate limit's reset,
    `Retry-After`); a longer one hands the job back to the queue, due after that wait."""
    github_limit_wait_s: float = Field(default=60.0, ge=0)
    """Wait after a rate limit that names none (429, or 403 without `Retry-After`): GitHub
    asks for at least a minute."""

    @field_validator("allowed_models", mode="before")
    @classmethod
    def _split_models(cls, value: object) -> object:
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                return json.loads(text)
            return [part.strip() for part in text.split(",") if part.strip()]
        return value

    @field_validator("dashboard_token")
    @classmethod
    def _long_token(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and len(value.get_secret_value()) < 20:
            raise ValueError("too short to guard the dashboard: use at least 20 characters")
        return value

    @field_validator("api_base", "github_api_url", "github_web_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is None:
            return value
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"{value!r} is not an http(s) URL, e.g. http://127.0.0.1:8080/v1")
        return value

    def models_allowed(self) -> list[str]:
        """What a repository may pick: the operator's list, or the default model alone."""
        return self.allowed_models or [self.model]

    @model_validator(mode="after")
    def _fallback_key(self) -> Settings:
        # Without api_base litellm reads the provider's own variable (ANTHROPIC_API_KEY, ...).
        if self.api_key is None and self.api_base:
            # OpenAI-compatible servers: any key works locally, but the client insists on one.
            key = os.environ.get("OPENAI_API_KEY") or LOCAL_PLACEHOLDER_KEY
            self.api_key = SecretStr(key)
        return self

    def webhook_secret_bytes(self) -> bytes | None:
        """The webhook secret; refuses to go on without one unless in test mode."""
        if self.webhook_secret is not None and self.webhook_secret.get_secret_value():
            return self.webhook_secret.get_secret_value().encode()
        if self.test_mode:
            return None
        raise ConfigError("SPICE_WEBHOOK_SECRET is required to serve webhooks")

    def model_config_for(self, model: str | None = None, votes: int | None = None) -> ModelConfig:
        """Engine model config from these settings, with per-call overrides."""
        return ModelConfig(
            model=model or self.model,
            api_base=self.api_base,
            api_key=self.api_key,
            votes=votes or self.votes,
            output_mode=self.output_mode,
            timeout_s=self.timeout_s,
            connect_timeout_s=self.connect_timeout_s,
            deadline_s=self.deadline_s,
            max_attempts=self.max_attempts,
            cost_cap_usd=self.cost_cap_usd,
        )


def plain_github_token(settings: Settings) -> str | None:
    """SPICE_GITHUB_TOKEN's value; a copy of the docs' placeholder (`ghp_...`) is refused at
    once, before any request could fail slowly on it."""
    if settings.github_token is None:
        return None
    token = settings.github_token.get_secret_value().strip()
    if not token or "..." in token or "…" in token or token.startswith("<"):
        raise ConfigError(
            "SPICE_GITHUB_TOKEN is the docs' placeholder, not a token: give a real one, or try "
            "the offline fake GitHub (python -m tests.fakes.github_server, docs/offline.md)"
        )
    return token
