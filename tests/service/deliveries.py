"""Signed webhook deliveries built from octokit payload examples (tests/data/webhooks)."""

from __future__ import annotations

import copy
import json
import uuid
from pathlib import Path
from typing import Any

from app.web.signature import sign

WEBHOOKS = Path(__file__).resolve().parents[1] / "data" / "webhooks"
SECRET = b"test-webhook-secret"


def example(event: str, name: str = "") -> dict[str, Any]:
    """A payload example, e.g. example("issues", "opened") or example("ping")."""
    stem = f"{name}.payload.json" if name else "payload.json"
    data: dict[str, Any] = json.loads((WEBHOOKS / event / stem).read_text())
    return copy.deepcopy(data)


def issue_payload(number: int, action: str = "opened", repo: str | None = None) -> dict[str, Any]:
    payload = example("issues", "opened")
    payload["action"] = action
    payload["issue"]["number"] = number
    if repo:
        payload["repository"]["full_name"] = repo
    return payload


def signed_headers(
    body: bytes,
    event: str,
    delivery_id: str | None = None,
    secret: bytes = SECRET,
) -> dict[str, str]:
    return {
        "Content-Type": "application/json",
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": delivery_id or str(uuid.uuid4()),
        "X-Hub-Signature-256": sign(secret, body),
    }
