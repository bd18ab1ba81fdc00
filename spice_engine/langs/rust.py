"""Rust: placeholder while its implementation is written on its own branch."""

from __future__ import annotations

from spice_engine.langs.base import Files, Phase, Plan, ToolchainMissing
from spice_engine.validate.outcomes import Outcomes


class Rust:
    name = "rust"

    def detect(self, files: Files) -> int:
        return 0

    def is_test_path(self, path: str) -> bool:
        return False

    def mutable(self, path: str) -> bool:
        return False

    def plan(self, files: Files, date: str | None) -> Plan:
        raise ToolchainMissing("rust: not built yet")

    def test_command(self, files: Files, test_files: list[str], plan: Plan) -> Phase:
        raise ToolchainMissing("rust: not built yet")

    def outcomes(self, channel: str, log: str) -> Outcomes:
        return {}
