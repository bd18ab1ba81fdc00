"""Deterministic issue evidence signals (RUBRICS.md §2)."""

from spice_engine.issue_signals.extract import extract_signals
from spice_engine.issue_signals.models import IssueSignals

__all__ = ["IssueSignals", "extract_signals"]
