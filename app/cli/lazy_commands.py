"""Commands loaded when used: `spice --help` lists them without importing what they need.

Each command module imports its heavy dependencies (SQLAlchemy, PyGithub, litellm, sklearn,
matplotlib) itself; listing the commands only needs their names and one-line help, kept here
(a test checks they match the commands' own docstrings).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

import click
import typer
from typer.core import TyperGroup


@dataclass(frozen=True)
class LazyCommand:
    target: str
    """`module:function` of the typer command."""
    summary: str
    """The first line of the function's docstring."""

    def load(self, name: str) -> click.Command:
        module, _, attr = self.target.partition(":")
        function = getattr(importlib.import_module(module), attr)
        one = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
        one.command(name)(function)
        return typer.main.get_command(one)


class _Placeholder(click.Command):
    """Stands for a command in listings; becomes the real command when invoked."""

    def __init__(self, name: str, lazy: LazyCommand) -> None:
        super().__init__(name, short_help=lazy.summary, help=lazy.summary)
        self._lazy = lazy

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:
        real = self._lazy.load(self.name or "")
        return real.make_context(info_name, args, parent=parent, **extra)


def lazy_group(commands: dict[str, LazyCommand]) -> type[TyperGroup]:
    """A typer group class serving `commands` on demand, in the given order."""

    class LazyGroup(TyperGroup):
        def list_commands(self, ctx: click.Context) -> list[str]:
            return [*super().list_commands(ctx), *commands]

        def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
            lazy = commands.get(cmd_name)
            if lazy is None:
                return super().get_command(ctx, cmd_name)
            return _Placeholder(cmd_name, lazy)

    return LazyGroup
