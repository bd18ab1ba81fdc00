"""The configuration reference page, written from the settings object itself."""

from __future__ import annotations

from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from app.settings import Settings

HEADER = """# Configuration reference

Every setting is an environment variable read once at start-up by `app/settings.py`.
Generated from that file by `python -m app.config_reference > docs/configuration.md`
(a test fails when this page is out of date). Secrets (`SecretStr`) are never logged.

| variable | type | default | meaning |
|---|---|---|---|
"""


def _default(field: FieldInfo) -> str:
    if field.default_factory is not None:
        return "`[]`" if field.default_factory is list else "(computed)"
    if field.default is PydanticUndefined or field.default is None:
        return "–"
    return f"`{field.default}`"


def _type(field: FieldInfo) -> str:
    text = str(field.annotation).replace("typing.", "").replace("pathlib.", "")
    text = text.replace("<class '", "").replace("'>", "").replace("pydantic.types.", "")
    return f"`{text}`".replace("|", "\\|")


def reference() -> str:
    rows = []
    for name, field in Settings.model_fields.items():
        meaning = " ".join((field.description or "").split()).replace("|", "\\|")
        rows.append(f"| `SPICE_{name.upper()}` | {_type(field)} | {_default(field)} | {meaning} |")
    return HEADER + "\n".join(rows) + "\n"


if __name__ == "__main__":
    print(reference(), end="")
