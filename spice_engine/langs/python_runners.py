"""Python test runners: how a repository's tests are started and read, inferred from its files.

pytest unless the repository drives its tests with a runner of its own: sympy's `bin/test`
(its `runtests` reporter, no pytest). Such a repository is run the way the harness that grades
the export runs it, so every test id comes out in that harness's convention (sympy's are bare
function names, `test_sparse_matrix`) and `log_parser` names the parser that reads them.

A runner that is not pytest takes none of our pytest plugins: reruns are new whole runs of the
files, and its results are read from its log, as the harness reads them.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from spice_engine.validate.outcomes import Dialect, Outcomes, TestStatus, parse_pytest_log

PYTEST = "pytest"
SYMPY = "sympy_bin_test"


class UnknownRunner(LookupError):
    """A recipe names a runner this version does not have."""


@dataclass(frozen=True)
class Runner:
    """One way of running a repository's tests."""

    name: str
    argv: tuple[str, ...]
    """After the interpreter, before the test files."""
    log_parser: str
    """SWE-bench's parser of this runner's output (`swebench.harness.log_parsers`)."""
    plugins: bool
    """Loads our pytest plugins (in-session reruns, selection by id, mutants)."""
    driven: bool = False
    """Not pytest, but its command (a script and its arguments) runs in one process when
    `PYTHONHASHSEED` is set, so our driver can run it in its own (the differential run)."""
    keywords: str | None = None
    """The option after which test names, given after the files, select what runs (sympy's
    `-k`: a name selects every test whose name holds it)."""
    env: dict[str, str] = field(default_factory=dict)

    def command(self, files: list[str]) -> list[str]:
        return [*self.argv, *files]

    def shell(self, files: list[str]) -> str:
        """The command as the harness's eval script writes it (`python` on its PATH)."""
        env = " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted(self.env.items()))
        return " ".join(p for p in (env, shlex.join(["python", *self.argv, *files])) if p)


RUNNERS = {
    PYTEST: Runner(PYTEST, ("-m", "pytest", "-rA"), "parse_log_pytest", plugins=True),
    SYMPY: Runner(
        SYMPY,
        ("bin/test", "-C", "--verbose"),
        "parse_log_sympy",
        plugins=False,
        driven=True,
        keywords="-k",
        # As SWE-bench runs it: warnings of old code on a newer Python are not failures.
        env={"PYTHONWARNINGS": "ignore::UserWarning,ignore::SyntaxWarning"},
    ),
}


PYTEST_PARSERS = {
    Dialect.CUT: "parse_log_pytest",
    Dialect.OPTIONS: "parse_log_pytest_options",
    Dialect.STRIPPED: "parse_log_pytest_v2",
}
_DIALECT_OF = {name: dialect for dialect, name in PYTEST_PARSERS.items()}
SWEBENCH_DIALECTS = {
    "astropy/astropy": Dialect.STRIPPED,
    "scikit-learn/scikit-learn": Dialect.STRIPPED,
    "sphinx-doc/sphinx": Dialect.STRIPPED,
    "psf/requests": Dialect.OPTIONS,
    "pylint-dev/pylint": Dialect.OPTIONS,
    "pydicom/pydicom": Dialect.OPTIONS,
}
"""SWE-bench's own repositories whose pytest logs its harness reads otherwise than by
`parse_log_pytest` (its `MAP_REPO_TO_PARSER_PY`, swebench 5): their lists are read, and their
rows exported, with that parser, so its harness finds every id."""


def log_parser_for(repo: str, runner: str) -> str:
    """The SWE-bench parser of `repo`'s logs under `runner`, named as its registry names it."""
    if runner != PYTEST:
        return runner_named(runner).log_parser
    return PYTEST_PARSERS[SWEBENCH_DIALECTS.get(repo, Dialect.CUT)]


def read_outcomes(log_parser: str, log: str) -> Outcomes:
    """Test id -> status from a log, read as `log_parser` reads it."""
    if log_parser == RUNNERS[SYMPY].log_parser:
        return parse_runtests_log(log)
    return parse_pytest_log(log, _DIALECT_OF.get(log_parser, Dialect.CUT))


def runner_named(name: str) -> Runner:
    try:
        return RUNNERS[name]
    except KeyError:
        raise UnknownRunner(f"no test runner {name!r} (known: {', '.join(RUNNERS)})") from None


RUNNER_FILES = ("bin/test",)
"""The files `infer_runner` reads (the planner exports them with the metadata)."""
_PYTHON_SHEBANG = re.compile(r"^#!.*\bpython", re.IGNORECASE)
_RUNTESTS = re.compile(r"\bruntests\b|\bimport\s+test\b|\.test\(")


def infer_runner(tree: Path) -> str:
    """The runner the repository's own files ask for: a Python `bin/test` that drives a
    `runtests`-style reporter is the project's runner; anything else is pytest's."""
    script = tree / "bin" / "test"
    if script.is_file() and not script.is_symlink():
        try:
            text = script.read_text(encoding="utf-8", errors="replace")[:20000]
        except OSError:
            return PYTEST
        if _PYTHON_SHEBANG.match(text) and _RUNTESTS.search(text):
            return SYMPY
    return PYTEST


_RESULT = re.compile(r"^(test_\w+)\s+(?:.*\s)?(ok|F|E|f|X|s|w|K|T)$")
_STATUS = {
    "ok": TestStatus.PASSED,
    "F": TestStatus.FAILED,
    "E": TestStatus.ERROR,
    "f": TestStatus.XFAIL,
    "X": TestStatus.XFAIL,
}


def parse_runtests_log(log: str) -> Outcomes:
    """Test name -> status from a `runtests` verbose log: one `test_name <status>` line per
    test (`ok`, `F`, `E`; `f` failed as expected, `X` passed though expected to fail (neither counts as a pass:
    SWE-bench's parser does not read them), a skip's
    reason then `s`/`w`/`K`/`T`), the last line of a name winning, as SWE-bench's sympy parser
    reads it (a test whose own output broke its line is read by neither)."""
    outcomes: Outcomes = {}
    for line in log.split("\n"):
        m = _RESULT.match(line.strip())
        if m:
            outcomes[m.group(1)] = _STATUS.get(m.group(2), TestStatus.SKIPPED)
    return outcomes
