"""Deterministic pull-request evidence: test-adequacy flags and a difficulty prior."""

from spice_engine.pr_evidence.extract import evidence_summary, pr_evidence
from spice_engine.pr_evidence.models import DifficultyPrior, EvidenceItem, Flag, PrEvidence

__all__ = [
    "DifficultyPrior",
    "EvidenceItem",
    "Flag",
    "PrEvidence",
    "evidence_summary",
    "pr_evidence",
]
