"""Helpers every CLI command shares: settings with overrides, JSON output, clean failures."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

if TYPE_CHECKING:
    from pydantic import BaseModel

    from app.settings import Settings
# Everything else is imported where used: `spice <command> --help` should not pay for it.


def settings_with(**overrides: Any) -> Settings:
    """Settings from the environment, with the CLI's explicit options winning."""
    from app.settings import Settings

    return Settings(**{k: v for k, v in overrides.items() if v is not None})


def emit_json(value: BaseModel | dict[str, Any] | list[Any]) -> None:
    """Machine output on stdout, one JSON document."""
    if not isinstance(value, dict | list):
        typer.echo(value.model_dump_json(indent=2))
    else:
        typer.echo(json.dumps(value, indent=2, default=str))


def fail(message: str, code: int = 1) -> NoReturn:
    """A clear message on stderr and a non-zero exit."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def setup_logging(level: str, kind: str = "text") -> None:
    from app.logging_setup import configure_logging

    configure_logging(level, kind)


# The model options every labeling command takes, defined once.
ModelOption = Annotated[str | None, typer.Option(help="litellm model string.")]
ApiBaseOption = Annotated[str | None, typer.Option(help="OpenAI-compatible base URL.")]
VotesOption = Annotated[int | None, typer.Option(min=1, max=15, help="Votes per label (k).")]
OutputModeOption = Annotated[
    str | None, typer.Option(help="auto | json_schema | json_object | text")
]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]
