"""The traced runs of the differential run (spice_engine.strength.traced): the tests run whole
with traced files in the tree, the fix's twice first. Where the language records what a test
file's calls got back (spice_engine.langs.capabilities.ReceivedValues: Java's), the test patch's
files do so in every traced run, so a survivor whose function answers otherwise is judged at
the tests' own level: the values their calls received. They are written once for all the traced
runs: a test file written again before each run made Maven compile every test of the module
again each time (gson's 102, 3 s of a 5 s run). A test file so written that does not build (a
call whose type only its context gave) leaves the runs without it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from spice_engine.langs.capabilities import received_values
from spice_engine.runs.session import Run
from spice_engine.runs.validator_support import test_files
from spice_engine.strength.runs import Runner
from spice_engine.validate.outcomes import passed


@contextmanager
def recording(runner: Runner, mark: str) -> Iterator[dict[str, str]]:
    """The test patch's files recording what their calls got back, in the tree while the block
    runs (none where the language records nothing), as the host's record has them after."""
    tree = runner.session.tree
    tests = _received(runner, mark)
    for path, text in tests.items():
        tree.put(path, text)
    try:
        yield tests
    finally:
        for path in tests:
            tree.restore(path)


def fix_runs(
    runner: Runner, judged: list[str], texts: dict[str, str], mark: str, tests: dict[str, str]
) -> tuple[list[Run], str]:
    """The fix's two traced runs with `texts` in the tree, and why they cannot be read against
    ("": they can). The `tests` recording (`recording`) that fail a judged test are put back as
    they were, and the runs go on without them."""
    first = traced_run(runner, texts, mark)
    if tests and not first.killed and _failed(runner, judged, [first]):  # not the budget
        for path in tests:
            runner.session.tree.restore(path)
        first = traced_run(runner, texts, mark)
    runs = [first, traced_run(runner, texts, mark)]
    return runs, _failed(runner, judged, runs)


def _received(runner: Runner, mark: str) -> dict[str, str]:
    """The test patch's files, from the host's record, recording what their calls got back."""
    session = runner.session
    found: dict[str, str] = {}
    for path in test_files(session.job.test_patch):
        source = session.tree.text(path)
        written = received_values(session.language, path, source, mark) if source else None
        if written is not None:
            found[path] = written
    return found


def traced_run(runner: Runner, texts: dict[str, str], mark: str) -> Run:
    """The tests run whole with `texts` in the tree, then what the traced functions wrote
    (`/tmp/<mark>`, the sandbox's own) printed to the log, after everything else (the channel
    is the runner's report: Maven's last XML report would have the lines run into it)."""
    session = runner.session
    assert session.prepared is not None, "prepare() first"
    tree, plan = session.tree, session.prepared.plan
    tests = session.language.test_command(tree, runner.targets, plan)
    phase = tests.model_copy(
        update={"argv": ("sh", "-c", f'"$@"; cat /tmp/{mark} >&2 2>/dev/null', "sh", *tests.argv)}
    )
    for path, text in texts.items():
        tree.put(path, text)
    try:
        done = runner.run_phase("traced", phase, runner.test_run_s)
    finally:
        for path in texts:
            tree.restore(path)
    if done is None:
        return Run(outcomes={}, messages=[], log="", seconds=0.0, killed="not run")
    return Run(
        outcomes=session.language.outcomes(done.channel, done.log, plan),
        messages=[],
        log=done.log,
        seconds=done.seconds,
        killed=done.killed,
        channel=done.channel,
    )


def lost(runner: Runner, judged: list[str], run: Run) -> list[str]:
    """The judged tests the fix's own run passes and `run` does not."""
    control = runner.control(judged)
    return [t for t in judged if passed(control, t) and not passed(run.outcomes, t)]


def _failed(runner: Runner, judged: list[str], runs: list[Run]) -> str:
    """Why the fix's traced runs cannot be read against ("": they can)."""
    for run in runs:
        if run.killed:
            return f"the fix's traced run was stopped ({run.killed})"
        if failing := lost(runner, judged, run):
            return f"a judged test fails in the fix's traced build ({failing[0]}): not traced"
    return ""
