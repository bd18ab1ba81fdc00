"""Python through the seam: detection, the test split, results and mutation targets.

Its environments are the recipes' (spice_engine.validate.recipe, built by
spice_engine.validate.local.LocalExecutor with uv): older and richer than this seam, they keep
their own executor, and `plan` says so rather than pretend.
"""

from __future__ import annotations

from spice_engine.langs.base import Files, Phase, Plan
from spice_engine.langs.manifests import named
from spice_engine.pr.diff_split import classify
from spice_engine.validate.outcomes import Outcomes, parse_pytest_log


class Python:
    name = "python"

    def detect(self, files: Files) -> int:
        if named(files, "setup.py", "pyproject.toml", "setup.cfg"):
            return 8
        return 1 if any(p.endswith(".py") for p in files.paths()) else 0

    def is_test_path(self, path: str) -> bool:
        return classify(path) == "test"

    def mutable(self, path: str) -> bool:
        return path.endswith(".py") and not self.is_test_path(path)

    def plan(self, files: Files, date: str | None) -> Plan:
        raise NotImplementedError("Python environments are built from recipes (LocalExecutor)")

    def test_command(self, files: Files, test_files: list[str], plan: Plan) -> Phase:
        raise NotImplementedError("Python's test command is its recipe's")

    def outcomes(self, channel: str, log: str) -> Outcomes:
        return parse_pytest_log(log)
