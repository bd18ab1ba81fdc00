"""The issue's shell commands as evidence, for a project that builds a program: a survivor
under which the reporter's own `jq -n '[1,2,3] | .[1.5] = 42'` prints something else than
under the fix is a wrong fix on the very input the issue is about, whatever the tests check.

The commands (spice_engine.strength.shell_commands) run in the sandbox with the programs the
tree builds (`Programs`, spice_engine.langs.capabilities), built where the tests' build leaves
its output, by our driver (spice_engine.strength.shell_support): twice with the fix's build
(what they print must not move between two runs), then once with each survivor's, best-ranked
first, each a rebuild of what the mutant changed, within a share of the budget left. A
survivor whose commands print otherwise is marked `difference="issue"`, as the Python
example's are (spice_engine.strength.issue_examples); one whose commands print the same, or
whose build fails, is left as it was. A Python tree builds nothing: its console scripts are
called by their entry points inside the example driver's states, each survivor switched on.
"""

from __future__ import annotations

import json
import shlex
import time
from pathlib import Path
from typing import Any

from spice_engine.langs.base import TESTBED, Phase
from spice_engine.langs.capabilities import IssueExamples, entry_points, programs
from spice_engine.langs.programs import ProgramBuild
from spice_engine.redaction import redacted_excerpt
from spice_engine.runs.session import Session
from spice_engine.strength.choose import Choice, Chosen
from spice_engine.strength.issue_examples import (
    FLOOR_S,
    READS_SWITCH,
    SHARE,
    UNFINISHED,
    run_states,
    to_try,
    told,
)
from spice_engine.strength.issue_examples import MOVES as EXAMPLE_MOVES
from spice_engine.strength.runs import Runner
from spice_engine.strength.shell_commands import shell_commands
from spice_engine.strength.shell_neighbours import neighbours
from spice_engine.strength.shell_support import SETTINGS
from spice_engine.strength.verdicts import Verdicts

DRIVER = Path(__file__).with_name("shell_support.py")
COMMAND_S = 5.0
"""What each command of the session may take on top of a floor (a mutant that loops is cut)."""
SESSION_FLOOR_S = 20.0
UNBUILT = "the issue's commands not run: the fix's programs did not build ({why})"
NOT_BUILT = "the issue's commands run none of the programs the build made: they say nothing"
MOVES = "the issue's commands print something else on two runs of the fix: they say nothing"
LEFT = "{n} survivor(s) not run against the issue's commands (the time budget)"
BUDGET = "the issue's commands not run (the time budget)"
KEEP = 200_000
"""What of the session's printed pairs comes back from the example driver (all, short of a
flood: cut, they no longer parse, and nothing is told apart)."""
IN_ENVIRONMENT = {
    EXAMPLE_MOVES: MOVES,
    UNFINISHED: "the issue's commands did not run to their end under the fix: they say nothing",
    READS_SWITCH: "the issue's commands print something else under an id no code reads: "
    "not trusted",
}
"""What stops the driver's states, said of the commands."""
RESERVE = 0.1
"""Of the budget left as the mutants start, what is kept for the issue's commands: a build of
the fix's programs and one a survivor cost less than a mutant's run (jq's took 9-16 s of
285-457 s budgets; a quarter kept cost jq-2821 seven more mutants unrun)."""


def has_commands(session: Session) -> bool:
    """Whether the session's issue runs one of the programs its tree builds."""
    language = programs(session.language)
    if language is None:
        return False
    problem = str(session.job.instance.get("problem_statement") or "")
    return bool(shell_commands(problem, language.programs(session.tree)))


def run_shell_examples(
    runner: Runner, verdicts: Verdicts, choice: Choice, problem: str
) -> tuple[Verdicts, str]:
    """`verdicts` with each survivor the issue's commands tell from the fix marked so; and
    what stopped the commands from saying anything ("" when they ran, or there were none)."""
    session = runner.session
    language = programs(session.language)
    if language is None or session.prepared is None:
        return verdicts, ""
    names = language.programs(session.tree)
    commands = shell_commands(problem, names)
    if not commands:
        return verdicts, ""
    build = language.program_build(session.tree, session.prepared.plan)
    if build is None and isinstance(session.language, IssueExamples):
        return _in_environment(runner, verdicts, choice, commands)
    near = neighbours(commands, names)
    chosen = {c.key: c for c in choice.chosen}
    done = verdicts.done
    order = to_try(done, chosen)
    if build is None or not order:
        return verdicts, ""
    left = runner.left()
    end = time.monotonic() + min(left, max(left * SHARE, FLOOR_S))
    settings = {
        "commands": commands + near,
        "near_from": len(commands),
        "programs": names,
        "folders": list(build.folders),
    }
    t0 = time.monotonic()
    fixed, why = _run(runner, build, settings | {"runs": 2}, end, sorted(choice.originals))
    if len(fixed) < 2:
        return verdicts, UNBUILT.format(why=why) if why else BUDGET
    if not fixed[0].get("built"):
        return verdicts, NOT_BUILT
    moving = _moving(fixed[0].get("statements"), fixed[1].get("statements"), len(commands))
    if moving is None:
        return verdicts, MOVES
    base = _without(fixed[0].get("statements"), moving)
    each_s = time.monotonic() - t0  # a rebuild of one file is seldom longer than this
    kept = dict(done)
    for n, key in enumerate(order):
        if end - time.monotonic() < min(each_s, 5.0):
            return verdicts.model_copy(update={"done": kept}), LEFT.format(n=len(order) - n)
        got = _with_mutant(runner, build, settings | {"runs": 1}, end, chosen[key])
        if got and (theirs := _without(got[0].get("statements"), moving)) != base:
            kept[key] = told(done[key], base, theirs, near=near)
    return verdicts.model_copy(update={"done": kept}), ""


def _moving(first: Any, second: Any, near_from: int) -> set[int] | None:
    """The statements from `near_from` on (the neighbours) that the fix's two runs printed
    otherwise (a Rust panic names its thread: `thread 'main' (58) panicked`), to be compared
    no further; None when one of the issue's own commands did."""
    a, b = list(first or []), list(second or [])
    if a[:near_from] != b[:near_from]:
        return None
    return {i for i in range(near_from, max(len(a), len(b))) if a[i : i + 1] != b[i : i + 1]}


def _without(statements: Any, moving: set[int]) -> list[Any]:
    return [pair for n, pair in enumerate(statements or []) if n not in moving]


def _in_environment(
    runner: Runner, verdicts: Verdicts, choice: Choice, commands: list[str]
) -> tuple[Verdicts, str]:
    """The commands run where the programs are console scripts of the tree (a Python tree's
    `pylint`): by our example driver, each calling its entry point with the environment's
    Python, each survivor switched on for the commands it starts (they inherit the switch), no
    build between. Without the commands' neighbours: each command here starts an interpreter
    and imports the tree (pylint's: 2 s), in every state, and pylint-5859's five, with its
    three neighbours, did not end within its 15 s budget where its two alone had."""
    chosen = {c.key: c for c in choice.chosen if c.site.switchable}
    done = verdicts.done
    order = to_try(done, chosen)
    left = runner.left()
    budget = min(left, max(left * SHARE, FLOOR_S))
    if not order:
        return verdicts, ""
    if budget < 5:
        return verdicts, BUDGET
    timeout = SESSION_FLOOR_S + COMMAND_S * len(commands)
    entries = entry_points(runner.session.language, runner.session.tree)
    call = (
        "import json, sys, tempfile\n"
        '_bin = tempfile.mkdtemp(prefix="spice-bin-")\n'
        f"_wrappers({entries!r}, sys.executable, _bin)\n"
        f"print(json.dumps(_session({commands!r}, _bin, {timeout})))"
    )
    snippets = [DRIVER.read_text(), call]
    said, stopped = run_states(runner, choice, [chosen[k] for k in order], snippets, budget, KEEP)
    if stopped:
        return verdicts, IN_ENVIRONMENT.get(stopped, stopped)
    fixed = _session_of(said[None][0])
    kept = dict(done)
    for key in order:
        got = said.get(str(key))
        if got and got[0]["digest"] != said[None][0]["digest"]:
            kept[key] = told(done[key], fixed, _session_of(got[0]))
    return verdicts.model_copy(update={"done": kept}), ""


def _session_of(message: dict[str, Any]) -> list[Any]:
    """The [command, printed] pairs a state's session printed (what the sandbox sent)."""
    for _, printed in message.get("statements") or []:
        try:  # its first line (the console then echoes the call's None)
            pairs = json.loads(str(printed).split("\n", 1)[0])
        except (TypeError, ValueError):
            continue
        if isinstance(pairs, list):
            return pairs
    return []


def _with_mutant(
    runner: Runner, build: ProgramBuild, settings: dict[str, Any], end: float, c: Chosen
) -> list[dict[str, Any]]:
    tree = runner.session.tree
    tree.put(c.path, c.source)
    try:
        return _run(runner, build, settings, end, [c.path])[0]
    finally:
        tree.restore(c.path)


def _run(
    runner: Runner, build: ProgramBuild, settings: dict[str, Any], end: float, changed: list[str]
) -> tuple[list[dict[str, Any]], str]:
    """The driver's messages for one build (the files `changed` built again) and its
    sessions, and why there are none (its build failed: the log's last line; "" when the time
    ran out first)."""
    timeout = SESSION_FLOOR_S + COMMAND_S * len(settings["commands"])
    settings = settings | {"timeout_s": timeout}
    # Newer than any build's output whatever the clock's grain (cargo took ripgrep's mutated
    # crate for fresh, 0.6 s, without it): `changed` is always built again.
    touch = "touch -c " + " ".join(shlex.quote(f"{TESTBED}/{p}") for p in changed)
    script = (
        f'{touch}\n(\n{build.script}\n) || exit 1\nexec /usr/bin/python3 -c "$SPICE_SHELL_DRIVER"\n'
    )
    phase = Phase(
        argv=("sh", "-c", script),
        env={"SPICE_SHELL_DRIVER": DRIVER.read_text(), SETTINGS: json.dumps(settings)},
        channel=True,
    )
    left = end - time.monotonic()
    if left < 1:
        return [], ""
    done = runner.run_phase("examples", phase, cap=left)
    if done is None:
        return [], "the language's environments run only tests"
    said = [m for m in map(_message, done.channel.splitlines()) if m is not None]
    if said or done.killed:
        return said, ""
    lines = [line for line in done.log.strip().splitlines() if line.strip()]
    return [], (
        redacted_excerpt(lines[-1], head=200) if lines else f"exit status {done.returncode}"
    )


def _message(line: str) -> dict[str, Any] | None:
    """One run's message as the driver wrote it (anything else on the channel is not)."""
    try:
        message = json.loads(line)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("status") != "ok":
        return None
    return message if isinstance(message.get("digest"), str) else None
