"""Python through the seam: detection, the test split, its plan, test command and results.

A Python environment is a recipe's (spice_engine.langs.python_recipe: the interpreter, the pins,
the runner), worked out per version by the planner as SWE-bench does and built with uv by
`PythonEnvironments` (spice_engine.langs.python_env), which this language declares as its own
(spice_engine.langs.capabilities). Its runner loads our pytest plugins (reruns inside the
session, mutants switched in the test process, the differential run) when it is pytest.
"""

from __future__ import annotations

import tempfile
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from spice_engine.langs import python_failures, python_line_probe, written_tests
from spice_engine.langs.base import TEST_FOLDERS, Files, Phase, Plan
from spice_engine.langs.manifests import named
from spice_engine.langs.programs import ProgramBuild, python_entry_points, python_programs
from spice_engine.langs.python_env import LOG_PARSER, RUNNER, PythonEnvironments, plan_of
from spice_engine.langs.python_examples import python_snippets
from spice_engine.langs.python_interpreters import MissingPython, find_pythons
from spice_engine.langs.python_recipe import infer_recipe
from spice_engine.langs.python_runners import PYTEST, read_outcomes, runner_named
from spice_engine.langs.python_versions import Group, metadata_file, plan_groups
from spice_engine.validate.outcomes import FAILING, Outcomes
from spice_engine.validate.sandbox import Sandbox

TEST_FILES = ("test_*.py", "*_test.py", "*_tests.py", "conftest.py")


class Python:
    name = "python"

    def detect(self, files: Files) -> int:
        if named(files, "setup.py", "pyproject.toml", "setup.cfg"):
            return 8
        return 1 if any(p.endswith(".py") for p in files.paths()) else 0

    def is_test_path(self, path: str) -> bool:
        *folders, name = path.split("/")
        return bool(TEST_FOLDERS.intersection(folders)) or any(
            fnmatchcase(name, g) for g in TEST_FILES
        )

    def mutable(self, path: str) -> bool:
        return path.endswith(".py") and not self.is_test_path(path)

    def grammar(self, path: str) -> str | None:
        return "python" if path.endswith(".py") else None

    def written_test(
        self, files: Files, path: str, test_files: list[str]
    ) -> written_tests.WrittenPlace | None:
        return written_tests.python_place(test_files)

    def plan(self, files: Files, date: str | None) -> Plan:
        """The recipe the tree's own metadata asks for (the planner's, without a version)."""
        with tempfile.TemporaryDirectory(prefix="spice-meta-") as tmp:
            for path in files.paths():
                if metadata_file(path) and (text := files.text(path)) is not None:
                    target = Path(tmp, path)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_text(text)
            try:
                recipe = infer_recipe(Path(tmp), date or "", sorted(find_pythons()), "0.0")
            except LookupError as exc:
                raise MissingPython(str(exc)) from None
        return plan_of("", f"python{recipe.python}", recipe)

    def targets(self, test_files: list[str], fix_files: list[str]) -> list[str]:
        # pytest runs the test patch's modules (as SWE-bench's harness does), nothing else.
        return [f for f in test_files if f.endswith(".py")]

    def test_command(self, files: Files, test_files: list[str], plan: Plan) -> Phase:
        runner = runner_named(plan.settings.get(RUNNER, "pytest"))
        return Phase(argv=("python", *runner.command(test_files)), env=plan.env | runner.env)

    def outcomes(self, channel: str, log: str, plan: Plan | None = None) -> Outcomes:
        settings = plan.settings if plan is not None else {}
        return read_outcomes(settings.get(LOG_PARSER, "parse_log_pytest"), log)

    def issue_examples(self, problem: str, changed: list[str]) -> list[str]:
        """The issue's Python examples (its code blocks and console sessions)."""
        return python_snippets(problem, changed)

    def programs(self, files: Files) -> list[str]:
        """The console scripts the tree installs (`pylint`, `sphinx-build`)."""
        return python_programs(files)

    def program_build(self, files: Files, plan: Plan) -> ProgramBuild | None:
        """None: nothing to build; each is its entry point, called where the example driver
        runs (spice_engine.strength.shell_examples)."""
        return None

    def entry_points(self, files: Files) -> dict[str, str]:
        return python_entry_points(files)

    def line_probe(self, path: str, source: str, at: int) -> str | None:
        """Asked only where no plugin of ours watches the tests (a runner of the repository's own)."""
        return python_line_probe.probe(source, at) if path.endswith(".py") else None

    def failure_texts(self, channel: str, log: str, plan: Plan | None = None) -> dict[str, str]:
        """pytest's message and report section of each failed test (another runner's: none)."""
        if runner_named((plan.settings if plan else {}).get(RUNNER, PYTEST)).name != PYTEST:
            return {}
        failed = [t for t, s in self.outcomes(channel, log, plan).items() if s in FAILING]
        return python_failures.failure_texts(log, failed)

    def loads_plugins(self, plan: Plan) -> bool:
        """pytest loads our plugins; a repository's own runner (sympy's `bin/test`) does not."""
        return runner_named(plan.settings.get(RUNNER, "pytest")).plugins

    def driven_runs(self, plan: Plan) -> bool:
        """A runner of the repository's own that runs in one process (sympy's `bin/test` given
        a hash seed) can be run by our driver, watched."""
        return runner_named(plan.settings.get(RUNNER, "pytest")).driven

    def driven_selection(self, plan: Plan, tests: list[str]) -> list[str]:
        """What, after the files, makes the runner run only `tests` (a superset: sympy's `-k`
        selects every test whose name holds one); [] when it cannot choose."""
        runner = runner_named(plan.settings.get(RUNNER, "pytest"))
        return [runner.keywords, *tests] if runner.keywords and tests else []

    def version_groups(
        self, rows: list[dict[str, Any]], git_dirs: dict[str, Path]
    ) -> dict[str, Group]:
        """Its rows grouped by version as SWE-bench does, each group's recipe worked out once
        from its newest base commit (its `environment_setup_commit`)."""
        return plan_groups(rows, git_dirs, sorted(find_pythons()))

    def environments(
        self, envs_dir: Path, sandbox: Sandbox, install_timeout_s: float
    ) -> PythonEnvironments:
        """Its environments are its recipes', built by uv (not from a plan's phases)."""
        return PythonEnvironments(envs_dir, sandbox, install_timeout_s)
