"""Test helper: SWE-bench instance -> Issue through the CLI's own reader."""

from __future__ import annotations

from typing import Any

from app.cli.issue_input import issue_from_mapping
from spice_engine.models import Issue


def issue_from_instance(instance: dict[str, Any]) -> Issue:
    return issue_from_mapping(instance)
