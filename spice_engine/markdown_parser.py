"""The one markdown-it parser for issue text: CommonMark without emphasis."""

from __future__ import annotations

import functools

from markdown_it import MarkdownIt


@functools.cache
def issue_markdown() -> MarkdownIt:
    """Shared and stateless between parses (each `parse` builds its own state).

    Emphasis is never read here (fences, code spans, links and text are), and markdown-it's
    `fragments_join` is quadratic in one paragraph's delimiters: 20,000 underscores in an
    issue cost 0.8 s of CPU. Without the rule `_` and `*` stay literal, as they were typed.
    """
    return MarkdownIt("commonmark").disable(["emphasis"])
