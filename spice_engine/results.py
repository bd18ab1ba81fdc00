"""The one result type that crosses the seams: an issue's or a pull request's assessment."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, TypeAdapter

from spice_engine.models import Assessment, IssueAssessment
from spice_engine.pr.models import PRAssessment

AnyAssessment = Annotated[IssueAssessment | PRAssessment, Field(discriminator="kind")]
"""Told apart by `kind` (`issue` or `pull_request`) when read back from JSON."""
__all__ = ["AnyAssessment", "Assessment", "IssueAssessment", "PRAssessment"]
ASSESSMENT: TypeAdapter[IssueAssessment | PRAssessment] = TypeAdapter(AnyAssessment)
