"""Deterministic pull-request evidence: test-adequacy flags and a difficulty prior."""

from spice_engine.pr_evidence.extract import (
    evidence_record,
    evidence_summary,
    pipeline_evidence,
    pr_evidence,
)
from spice_engine.pr_evidence.models import DifficultyPrior, EvidenceItem, Flag, PrEvidence

__all__ = [
    "DifficultyPrior",
    "EvidenceItem",
    "Flag",
    "PrEvidence",
    "evidence_record",
    "evidence_summary",
    "pipeline_evidence",
    "pr_evidence",
]
