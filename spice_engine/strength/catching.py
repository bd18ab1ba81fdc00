"""A test that catches a survivor: the model (k votes, as elsewhere) writes a test module that
should pass on the gold fix and fail on the wrong fix; each written test is run in the sandbox
both ways, and kept only when it does both. A survivor no written test tells from the fix is
`possibly_equivalent`: it is not used as the headline.

Why run both ways: a model's test that fails on both shows nothing about the survivor (it may
test something the fix does not do), one that passes on both does not catch it; only the pair
of runs proves the survivor is a wrong fix a test could reject.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from pydantic import BaseModel, Field

from spice_engine.llm.voting import collect_votes
from spice_engine.prompts import render_messages
from spice_engine.protocols import ChatModel
from spice_engine.runs.session import Run
from spice_engine.strength.result import CatchingTest, MutantOutcome
from spice_engine.strength.runs import Runner
from spice_engine.validate import door
from spice_engine.validate.outcomes import FAILING, passed

PROMPT = "catching_test"
CONTEXT_LINES = 25
"""Lines of the fixed file shown on each side of the survivor's line."""
MAX_TEST_CHARS = 8000


class WrittenTest(BaseModel):
    """The model's answer."""

    test_code: str = Field(max_length=MAX_TEST_CHARS)
    """A whole pytest module."""
    explanation: str = ""


@dataclass(frozen=True)
class TestWriter:
    """The configured model and how many votes (written tests) to ask it for."""

    __test__ = False  # not a test class, whatever pytest makes of its name

    model: ChatModel
    votes: int = 3
    cost_cap_usd: float | None = None
    allow_unpriced: bool = False


def test_path(f2p: list[str], fallback: str = "tests") -> str:
    """Where a written test goes: beside the first fail-to-pass test (its conftest applies)."""
    first = f2p[0].split("::", 1)[0] if f2p else ""
    folder = posixpath.dirname(first) if first else fallback
    return posixpath.join(folder, "test_spice_catches_survivor.py")


def _around(source: str, line: int) -> str:
    rows = source.splitlines()
    start = max(0, line - 1 - CONTEXT_LINES)
    return "\n".join(rows[start : line + CONTEXT_LINES])


def _ids(run: Run, path: str) -> list[str]:
    return [t for t in run.outcomes if t.split("::", 1)[0] == path]


def _failure(run: Run, path: str) -> str:
    for row in run.log.splitlines():
        kind, _, rest = row.partition(" ")
        if kind in FAILING and rest.startswith(path):
            return row[:300]
    return ""


def _holds(runner: Runner, path: str, code: str, mutant: tuple[str, str]) -> str | None:
    """The failure on the wrong fix when `code` passes on the fix and fails on it (None: it
    does not do both, or a run was cut off)."""
    tree = runner.session.tree
    door.write_text(tree.path, path, code)
    try:
        gold = runner.run_files([path])
        ids = _ids(gold, path)
        if gold.killed or not ids or not all(passed(gold.outcomes, t) for t in ids):
            return None
        file, source = mutant
        tree.put(file, source)
        try:
            wrong = runner.run_files([path])
        finally:
            tree.restore(file)
        if wrong.killed or all(passed(wrong.outcomes, t) for t in ids):
            return None
        return _failure(wrong, path) or "fails on the wrong fix"
    finally:
        door.remove(tree.path, path)


def catch(
    runner: Runner,
    writer: TestWriter,
    survivor: MutantOutcome,
    mutant_source: str,
    fixed: str,
    instance: dict[str, object],
    f2p: list[str],
) -> tuple[bool | None, str]:
    """Ask for catching tests of `survivor` and keep the first that holds both ways: True when
    one did (then `survivor.catching_test` is set), False when written tests ran and none held,
    None when none could run (no valid answer, no budget); and the prompt used."""
    path = test_path(f2p)
    ref, messages = render_messages(
        PROMPT,
        {
            "task": str(instance.get("problem_statement") or "")[:8000],
            "gold_patch": str(instance.get("patch") or "")[:12000],
            "test_patch": str(instance.get("test_patch") or "")[:12000],
            "path": survivor.path,
            "code": _around(fixed, survivor.line),
            "wrong_fix": survivor.diff,
            "test_path": path,
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
        tried.add(code)
        failure = _holds(runner, path, code, (survivor.path, mutant_source))
        if failure is not None:
            survivor.catching_test = CatchingTest(path=path, code=code, failure=failure)
            return True, used
    return (False if tried else None), used
