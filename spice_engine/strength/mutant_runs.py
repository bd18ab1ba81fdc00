"""Verdicts of chosen mutants: in the shared mutant session when the runner takes our plugins
(spice_engine.strength.schema_session), else (and for code run at import, and what a session
could not judge) each in a process of its own, its tests' files run whole.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from spice_engine.redaction import redacted_excerpt
from spice_engine.strength.choose import Choice, Chosen
from spice_engine.strength.config import StrengthConfig
from spice_engine.strength.result import MutantOutcome, Verdict
from spice_engine.strength.run_verdict import run_verdict
from spice_engine.strength.runs import Runner
from spice_engine.strength.schema_session import InSessions, in_sessions
from spice_engine.strength.shell_examples import RESERVE as COMMANDS_RESERVE
from spice_engine.strength.shell_examples import has_commands
from spice_engine.strength.verdicts import NoVerdicts, Verdicts, outcome
from spice_engine.validate.outcomes import FAILING, passed

NOT_REACHED = "time budget: not reached"
BUDGET_GONE = (
    "the time budget ({budget}) ran out before the fix's own run ended{spent}: nothing is "
    "known of its tests; re-run with the environment ready, or a larger budget"
)
DRIVEN_RESERVE = 1 / 3
"""Of the budget left when the verdicts start, what a driven runner keeps for after them."""
PROBES_RESERVE = 0.15
"""What a runner neither driven nor with our plugins keeps: its survivors' probes and traces
are what shows or holds them (jq-3161's mutants took all of a 457 s budget, leaving every
survivor shown on a killed neighbour's line alone)."""


def _spent(runner: Runner) -> str:
    prepared = runner.session.durations.get("environment")
    return f" (preparing the environment took {prepared:.0f} s of it)" if prepared else ""


def _one_run(runner: Runner, tests: list[str], config: StrengthConfig) -> InSessions:
    """Without the plugin: one whole run of the fix says which of `tests` pass with it."""
    done = runner.outcomes(tests, whole_files=True)
    if done.killed and runner.left() <= 1:
        why = BUDGET_GONE.format(budget=config.budget_said(), spent=_spent(runner))
        raise NoVerdicts(why, done.log, cut=True)
    runner.bound_runs(done.seconds, config.run_slack_s, config.validation_s)
    if done.outcomes and not set(tests) & set(done.outcomes):
        raise NoVerdicts(foreign_ids(tests, list(done.outcomes)), done.log)
    judged = [t for t in tests if passed(done.outcomes, t)]
    runner.controls[tuple(judged)] = done.outcomes  # what each mutant's run is read against
    return InSessions(judged, {}, [], {}, [], 0.0, done.log)


def mutate(
    runner: Runner,
    files: list[str],
    tests: list[str],
    choice: Choice,
    config: StrengthConfig,
    fail_to_pass: Sequence[str] = (),
) -> Verdicts:
    """Each chosen mutant's verdict, judged by those of `tests` that pass with the fix;
    NoVerdicts when none could be judged (before any mutant's own run: when no judged test,
    or none of `fail_to_pass`, passes with the fix)."""
    fast = runner.plugins
    found = (
        in_sessions(runner, files, tests, choice, config)
        if fast
        else _one_run(runner, tests, config)
    )
    where = "in the mutant session" if fast else "in its run"
    if not found.judged:
        detail = f"no judged test passes with the fix ({where})"
        raise NoVerdicts(detail + _first_error(found.log), found.log)
    if fail_to_pass and not set(fail_to_pass) & set(found.judged):
        detail = f"no FAIL_TO_PASS test passes with the fix ({where})"
        raise NoVerdicts(detail + _failure_line(found.log, fail_to_pass), found.log)
    done = dict(found.done)
    alone = found.alone + [c for c in choice.chosen if not (fast and c.site.switchable)]
    # Where our driver makes the differential run after the verdicts, a share of the budget is
    # kept for it and the probes it needs: a survivor without one is held, not shown; without
    # it, a share for the probes and traces; where the issue runs the tree's programs, one for
    # its commands too (jq-3161's mutants took all of a 457 s budget, leaving them unrun).
    kept = DRIVEN_RESERVE * runner.left() if not fast and runner.session.driven_runs else 0.0
    if not kept and not fast:  # the probes of survivors' lines and decisions, and traces
        kept = PROBES_RESERVE * runner.left()
        if has_commands(runner.session):  # the issue's own commands
            kept += COMMANDS_RESERVE * runner.left()
    with runner.holding(kept):
        for c in dict.fromkeys(alone):
            done[c.key] = judge_alone(
                runner, found.judged, c, choice.originals[c.path], done.get(c.key)
            )
    for c in choice.chosen:
        if c.key not in done:
            done[c.key] = outcome(c, choice.originals[c.path], Verdict.NOT_RUN, "none", NOT_REACHED)
    return Verdicts(
        judged=tuple(found.judged),
        done=done,
        reached=found.reached,
        unstable=tuple(found.unstable),
        differential_s=found.differential_s,
        log=found.log,
        imported=found.imported,
    )


def foreign_ids(tests: Sequence[str], reported: Sequence[str]) -> str:
    """Why no judged test could be read: the row names its tests as another harness does."""
    return (
        f"none of the row's {len(tests)} FAIL_TO_PASS/PASS_TO_PASS ids is a test this run "
        f"reports (the row names {redacted_excerpt(tests[0], head=120)!r}, the run "
        f"{redacted_excerpt(sorted(reported)[0], head=120)!r}): lists from "
        "another harness? `spice validate` the row first, then measure what it wrote"
    )


def _failure_line(log: str, tests: Sequence[str]) -> str:
    """pytest's summary line of the first of `tests` that failed (`-rA`: "FAILED id - why"),
    which often says what the sandbox lacks (e.g. a connection refused: no network)."""
    for line in log.splitlines():
        kind, _, rest = line.partition(" ")
        if kind in FAILING and any(rest.startswith(t) for t in tests):
            return f": {redacted_excerpt(line, head=300)}"
    return ""


ERROR = re.compile(r"\berror\b", re.IGNORECASE)


def _first_error(log: str) -> str:
    """The log's first line naming an error (else its last line), which says why nothing
    passed when the build stopped before any test: a compiler's `error:` above make's own
    lines; jq without its oniguruma submodule, `make[1]: *** [...all-recursive] Error 1`."""
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    errors = [line for line in lines if ERROR.search(line)]
    said = errors[:1] or lines[-1:]
    return f"; its log says: {redacted_excerpt(said[0], head=300)}" if said else ""


def judge_alone(
    runner: Runner, judged: list[str], c: Chosen, fixed: str, before: MutantOutcome | None = None
) -> MutantOutcome:
    """The mutant's verdict from its plain source run in a process of its own (the test files
    run whole, as SWE-bench's harness would grade this wrong fix); `before`: its outcome so far
    (a survivor of the session keeps what its differential run saw)."""
    if runner.left() <= 0:
        if before is not None and before.verdict == Verdict.SURVIVED:
            return before
        return outcome(c, fixed, Verdict.NOT_RUN, "none", "time budget: not run alone")
    tree = runner.session.tree
    tree.put(c.path, c.source)
    try:
        done = runner.outcomes(judged, whole_files=True, cap=runner.cap_for(c.path))
    finally:
        tree.restore(c.path)
    runner.ran(c.path, judged, done)
    gone = runner.left() <= 1
    lacks = not done.killed and any(t not in done.outcomes for t in judged)
    control = runner.control(judged) if lacks else {}
    said = run_verdict(done, judged, gone, control, died_is_kill=runner.plugins)
    return outcome(c, fixed, said.verdict, "process", said.reason, said.killed_by, before)


def confirm(
    runner: Runner, verdicts: Verdicts, choice: Choice, ranked: list[int], limit: int
) -> Verdicts:
    """Session survivors re-run alone, in `ranked` order: up to `limit`, or every one when some
    judged test could not judge in the session (then those the budget leaves are not run)."""
    done = dict(verdicts.done)
    survivors = [
        k for k in ranked if done[k].verdict == Verdict.SURVIVED and done[k].run == "session"
    ]
    must = bool(verdicts.unstable)
    by_key = {c.key: c for c in choice.chosen}
    for k in survivors if must else survivors[:limit]:
        c = by_key[k]
        done[k] = judge_alone(runner, list(verdicts.judged), c, choice.originals[c.path], done[k])
    if must:  # a test that could not judge in the session: its survivors there are not verdicts
        why = "time budget: not confirmed alone (a judged test could not judge in the session)"
        for k in survivors:
            if done[k].run == "session":
                c = by_key[k]
                done[k] = outcome(c, choice.originals[c.path], Verdict.NOT_RUN, "none", why)
    return verdicts.model_copy(update={"done": done})
