"""Structured-output modes per provider, and JSON extraction from a plain-text answer."""

from __future__ import annotations

import json
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from spice_engine.errors import FormatError
from spice_engine.llm.config import ModelConfig

T = TypeVar("T", bound=BaseModel)


def resolve_mode(config: ModelConfig) -> str:
    """Pick `json_schema`, `json_object` or `text` for `auto` from litellm's model facts."""
    if config.output_mode != "auto":
        return config.output_mode
    import litellm

    try:
        if litellm.supports_response_schema(model=config.model):
            return "json_schema"
        params = litellm.get_supported_openai_params(model=config.model) or []
    except Exception:  # noqa: BLE001 - litellm raises bare Exception for unknown providers
        return "text"
    return "json_object" if "response_format" in params else "text"


def response_format(
    mode: str, schema: type[BaseModel], config: ModelConfig
) -> dict[str, Any] | None:
    """The `response_format` request field for a mode (None in text mode)."""
    json_schema = schema.model_json_schema()
    if mode == "json_schema":
        return {
            "type": "json_schema",
            "json_schema": {"name": schema.__name__, "schema": json_schema, "strict": True},
        }
    if mode == "json_object":
        # OpenAI-compatible local servers (llama.cpp) constrain decoding with this schema;
        # hosted APIs reject unknown keys, so it is sent only with an explicit api_base.
        if config.api_base:
            return {"type": "json_object", "schema": json_schema}
        return {"type": "json_object"}
    return None


def extract_json(text: str) -> Any:
    """The first JSON object in a text answer (bare, or inside a fenced block)."""
    decoder = json.JSONDecoder()
    start = text.find("{")
    while start != -1:
        try:
            value, _ = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            start = text.find("{", start + 1)
            continue
        if isinstance(value, dict):
            return value
        start = text.find("{", start + 1)
    raise FormatError("the answer contains no JSON object")


def parse_answer(text: str, schema: type[T]) -> T:
    """Validate a model answer; any problem becomes a FormatError worded for the model."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = extract_json(text)
    try:
        return schema.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}"
            for err in exc.errors()
        )
        raise FormatError(f"the JSON does not match the schema: {problems}") from exc
