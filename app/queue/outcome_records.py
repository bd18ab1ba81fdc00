"""Assessment rows from what the GitHub handlers report (engine results dumped as JSON)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from app.store.assessments import AssessmentRecord


def _dimensions(dump: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        value
        for value in dump.values()
        if isinstance(value, dict) and "dimension" in value and isinstance(value.get("votes"), list)
    ]


def _prompt_version(dump: dict[str, Any]) -> str:
    prompts = dump.get("prompts") or ([dump["prompt"]] if dump.get("prompt") else [])
    return ",".join(f"{p.get('id')}/v{p.get('version')}" for p in prompts if isinstance(p, dict))


def record_from_result(
    dump: dict[str, Any], repo: str, number: int, labels: list[str]
) -> AssessmentRecord:
    """One row from an `IssueAssessment` or `PRAssessment` dump."""
    dims = _dimensions(dump)
    usage = dump.get("usage") or {}
    # The handlers' key (the input as the App saw it: text, model, votes, prompt and engine
    # versions) is what `assessed_before` looks up; the engine's hash for other callers.
    input_hash = (
        dump.get("input_key")
        or dump.get("input_hash")
        or hashlib.sha256(json.dumps(dump, sort_keys=True, default=str).encode()).hexdigest()
    )
    return AssessmentRecord(
        kind="pr" if dump.get("kind") == "pull_request" else "issue",
        repo=repo,
        number=number,
        input_hash=str(input_hash)[:64],
        labels=labels,
        votes=[
            {
                "dimension": d["dimension"],
                "score": d.get("score"),
                "votes": [v.get("score") for v in d["votes"] if isinstance(v, dict)],
            }
            for d in dims
        ],
        rationales=[
            str(v.get("rationale", "")) for d in dims for v in d["votes"] if isinstance(v, dict)
        ],
        tokens_in=int(usage.get("input") or 0),
        tokens_out=int(usage.get("output") or 0),
        cost_usd=usage.get("cost_usd") if usage.get("cost_known", True) else None,
        model=str(dump.get("model") or "unknown"),
        prompt_version=_prompt_version(dump) or "unknown",
        result=dump,
    )
