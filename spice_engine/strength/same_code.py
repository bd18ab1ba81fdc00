"""Survivors that compile to the fix's own code: equivalent, not wrong fixes.

Only survivors are checked (a killed mutant is decided), each once its tests have run: the
unit its file belongs to is compiled with the fix and with the mutant, in the sandbox, by the
language's own command (`CompiledCode`, spice_engine.langs.capabilities), and the two digests
its channel gives are compared. Anything short of two equal digests (the command failed, the
language cannot say where the line's code is, the budget ran out) leaves the survivor as it
was: not known is never equivalent.
"""

from __future__ import annotations

import time

from spice_engine.langs.capabilities import CompiledCode, compiled_code
from spice_engine.langs.compiled_code import read_digest
from spice_engine.redaction import redacted_excerpt
from spice_engine.strength.choose import Choice, Chosen
from spice_engine.strength.result import MutantOutcome, Verdict
from spice_engine.strength.runs import Runner
from spice_engine.strength.verdicts import Verdicts

SAME_CODE = "compiles to the same {what} as the fix"
NOT_CHECKED = (
    "{n} survivor(s) not checked for the fix's own compiled code (the time budget, or a "
    "compilation it cut off)"
)


class SameCode:
    """The compiled code of each unit a fix changed, made once, and each survivor's against it."""

    def __init__(self, runner: Runner, language: CompiledCode) -> None:
        self.runner, self.language = runner, language
        self.fixed: dict[str, str | None] = {}
        self.failed = ""
        """What the last command that gave no digest said (its log's end)."""
        self.cut = False
        """A command was stopped (its time limit: what is left of the budget): the next ones,
        each as long, are not started."""
        self.seconds: list[float] = []
        """Each compilation's seconds (what a survivor's check costs, the fix's included)."""

    def digest(self, path: str) -> str | None:
        """The digest of the unit `path` belongs to, as the tree holds it now."""
        session = self.runner.session
        assert session.prepared is not None
        phase = self.language.code_command(session.tree, path, session.prepared.plan)
        if phase is None:
            return None
        t0 = time.monotonic()
        done = self.runner.run_phase("code", phase)
        self.seconds.append(round(time.monotonic() - t0, 3))
        if done is None:
            return None
        digest = read_digest(done.channel)
        self.cut = self.cut or done.killed is not None
        if done.killed or done.returncode != 0 or digest is None:
            why = done.killed or f"exit status {done.returncode}"
            self.failed = f"{why}: {redacted_excerpt(done.log, tail=1500)}"
            return None
        return digest

    def same(self, c: Chosen) -> bool:
        """Whether the mutant `c` compiles to the code the fix compiles to."""
        if self.language.code_misses(c.source, c.site.line) is not None:
            return False
        if c.path not in self.fixed:  # the tree holds the fix between mutants
            self.fixed[c.path] = self.digest(c.path)
        fixed = self.fixed[c.path]
        return fixed is not None and self.mutant_digest(c) == fixed

    def mutant_digest(self, c: Chosen) -> str | None:
        """The digest of `c`'s unit with the mutant in its file (the fix's back after)."""
        tree = self.runner.session.tree
        tree.put(c.path, c.source)
        try:
            return self.digest(c.path)
        finally:
            tree.restore(c.path)


def same_code(
    runner: Runner, verdicts: Verdicts, choice: Choice
) -> tuple[Verdicts, SameCode | None, int]:
    """`verdicts` with each survivor whose compiled code is the fix's made `equivalent`; the
    check (None: the language compiles nothing), and how many survivors the budget left
    unchecked."""
    language = compiled_code(runner.session.language)
    if language is None:
        return verdicts, None, 0
    check = SameCode(runner, language)
    done = dict(verdicts.done)
    by_key = {c.key: c for c in choice.chosen}
    survivors = [k for k in sorted(done) if done[k].verdict == Verdict.SURVIVED]
    unchecked = 0
    for k in survivors:
        if runner.left() <= 0 or check.cut:
            unchecked += 1
            continue
        if check.same(by_key[k]):
            done[k] = _equivalent(done[k], language.compiled_to)
    return verdicts.model_copy(update={"done": done}), check, unchecked


def _equivalent(m: MutantOutcome, what: str) -> MutantOutcome:
    return m.model_copy(
        update={
            "verdict": Verdict.EQUIVALENT,
            "reason": SAME_CODE.format(what=what),
            "difference": None,
            "difference_in": None,
            "rank": 0,
        }
    )
