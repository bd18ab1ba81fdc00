"""Reproduction signal: runnable example, partial snippet, prose steps, or nothing."""

from __future__ import annotations

import re
from dataclasses import dataclass

from spice_engine.issue_signals.candidate_solution import introduces_fix_code, is_diff
from spice_engine.issue_signals.facts import without_traceback
from spice_engine.issue_signals.markdown_parts import CodeBlock, IssueParts, is_code_line
from spice_engine.issue_signals.models import Reproduction

_SETUP = re.compile(r"^\s*(?:>>>\s*|In\s?\[\d+\]:\s*)?(?:from\s+[\w.]+\s+import\b|import\s+\w)")
_SESSION = re.compile(r"^\s*(?:>>>|In\s?\[\d+\]:|\$\s+\S)")
_CALL = re.compile(r"[\w\])]\(")
_SHELL_INFO = frozenset(
    {"shell", "bash", "sh", "console", "zsh", "cmd", "powershell", "shell-session"}
)
# `tool file.py --flag=x`: a program and its arguments (not `tool 1.2.3`, a version line).
_COMMAND = re.compile(r"^\s*(?:\$\s+)?[A-Za-z][\w./-]*(?:\s+(?!v?\d+\.\d)\S+)+\s*$")
_NON_CODE_INFO = frozenset({"text", "txt", "console-output", "output", "log", "plaintext"})
_STEPS = re.compile(
    r"\b(?:steps? to reproduce|to reproduce|reproduc\w+|minimal (?:example|case)|when i (?:run|call|use|try)"
    r"|if (?:i|you) (?:run|call|use|try|do|create|set|pass)|(?:run|running|calling|using) `)",
    re.I,
)


@dataclass(frozen=True)
class ReproductionResult:
    level: Reproduction
    evidence: str


_SOURCE_REF = re.compile(r"[\w./-]+\.py(?::\d+)?\s*:?\s*$")


_ELISION = re.compile(r"^\s*(?:\.\.\.|/\.\.\./|#\s*\.\.\.|…)\s*$")
_SELF = re.compile(r"\bself\b")
_CLASS = re.compile(r"^\s*class\s+\w+", re.M)
_TEST_METHOD = re.compile(r"^\s*(?:async\s+)?def\s+test\w*\s*\(", re.M)
_WORDY = re.compile(r"[A-Za-z]")


def _quotes_source(block: CodeBlock) -> bool:
    """The block quotes the project's code rather than using it.

    Signs: it is introduced by a file name (`In foo/bar.py:`) and does not start with imports,
    it elides parts (`...` lines), or it uses `self` outside any class (a method or its body shown alone).
    """
    first = block.lines[0] if block.lines else ""
    named = _SOURCE_REF.search(block.lead) or _SOURCE_REF.fullmatch(first.strip())
    if named and not _SETUP.match(first):
        return True  # a whole file of the reporter's (`models.py:`) starts with its imports
    lines = block.lines
    if not lines or any(_SESSION.match(ln) for ln in lines):
        return False  # `...` is a prompt in an interactive session
    if any(_ELISION.match(ln) for ln in lines):
        return True
    if _TEST_METHOD.search(block.text):
        return False  # the reporter's own test case
    return bool(_SELF.search(block.text)) and not _CLASS.search(block.text)


def _statement_lines(block: CodeBlock) -> list[str]:
    """Lines of a block that are code statements, not tracebacks, output or a proposed fix."""
    if (
        block.info in _NON_CODE_INFO
        or is_diff(block)
        or introduces_fix_code(block.lead, any_colon=True)
        or _quotes_source(block)
    ):
        return []
    # A line of brackets alone (`]`, `),`) is the tail of something quoted, not a statement.
    lines = [ln for ln in without_traceback(block.lines) if _WORDY.search(ln)]
    if block.info in _SHELL_INFO:
        return [ln for ln in lines if _COMMAND.match(ln) or _SESSION.match(ln)]
    if block.origin == "unfenced":
        return lines
    # Fenced output (tables, logs) is not code: keep only lines shaped like code.
    return [ln for ln in lines if is_code_line(ln) or _CALL.search(ln)]


def reproduction(parts: IssueParts, expected_vs_actual: bool) -> ReproductionResult:
    """Grade the issue's example: full needs runnable code, partial a code fragment."""
    best: tuple[int, str] = (0, "")
    for block in parts.blocks:
        statements = _statement_lines(block)
        if not statements:
            continue
        calls = sum(bool(_CALL.search(ln)) for ln in statements)
        setup = block.info in _SHELL_INFO or any(_SETUP.match(ln) for ln in statements)
        session = any(_SESSION.match(ln) for ln in statements)
        score = 1
        if (calls or block.info in _SHELL_INFO) and (setup or session or len(statements) >= 3):
            score = 2
        if score > best[0]:
            best = (score, statements[0].strip()[:120])
    if best[0] == 2:
        return ReproductionResult("full", best[1])
    if best[0] == 1:
        return ReproductionResult("partial", best[1])
    calls_inline = [c for c in parts.inline_code if _CALL.search(c)]
    if calls_inline:
        return ReproductionResult("partial", calls_inline[0][:120])
    steps = _STEPS.search(parts.prose_text)
    if steps or expected_vs_actual:
        return ReproductionResult("prose", steps.group(0) if steps else "expected vs actual")
    return ReproductionResult("none", "")
