"""The engine's seams with the outside world, as small Protocols."""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel, Field

from spice_engine.models import Usage


class ChatReply(BaseModel):
    """Texts of the returned choices and what the request cost."""

    texts: list[str]
    usage: Usage
    cut_off: list[bool] = Field(default_factory=list)
    """Per choice: it stopped at the output-token limit (missing entries mean it did not)."""

    def choice(self, index: int) -> tuple[str, bool]:
        """Text of a choice and whether it was cut off ("" when the server sent fewer)."""
        text = self.texts[index] if index < len(self.texts) else ""
        return text, index < len(self.cut_off) and self.cut_off[index]


class ChatModel(Protocol):
    """A chat-completion model able to return one or several choices for one prompt."""

    @property
    def name(self) -> str: ...

    @property
    def supports_n(self) -> bool: ...

    def chat(
        self,
        messages: list[dict[str, str]],
        *,
        n: int,
        seed: int,
        schema: type[BaseModel],
    ) -> ChatReply: ...

    def estimate_cost(self, messages: list[dict[str, str]], n: int, batched: bool) -> float | None:
        """Upper-bound cost in USD of a request, or None when the price is unknown."""
        ...
