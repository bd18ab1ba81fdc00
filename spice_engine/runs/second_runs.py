"""A validation's second runs of its fail-to-pass candidates (to tell flaky tests): read from
the first runs' own sessions where our plugin reran them, the rest run again."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

from spice_engine.langs.prepared import Prepared
from spice_engine.langs.python_interpreters import MissingPython
from spice_engine.runs.session import Run, Session
from spice_engine.runs.validator_support import Validation, ended, run_targets
from spice_engine.validate import reruns
from spice_engine.validate.executor import EnvBuildError
from spice_engine.validate.outcomes import Outcomes
from spice_engine.validate.tree import Tree


def second_outcomes(
    session: Session,
    record: Validation,
    candidates: list[str],
    first: tuple[Outcomes, Outcomes],
    runs: tuple[Run, Run],
) -> tuple[Outcomes, Outcomes]:
    """Second outcomes of the candidates: from the runs' own sessions where the plugin reran
    them (no extra process), the rest from two more runs. A candidate whose in-session rerun
    disagrees with its first run is run again in new processes too, and that verdict stands:
    a test run twice in one session can see the state its first run left (a shared app
    fixture, a build folder), which says nothing about the test being flaky."""
    before, after = first
    found = [reruns.read_again(r.messages) for r in runs]
    again_before = found[0].outcomes if found[0] else {}
    again_after = found[1].outcomes if found[1] else {}
    record.durations["reruns"] = round(sum(f.seconds for f in found if f), 3)
    # A candidate absent before (its module did not import) has no before-outcome to repeat.
    missing = [
        t for t in candidates if t not in again_after or (t in before and t not in again_before)
    ]
    disagreeing = [
        t
        for t in candidates
        if t not in missing
        and (again_after[t] != after.get(t) or again_before.get(t, before.get(t)) != before.get(t))
    ]
    record.reruns = "new_processes" if missing else "in_session"
    missing += disagreeing
    if missing:
        t0 = time.monotonic()
        more_before, more_after = _rerun(session, missing)
        record.durations["reruns"] += round(time.monotonic() - t0, 3)
        again_before = again_before | more_before
        again_after = again_after | more_after
    wanted = set(candidates)
    record.not_rerun = [
        t for t in candidates if t not in again_after or (t in before and t not in again_before)
    ]
    return (
        {t: s for t, s in again_before.items() if t in wanted},
        {t: s for t, s in again_after.items() if t in wanted},
    )


def _rerun(session: Session, candidates: list[str]) -> tuple[Outcomes, Outcomes]:
    """Both outcomes again, in two more runs, for tests the plugin did not rerun.

    With our plugins, the after-rerun goes on in the session's tree while a second tree (base
    + test patch, its own venv: the editable install is replayed in ~0.1 s) takes the
    before-rerun, each with exactly the candidates chosen inside pytest (an id cut at a space,
    as SWE-bench lists it, or one with an escape names no test on a command line). Without
    them, both in the session's own tree, reusing its build.
    """
    job, timeout = session.job, session.job.timeout_s
    python = session.takes_plugins
    # Other runners run the test patch's files again whole: they take no ids.
    files = reruns.files_of(candidates) if python else run_targets(job)

    def again(name: str, tree: Tree | None = None, prepared: Prepared | None = None) -> Outcomes:
        plugin = (
            session.plugin(reruns.PLUGIN_SOURCE, reruns.RERUN_PLUGIN, reruns.only(candidates))
            if python
            else None
        )
        return ended(session.run(name, files, timeout, plugin, tree, prepared), name, timeout)

    if not python:
        # A compiled language's build lives in the session's tree and job space: a second
        # tree would build everything again. Both reruns go there, one after the other.
        after = again("rerun_after")
        session.tree.apply(job.patch, reverse=True)
        return again("rerun_before"), after
    with ThreadPoolExecutor(max_workers=1) as pool:
        after_again = pool.submit(again, "rerun_after")
        try:
            with session.twin() as (twin, prepared):
                twin.apply(job.test_patch)
                return again("rerun_before", twin, prepared), after_again.result()
        except (MissingPython, EnvBuildError):
            pass  # no second environment here: the session's tree takes it, below
    after = after_again.result()
    session.tree.apply(job.patch, reverse=True)
    return again("rerun_before"), after
