"""Entry point of the `spice` command: every command module registered here."""

from __future__ import annotations

import os
import sys

import typer

from app.cli import action as action_cli
from app.cli import evaluate as evaluate_cli
from app.cli import export as export_cli
from app.cli import harvest as harvest_cli
from app.cli import label_instance as label_instance_cli
from app.cli import label_issue
from app.cli import label_pr as label_pr_cli
from app.cli import pr_signals as pr_signals_cli
from app.cli import serve as serve_cli
from app.cli import signals as signals_cli
from app.cli import split_diff as split_diff_cli
from app.cli import worker as worker_cli
from app.cli.errors import explain, log_unexpected

cli = typer.Typer(
    name="spice",
    help="SPICE Triage: rubric-based LLM labels for GitHub issues and pull requests.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


@cli.callback()
def _root() -> None:
    """SPICE Triage: rubric-based LLM labels for GitHub issues and pull requests."""


cli.command("label-issue")(label_issue.label_issue)
cli.command("action")(action_cli.action)
cli.command("eval")(evaluate_cli.evaluate_cmd)
cli.command("signals")(signals_cli.signals)
cli.command("split-diff")(split_diff_cli.split_diff_command)
cli.command("serve")(serve_cli.serve)
cli.command("worker")(worker_cli.worker)
cli.command("label-pr")(label_pr_cli.label_pr)
cli.command("label-instance")(label_instance_cli.label_instance)
cli.command("harvest")(harvest_cli.harvest)
cli.command("export")(export_cli.export)
cli.command("pr-signals")(pr_signals_cli.pr_signals)


def run() -> None:
    """Console-script entry point: a failure ends in one line on stderr, never a traceback."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        cli()
    except KeyboardInterrupt:
        sys.exit("interrupted")
    except Exception as exc:  # noqa: BLE001 - the one place every failure is turned into a line
        line = explain(exc)
        if line is None:
            path = log_unexpected(exc)
            line = f"unexpected {type(exc).__name__}: {_first_line(exc)} (details in {path})"
        sys.exit(f"error: {line}")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else "no message"
