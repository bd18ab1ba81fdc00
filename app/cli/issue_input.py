"""Read an issue from the CLI's inputs: title + body file, a SWE-bench instance, a GitHub issue."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from spice_engine.errors import InputError
from spice_engine.models import Issue


def issue_from_mapping(data: dict[str, Any]) -> Issue:
    """A GitHub issue JSON (title/body) or a SWE-bench instance (problem_statement)."""
    if "problem_statement" in data:
        statement = str(data.get("problem_statement") or "")
        title, _, body = statement.partition("\n")
        repo = data.get("repo")
        number = None
        iid = str(data.get("instance_id", ""))
        if iid.rpartition("-")[2].isdigit():
            number = int(iid.rpartition("-")[2])
        return Issue(title=title.strip(), body=body, repo=repo, number=number)
    if "title" in data or "body" in data:
        repo_url = str(data.get("repository_url") or "")
        repo = "/".join(repo_url.rstrip("/").split("/")[-2:]) if repo_url else None
        return Issue(
            title=str(data.get("title") or ""),
            body=str(data.get("body") or ""),
            repo=repo,
            number=data.get("number") if isinstance(data.get("number"), int) else None,
            url=data.get("html_url"),
        )
    raise InputError(
        "expected a GitHub issue (title, body) or a SWE-bench instance (problem_statement)"
    )


def issue_from_file(path: Path) -> Issue:
    """Load one issue from a JSON file (a single-line JSONL file works too)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        lines = [ln for ln in text.splitlines() if ln.strip()]
        if len(lines) != 1:
            raise InputError(f"{path} is not a JSON object (nor a one-line JSONL file)") from None
        try:
            data = json.loads(lines[0])
        except json.JSONDecodeError as exc:
            raise InputError(f"{path} is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise InputError(f"{path} must hold one JSON object")
    return issue_from_mapping(data)


def read_issue(path: Path) -> Issue:
    """A GitHub issue / SWE-bench JSON file, or plain markdown whose first line is the title."""
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() != ".json" and not text.lstrip().startswith(("{", "[")):
        title, _, body = text.strip().partition("\n")
        return Issue(title=title.lstrip("# ").strip(), body=body)
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path} is not valid JSON (line {exc.lineno}: {exc.msg})") from exc
    return issue_from_file(path)
