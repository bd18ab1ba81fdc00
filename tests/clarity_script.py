"""Scripted clarity answers for the fake model server (shared by the engine and CLI tests)."""

from __future__ import annotations

import json
from typing import Any


def clarity(score: int, rationale: str = "scripted", **extra: Any) -> str:
    """A valid clarity answer as the model would send it."""
    answer = {
        "rationale": rationale,
        "score": score,
        "candidate_solution": extra.get("candidate_solution", "none"),
        "candidate_misleading": extra.get("candidate_misleading", False),
        "questions": extra.get("questions", []),
    }
    return json.dumps(answer)


def is_format_retry(request: dict[str, Any]) -> bool:
    """The engine fed a format error back: the conversation has an assistant turn."""
    return any(m.get("role") == "assistant" for m in request["messages"])
