"""One error policy for every command: an expected failure is one line saying what and where;
an unexpected one is one line and the traceback in a log file, never on the terminal."""

from __future__ import annotations

import os
import tempfile
import time
import traceback
from pathlib import Path

from pydantic import ValidationError

from app.redaction import env_secret_values, redact

GITHUB_STATUS = {
    401: "GitHub refused the credentials (401): check SPICE_GITHUB_TOKEN, or the App id and key",
    403: "GitHub forbids this (403): the token lacks a permission, or a rate limit was hit",
    404: "GitHub has no such thing for these credentials (404): check the repository name "
    "and that the token or App installation can see it",
    410: "GitHub says it is gone (410)",
}


def explain(exc: BaseException) -> str | None:
    """The one line for a failure a user can act on; None for a bug."""
    from app.settings import ConfigError
    from spice_engine.errors import SpiceError

    if isinstance(exc, SpiceError | ConfigError):
        return str(exc)
    if isinstance(exc, UnicodeDecodeError):
        return f"input is not UTF-8 text ({exc.reason} at byte {exc.start})"
    if isinstance(exc, OSError):
        where = f": {exc.filename}" if exc.filename else ""
        return f"{exc.strerror or exc}{where}{_in_data_dir(exc.filename)}"
    if isinstance(exc, ValidationError):
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'value'}: {e['msg']}" for e in exc.errors()
        )
        return f"invalid value ({problems})"
    return _explain_github(exc)


def _in_data_dir(filename: object) -> str:
    """Names the setting when the path that failed is the data directory or in it: the user
    chose it (or took the default) without knowing which file the command writes there."""
    if not isinstance(filename, str | os.PathLike):
        return ""
    chosen = os.environ.get("SPICE_DATA_DIR")
    data = Path(chosen or ".spice-data").absolute()
    failed = Path(filename).absolute()
    if failed != data and data not in failed.parents:
        return ""
    told = f"SPICE_DATA_DIR={chosen}" if chosen else "SPICE_DATA_DIR unset: ./.spice-data"
    return f" (the data directory, {told}: set SPICE_DATA_DIR to a writable directory)"


def rerun_hint(kind: str, wait_s: float) -> str:
    """When to try again after GitHub asked for a wait longer than a command blocks."""
    when = time.strftime("%H:%M UTC", time.gmtime(time.time() + wait_s))
    return f"GitHub {kind.replace('_', ' ')}: it asks to wait {wait_s / 60:.0f} min; rerun after {when}"


def _explain_github(exc: BaseException) -> str | None:
    module = type(exc).__module__
    if module.startswith("app.github") and type(exc).__name__ == "GitHubAuthError":
        return f"GitHub credentials: {exc}"
    if module.startswith("app.github"):
        from app.github.retries import RetryAfterTooLong

        if isinstance(exc, RetryAfterTooLong):
            return rerun_hint(exc.kind, exc.wait_s)
    if not module.startswith("github"):
        return None
    from github import GithubException

    if not isinstance(exc, GithubException):
        return None
    known = GITHUB_STATUS.get(exc.status)
    message = exc.data.get("message") if isinstance(exc.data, dict) else None
    detail = f" — GitHub said: {message}" if message else ""
    return f"{known or f'GitHub answered {exc.status}'}{detail}"


def log_unexpected(exc: BaseException) -> Path:
    """Write the traceback (redacted) where the user can send it; returns the file."""
    folder = Path(os.environ.get("SPICE_LOG_DIR") or tempfile.gettempdir())
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"spice-error-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.log"
    text = "".join(traceback.format_exception(exc))
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(redact(text, env_secret_values()))
    return path
