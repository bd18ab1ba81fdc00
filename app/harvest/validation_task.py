"""Validation of harvested instances as its own queue task: `spice worker`s run the tests,
never the webhook path, and the result is stored on the instance for `spice export`."""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from huey import Huey
from sqlalchemy import Engine

from app.executors import executor_for
from app.harvest.store import HarvestStore
from app.redaction import redacted_outcome, secret_values
from app.sandboxing import SANDBOX_UNAVAILABLE, live_validation_problem
from app.settings import Settings
from app.store.engine import database_url, make_engine, session_factory
from app.store.retention import VALIDATION_LOGS
from spice_engine.dataset.completion import complete
from spice_engine.runs.validate_rows import merge, validate_rows
from spice_engine.runs.validator import Validated, Validation
from spice_engine.validate.clone_cache import clone_from_github
from spice_engine.validate.gitwork import GitError

log = logging.getLogger(__name__)
TASK_NAME = "validate_instance"


def run_validation(settings: Settings, store: HarvestStore, instance_id: str) -> str:
    """Validate one stored instance and store the outcome; returns its status."""
    stored = store.instance(instance_id)
    if stored is None:
        return "missing"
    row = dict(stored.instance)
    secrets = secret_values(settings)
    if why := live_validation_problem(settings):
        # Repository code never runs outside the sandbox: the row says why it is unvalidated.
        off = Validated(validation=Validation(status=SANDBOX_UNAVAILABLE, detail=why))
        store.save_validation(
            instance_id, redacted_outcome(merge(row, off, "", ""), "validation", secrets)
        )
        log.warning("validate %s: %s", instance_id, why)
        return SANDBOX_UNAVAILABLE
    data = settings.data_dir.resolve()
    try:
        git_dir = clone_from_github(str(row["repo"]), data / "repos", settings.git_base_url)
    except GitError as exc:
        log.warning("validate %s: cannot clone %s: %s", instance_id, row["repo"], exc)
        raise  # a transient network failure: the task's retry tries again
    with tempfile.TemporaryDirectory(dir=data, prefix="validate-") as scratch:
        [validated] = validate_rows(
            [row],
            {str(row["repo"]): git_dir},
            # Each row in its language, planned as `spice validate` plans it.
            executor_for(settings),
            Path(scratch),
            logs_dir=data / VALIDATION_LOGS,
        )
    validated = complete(validated, data / "envs")  # what others need to load and rebuild it
    store.save_validation(instance_id, redacted_outcome(validated, "validation", secrets))
    status = str(validated["spice"]["validation"]["status"])
    log.info("validate %s: %s", instance_id, status)
    return status


def register_validation_task(
    huey: Huey, settings: Settings, engine: Engine | None = None
) -> Callable[[str], Any]:
    """Register `validate_instance` on `huey` (workers and enqueuers alike); returns the
    function that enqueues it. `engine`: the process's own (else one is made)."""
    bound = engine if engine is not None else make_engine(database_url(settings))
    store = HarvestStore(session_factory(bound))

    @huey.task(retries=2, retry_delay=60, name=TASK_NAME)
    def validate_instance(instance_id: str) -> str:
        return run_validation(settings, store, instance_id)

    return validate_instance
