"""Versioned prompt templates: `prompts/<id>/v<N>.j2`, rendered by one StrictUndefined function."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined, TemplateError

from spice_engine.errors import PromptError
from spice_engine.models import PromptRef

_SPLIT = re.compile(r"^=== (system|user) ===\s*$", re.MULTILINE)


def prompts_dir() -> Path:
    """The installed copy (wheel) or the repository's `prompts/` (editable install)."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "_prompts", here.parent / "prompts"):
        if candidate.is_dir():
            return candidate
    raise PromptError(f"prompt directory not found next to {here}")


@cache
def _environment(root: str) -> Environment:
    # Prompts are plain text for a model, not HTML: autoescape would corrupt code in issues.
    return Environment(
        loader=FileSystemLoader(root),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def latest_version(prompt_id: str, root: Path | None = None) -> str:
    """Highest `v<N>` available for a prompt id."""
    base = (root or prompts_dir()) / prompt_id
    versions = sorted(int(p.stem[1:]) for p in base.glob("v*.j2") if p.stem[1:].isdigit())
    if not versions:
        raise PromptError(f"no versions of prompt {prompt_id!r} in {base}")
    return str(versions[-1])


def available_prompts(root: Path | None = None) -> list[PromptRef]:
    """Every (id, version) template on disk."""
    base = root or prompts_dir()
    refs = []
    for path in sorted(base.glob("*/v*.j2")):
        if path.stem[1:].isdigit():
            refs.append(PromptRef(id=path.parent.name, version=path.stem[1:]))
    return refs


def render_messages(
    prompt_id: str,
    variables: dict[str, object],
    version: str | None = None,
    root: Path | None = None,
) -> tuple[PromptRef, list[dict[str, str]]]:
    """Render a template into chat messages; its `=== system ===` / `=== user ===` parts."""
    base = root or prompts_dir()
    ref = PromptRef(id=prompt_id, version=version or latest_version(prompt_id, base))
    try:
        template = _environment(str(base)).get_template(f"{ref.id}/v{ref.version}.j2")
        text = template.render(**variables)
    except TemplateError as exc:
        raise PromptError(f"cannot render prompt {ref.id} v{ref.version}: {exc}") from exc
    parts = _SPLIT.split(text)
    messages = [
        {"role": role, "content": content.strip()}
        for role, content in zip(parts[1::2], parts[2::2], strict=True)
    ]
    if not messages or messages[-1]["role"] != "user":
        raise PromptError(f"prompt {ref.id} v{ref.version} must end with a '=== user ===' part")
    return ref, messages
