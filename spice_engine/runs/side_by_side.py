"""Validation's runs before and after the fix at once, each in a tree of its own, for a
language whose second run would reuse nothing of the first (spice_engine.langs.capabilities
`side_by_side`): the two runs cost the time of one, not of two."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack

from spice_engine.langs.python_interpreters import MissingPython
from spice_engine.runs.session import Run, Session
from spice_engine.validate.executor import EnvBuildError


def before_and_after(session: Session, files: list[str]) -> tuple[Run, Run] | None:
    """Both runs: before in a second tree of the base commit with the test patch, after in the
    session's own tree, which holds the test patch and takes the fix here (so it ends as the
    sequential runs leave it: both patches applied, the later run's build in it). None, with
    the session's tree untouched, when no second environment can be had here."""
    job, timeout = session.job, session.job.timeout_s
    with ExitStack() as stack:
        try:
            twin, prepared = stack.enter_context(session.twin("before"))
        except (MissingPython, EnvBuildError):
            return None
        twin.apply(job.test_patch)
        session.tree.apply(job.patch)
        with ThreadPoolExecutor(max_workers=1) as pool:
            later = pool.submit(session.run, "after", files, timeout)
            before = session.run("before", files, timeout, None, twin, prepared)
            after = later.result()
        # What a caller reads as the last log is the run after the fix's, as in turn.
        session.last_log = after.log
        return before, after
