"""Configuration of one model as used for voting."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, SecretStr

OutputMode = Literal["auto", "json_schema", "json_object", "text"]


class ModelConfig(BaseModel):
    """How to call one model and how many votes to take."""

    model: str = "gpt-4o-mini"
    """Any litellm model string (`gpt-4o-mini`, `anthropic/...`, `openai/<alias>`)."""
    api_base: str | None = None
    """Base URL of an OpenAI-compatible server (local llama.cpp, vLLM, a proxy)."""
    api_key: SecretStr | None = None
    """Key for the provider; None lets litellm read the provider's own variable."""
    votes: int = Field(default=3, ge=1, le=15)
    """k independent runs per dimension."""
    temperature: float = Field(default=0.7, ge=0.0, le=2.0)
    """Above 0 so that votes are not copies of one another."""
    seed: int = 0
    """Base seed; vote i of a batch uses seed + i."""
    timeout_s: float = Field(default=60.0, gt=0)
    """Per-attempt timeout: the longest wait for one answer."""
    connect_timeout_s: float = Field(default=10.0, gt=0)
    """A server that does not accept the connection within this is down."""
    deadline_s: float = Field(default=90.0, gt=0)
    """Total time for one request, retries included: a hung server fails the call in this."""
    max_attempts: int = Field(default=3, ge=1, le=10)
    """Attempts per request on transient errors (timeouts, 429, 5xx, connection)."""
    backoff_s: float = Field(default=1.0, ge=0)
    """First backoff wait; doubles per attempt."""
    output_mode: OutputMode = "auto"
    """`json_schema`, `json_object` (+ schema for local servers), or `text` with JSON extraction."""
    use_n: Literal["auto", "always", "never"] = "auto"
    """One request with `n=k` where the provider supports it (input billed once)."""
    max_output_tokens: int = Field(default=1024, ge=16)
    cost_cap_usd: float | None = Field(default=None, gt=0)
    """Stop voting on an item once its spend would exceed this."""
