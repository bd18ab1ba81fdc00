"""The fast path of a runner that loads our pytest plugins: every switchable mutant judged in
one shared test session over a mutant schema (spice_engine.strength.mutant_plugin), in up to
`SESSION_ROUNDS` sessions (a crash ends one; the next goes on without the mutants done)."""

from __future__ import annotations

from dataclasses import dataclass, field

from spice_engine.redaction import redacted_excerpt
from spice_engine.strength.choose import Choice, Chosen, schema_sources
from spice_engine.strength.config import StrengthConfig
from spice_engine.strength.result import MutantOutcome, evidence
from spice_engine.strength.runs import Runner, SessionResult
from spice_engine.strength.verdicts import NoVerdicts, session_outcome

SESSION_ROUNDS = 4
"""Sessions at most for the switchable mutants (a crash ends one; the next goes on)."""


@dataclass
class _Rounds:
    """What the sessions said so far (private to one `in_sessions` call)."""

    judged: list[str] | None = None
    log: str = ""
    done: dict[int, MutantOutcome] = field(default_factory=dict)
    alone: list[Chosen] = field(default_factory=list)
    reached: dict[str, set[int]] = field(default_factory=dict)
    unstable: list[str] = field(default_factory=list)
    differential_s: float = 0.0
    imported: set[str] | None = None


@dataclass(frozen=True)
class InSessions:
    """The sessions' verdicts, and the mutants that must be judged alone instead."""

    judged: list[str]
    done: dict[int, MutantOutcome]
    alone: list[Chosen]
    """Mutants a session could not judge: killed by a test not judged, or crashed under."""
    reached: dict[str, frozenset[int]]
    unstable: list[str]
    differential_s: float
    log: str
    imported: frozenset[str] | None = None
    """The tree's files the sessions imported (None: not said)."""


def _take(
    got: SessionResult, rounds: _Rounds, by_key: dict[int, Chosen], fixed: dict[str, str]
) -> set[int]:
    """One session's results into `rounds`; the mutants it finished."""
    if rounds.judged is None:
        rounds.judged, rounds.log = list(got.baseline or []), got.log
    rounds.unstable += [t for t in got.unstable if t not in rounds.unstable]
    if got.imported is not None:
        rounds.imported = (rounds.imported or set()) | set(got.imported)
    rounds.differential_s += sum(o.seconds for o in got.observed.values())
    for test, ids in got.reached.items():
        rounds.reached.setdefault(test, set()).update(ids)
    for key, killer in got.killed_by.items():
        c = by_key.get(key)
        if c is None:
            continue  # no mutant of ours: nothing to record
        if killer is not None and killer not in rounds.judged:
            rounds.alone.append(c)  # not a judged test's id: judged alone
            continue
        rounds.done[key] = session_outcome(c, fixed[c.path], killer, got.observed.get(key))
    if got.crashed is not None and got.crashed in by_key:
        # No test id to name: judged again alone (a real failure names its test).
        rounds.alone.append(by_key[got.crashed])
    return set(got.killed_by) | ({got.crashed} if got.crashed is not None else set())


def in_sessions(
    runner: Runner, files: list[str], tests: list[str], choice: Choice, config: StrengthConfig
) -> InSessions:
    """The switchable mutants of `choice` judged in shared sessions (the session runs even
    with none: its ordinary run says which of `tests` pass with the fix). NoVerdicts when no
    session got to the mutants."""
    tree, fixed = runner.session.tree, choice.originals
    switchable = [c for c in choice.chosen if c.site.switchable]
    only = Choice(switchable, 0, [], fixed, choice.lines)
    for path, text in schema_sources(only).items():
        tree.put(path, text)
    by_key = {c.key: c for c in switchable}
    watch = {
        c.key: (c.path, c.site.function, evidence(c.site.operator) > 1)
        for c in switchable
        if c.site.function
    }
    todo, rounds, log = list(by_key), _Rounds(), ""
    try:
        for n in range(SESSION_ROUNDS):
            if n and (not todo or runner.left() <= 0):
                break
            got = runner.mutant_session(files, tests, todo, config.per_test_s, watch)
            log = got.log
            if got.baseline is None:
                break
            finished = _take(got, rounds, by_key, fixed)
            todo = [k for k in todo if k not in finished]
            if got.timed_out or not finished:
                break  # cut, or no budget left for the plugin: another session would repeat it
    finally:
        for path in fixed:
            tree.restore(path)
    if rounds.judged is None:
        if not switchable:
            return InSessions(tests, {}, [], {}, [], 0.0, log)
        late = " (the time budget ran out)" if runner.left() <= 0 else ""
        excerpt = redacted_excerpt(log, tail=3000)
        raise NoVerdicts(f"the test session did not get to the mutants{late}: {excerpt}", log)
    reached = {t: frozenset(ids) for t, ids in rounds.reached.items()}
    return InSessions(
        judged=rounds.judged,
        done=rounds.done,
        alone=rounds.alone,
        reached=reached,
        unstable=rounds.unstable,
        differential_s=rounds.differential_s,
        log=rounds.log,
        imported=frozenset(rounds.imported) if rounds.imported is not None else None,
    )
