"""A test that catches a survivor: the model (k votes, as elsewhere) writes a test that should
pass on the gold fix and fail on the wrong fix, in the survivor's language and where its test
command runs it (spice_engine.langs.written_tests); each written test is run in the sandbox both
ways, and kept only when it does both. A survivor no written test tells from the fix is
`possibly_equivalent`: it is not used as the headline.

Why run both ways: a model's test that fails on both shows nothing about the survivor (it may
test something the fix does not do), one that passes on both does not catch it; only the pair
of runs proves the survivor is a wrong fix a test could reject. The written test is put in the
tree as a patch (the host's record holds it, so the language's command sees the file) and taken
back after; its tests are the ones the fix's own runs never reported.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from pydantic import BaseModel, Field

from spice_engine.langs.capabilities import failure_texts
from spice_engine.langs.written_tests import WrittenPlace
from spice_engine.llm.voting import collect_votes
from spice_engine.prompts import render_messages
from spice_engine.protocols import ChatModel
from spice_engine.runs.session import Run
from spice_engine.strength.result import CatchingTest, MutantOutcome
from spice_engine.strength.runs import Runner
from spice_engine.strength.sources import diff
from spice_engine.validate.gitwork import GitError
from spice_engine.validate.outcomes import FAILING, passed

PROMPT = "catching_test"
CONTEXT_LINES = 25
"""Lines of the fixed file shown on each side of the survivor's line."""
MAX_TEST_CHARS = 8000


class PlaceTaken(Exception):
    """The written test cannot be put in its place (a file of the repository's own is there):
    nothing was run."""


class WrittenTest(BaseModel):
    """The model's answer."""

    test_code: str = Field(max_length=MAX_TEST_CHARS)
    """The whole test (a file, or the module appended to the survivor's file)."""
    explanation: str = ""


@dataclass(frozen=True)
class TestWriter:
    """The configured model and how many votes (written tests) to ask it for."""

    __test__ = False  # not a test class, whatever pytest makes of its name

    model: ChatModel
    votes: int = 3
    cost_cap_usd: float | None = None
    allow_unpriced: bool = False


def _around(source: str, line: int) -> str:
    rows = source.splitlines()
    start = max(0, line - 1 - CONTEXT_LINES)
    return "\n".join(rows[start : line + CONTEXT_LINES])


def appended(source: str, code: str) -> str:
    """`source` with the test module `code` after it, every line of `source` kept where it was."""
    return source.rstrip("\n") + "\n\n" + code


def written(place: WrittenPlace, code: str, fixed: str) -> str:
    """The patch putting `code` in the tree holding the fix."""
    if place.appended:
        return diff(place.path, fixed, appended(fixed, code))
    # Lines end at "\n" alone: a form feed or a "\r" in the model's text stays inside its line.
    lines = [row + "\n" for row in code.removesuffix("\n").split("\n")]
    return "".join(difflib.unified_diff([], lines, "/dev/null", f"b/{place.path}"))


def _new_ids(run: Run, known: set[str]) -> list[str]:
    """The tests of `run` the fix's own run did not report (`known`): the written ones."""
    return [t for t in run.outcomes if t not in known]


def _failure(runner: Runner, run: Run, ids: list[str]) -> str:
    """The first written test failing in `run`, with its runner's own first line of why."""
    failing = [t for t in ids if run.outcomes.get(t) in FAILING]
    if not failing:
        return ""
    session = runner.session
    plan = session.prepared.plan if session.prepared is not None else None
    text = failure_texts(session.language, run.channel, run.log, plan).get(failing[0], "")
    rows = (row.strip() for row in text.splitlines())
    # Go's runner frames a failure with `=== RUN` / `--- FAIL` lines: the test's own is within.
    why = next((row for row in rows if row and not row.startswith(("=== ", "--- "))), "")
    return f"{failing[0]}: {why}"[:300] if why else failing[0][:300]


def _holds(
    runner: Runner,
    at: tuple[WrittenPlace, set[str]],
    code: str,
    fixed: str,
    mutant: tuple[str, str],
) -> str | None:
    """The failure on the wrong fix when `code` passes on the fix and fails on it (None: it
    does not do both, or a run was cut off). A written test missing from the wrong fix's run
    did not run there: no failure. `at`: its place, and the tests the fix's run reported."""
    place, known = at
    tree = runner.session.tree
    patch = written(place, code, fixed)
    try:
        tree.apply(patch)
    except GitError as exc:
        raise PlaceTaken(f"{place.path}: {exc}") from exc
    try:
        gold = runner.run_files([place.path])
        ids = _new_ids(gold, known)
        if gold.killed or not ids or not all(passed(gold.outcomes, t) for t in ids):
            return None
        file, source = mutant
        tree.put(file, appended(source, code) if place.appended and file == place.path else source)
        try:
            wrong = runner.run_files([place.path])
        finally:
            tree.restore(file)
        if wrong.killed:
            return None
        return _failure(runner, wrong, ids) or None
    finally:
        tree.apply(patch, reverse=True)


def catch(
    runner: Runner,
    writer: TestWriter,
    survivor: MutantOutcome,
    sources: tuple[str, str],
    instance: dict[str, object],
    at: tuple[WrittenPlace, set[str]],
) -> tuple[bool | None, str]:
    """Ask for catching tests of `survivor` (`sources`: its mutant's file and the fix's; `at`:
    where the test goes, and the tests the fix's own run reported) and
    keep the first that holds both ways: True when one did (then `survivor.catching_test` is
    set), False when written tests ran and none held, None when none could run (no valid
    answer, no budget); and the prompt used."""
    mutant_source, fixed = sources
    place = at[0]
    ref, messages = render_messages(
        PROMPT,
        {
            "task": str(instance.get("problem_statement") or "")[:8000],
            "gold_patch": str(instance.get("patch") or "")[:12000],
            "test_patch": str(instance.get("test_patch") or "")[:12000],
            "path": survivor.path,
            "code": _around(fixed, survivor.line),
            "wrong_fix": survivor.diff,
            "test_path": place.path,
            "kind": place.kind,
            "appended": place.appended,
        },
    )
    batch = collect_votes(
        writer.model,
        messages,
        WrittenTest,
        writer.votes,
        cost_cap_usd=writer.cost_cap_usd,
        allow_unpriced=writer.allow_unpriced,
    )
    used = f"{writer.model.name}, {ref.id} v{ref.version}"
    tried: set[str] = set()
    for answer in batch.answers:
        code = answer.test_code.strip() + "\n"
        if code in tried or runner.left() <= 0:
            continue
        try:
            failure = _holds(runner, at, code, fixed, (survivor.path, mutant_source))
        except PlaceTaken:
            return None, used  # nothing ran: not a sign the survivor is equivalent
        tried.add(code)
        if failure is not None:
            survivor.catching_test = CatchingTest(
                path=place.path, code=code, failure=failure, fence=place.fence
            )
            return True, used
    return (False if tried else None), used
