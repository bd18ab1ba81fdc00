"""Check a webhook payload the tests send against GitHub's webhook schemas (the excerpt)."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema.exceptions import ValidationError, best_match
from openapi_schema_validator import OAS31Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

EXCERPT = Path(__file__).resolve().parents[1] / "data" / "github" / "webhooks-openapi.json"
BASE = "urn:github-webhooks"


def _field(error: ValidationError) -> str:
    missing = re.match(r"^'([^']+)' is a required property", error.message)
    return f"{error.json_path}.{missing.group(1)}" if missing else error.json_path


def _short(message: str) -> str:
    """The reason, which jsonschema puts after a repr of the whole instance."""
    return message if len(message) <= 240 else "..." + message[-240:]


class WebhookContractError(AssertionError):
    """A payload a test sends is not one GitHub could send."""


@cache
def _description() -> tuple[dict[str, Any], Registry[Any]]:
    spec = json.loads(EXCERPT.read_text())
    return spec, Registry().with_resource(BASE, Resource(contents=spec, specification=DRAFT202012))


def webhook_problems(event: str, payload: dict[str, Any]) -> list[str]:
    """One line per field of `payload` that GitHub's schema of `event.action` rejects."""
    spec, registry = _description()
    key = f"{event}-{payload.get('action')}".replace("_", "-")
    hook = spec["webhooks"].get(key)
    if hook is None:
        return [f"webhook {key}: not in the excerpt (tests/contract/operations.py)"]
    schema = hook["post"]["requestBody"]["content"]["application/json"]["schema"]
    validator = OAS31Validator(
        schema, registry=registry, _resolver=registry.resolver(base_uri=BASE)
    )
    errors = sorted((best_match([e]) for e in validator.iter_errors(payload)), key=str)
    return [f"webhook {key}: field {_field(e)}: {_short(e.message)}" for e in errors[:12]]


def assert_webhook_valid(event: str, payload: dict[str, Any]) -> dict[str, Any]:
    problems = webhook_problems(event, payload)
    if problems:
        raise WebhookContractError("\n".join(problems))
    return payload
