"""Which sandbox repository code runs in, from the settings, and whether it can run here."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from app.settings import Settings
from spice_engine.validate.bubblewrap import Bubblewrap
from spice_engine.validate.docker import DockerSandbox
from spice_engine.validate.sandbox import Limits, SandboxUnavailable

SANDBOX_UNAVAILABLE = "sandbox_unavailable"
"""Status of a validation that did not run because no sandbox works here."""


def limits_for(settings: Settings) -> Limits:
    return Limits(
        memory_bytes=settings.sandbox_memory_mb << 20,
        processes=settings.sandbox_processes,
        file_bytes=settings.sandbox_file_mb << 20,
        tmp_bytes=settings.sandbox_tmp_mb << 20,
        min_free_disk_bytes=settings.sandbox_min_free_disk_mb << 20,
    )


def sandbox_for(settings: Settings) -> Bubblewrap:
    """The bubblewrap sandbox with the operator's paths and limits (not checked: see
    `sandbox_problem`)."""
    return Bubblewrap(settings.bwrap_path, settings.sandbox_uid, limits_for(settings))


def docker_sandbox(settings: Settings) -> DockerSandbox:
    """Containers of `docker_image` with the operator's limits, or SandboxUnavailable."""
    box = DockerSandbox(
        settings.docker_image, uid=settings.sandbox_uid, limits=limits_for(settings)
    )
    if why := box.problem():
        raise SandboxUnavailable(why)
    return box


@cache
def _probe(bwrap: str, uid: int, limits: Limits, scratch: Path) -> str | None:
    sandbox = Bubblewrap(bwrap, uid, limits)
    return sandbox.problem(scratch) or sandbox.network_problem()


def sandbox_problem(settings: Settings) -> str | None:
    """Why repository code cannot run here (None: the sandbox works): a job's command run as
    jobs run theirs, in a scratch directory made in the data directory by this process (its
    umask, its user), with the operator's limits; and the index proxy's settings. Probed once
    per process: it takes a fraction of a second."""
    # Where the App's validation task makes each job's scratch (app.harvest.validation_task).
    scratch = settings.data_dir.resolve()
    return _probe(settings.bwrap_path, settings.sandbox_uid, limits_for(settings), scratch)


def live_validation_problem(settings: Settings) -> str | None:
    """Why the App does not validate harvested instances (None: it does)."""
    if not settings.live_validation:
        return "live validation is off (SPICE_LIVE_VALIDATION=false)"
    if why := sandbox_problem(settings):
        return f"live validation is off: no sandbox ({why})"
    return None


def checked_sandbox(settings: Settings) -> Bubblewrap:
    """The sandbox, or SandboxUnavailable saying why not."""
    if why := sandbox_problem(settings):
        raise SandboxUnavailable(why)
    return sandbox_for(settings)
