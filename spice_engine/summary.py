"""One plain-text line per dimension result, in the registry's names (CLI and logs)."""

from __future__ import annotations

from spice_engine.dimensions import dimension
from spice_engine.models import Assessment, DimensionResult


def dimension_line(result: DimensionResult) -> str:
    """`clarity: 1 (minor-gaps)  votes 0 · 1 · 2  [split, controversial]  3/3 valid`."""
    try:
        name = dimension(result.dimension).name_of(result.score)
    except KeyError:
        name = "?"
    if result.score is None:
        return f"{result.dimension}: no label"
    agreement = result.agreement.value if result.agreement else "-"
    return (
        f"{result.dimension}: {result.score} ({name})"
        f"  votes {' · '.join(str(v.score) for v in result.votes)}"
        f"  [{agreement}{', controversial' if result.controversial else ''}]"
        f"  {result.valid_votes}/{result.requested_votes} valid"
    )


def result_lines(a: Assessment) -> list[str]:
    """A line for each dimension the comment shows, in registry order."""
    return [dimension_line(r) for key, r in a.results().items() if dimension(key).in_comment]
