"""Offline tiktoken counting (litellm ships the encoding files), shaped for aider's RepoMap."""

from __future__ import annotations

import importlib.util
import os
from functools import cache
from pathlib import Path
from typing import Any

ENCODING = "o200k_base"


@cache
def _encoding() -> Any:
    # tiktoken downloads encodings on first use; litellm's bundled copies keep us offline.
    if "TIKTOKEN_CACHE_DIR" not in os.environ:
        spec = importlib.util.find_spec("litellm")
        if spec and spec.origin:
            bundled = Path(spec.origin).parent / "litellm_core_utils" / "tokenizers"
            os.environ["TIKTOKEN_CACHE_DIR"] = str(bundled)
    import tiktoken

    return tiktoken.get_encoding(ENCODING)


def count_tokens(text: str) -> int:
    """Tokens of `text` under the o200k encoding (GPT-4o family; close for other models)."""
    return len(_encoding().encode(text, disallowed_special=()))


def count_message_tokens(messages: list[dict[str, str]]) -> int:
    """Prompt tokens of a chat request: contents plus a few tokens of framing per message."""
    return sum(count_tokens(m.get("content", "")) + 4 for m in messages) + 2


def truncate_to_tokens(text: str, limit: int, marker: str) -> str:
    """Keep the head and tail of `text` within `limit` tokens, the cut shown by `marker`."""
    enc = _encoding()
    ids = enc.encode(text, disallowed_special=())
    if len(ids) <= limit:
        return text
    keep = max(limit - count_tokens(marker) - 2, 0)
    head, tail = ids[: keep * 2 // 3], ids[len(ids) - keep // 3 :] if keep // 3 else []
    return f"{enc.decode(head)}\n{marker}\n{enc.decode(tail)}"


class TiktokenModel:
    """The slice of aider's `Model` that RepoMap uses: a token counter."""

    name = "tiktoken-o200k"

    def token_count(self, text: Any) -> int:
        if not isinstance(text, str):
            text = str(text)
        return count_tokens(text)


def head_tokens(text: str, limit: int, marker: str) -> str:
    """The first `limit` tokens of `text`, cut at a line end, followed by `marker`."""
    enc = _encoding()
    ids = enc.encode(text, disallowed_special=())
    if len(ids) <= limit:
        return text
    head = enc.decode(ids[: max(limit - count_tokens(marker) - 2, 0)])
    cut = head.rfind("\n")
    return f"{head[: cut if cut > 0 else len(head)]}\n{marker}"
