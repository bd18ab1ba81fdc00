"""Entry point of the `spice` command: every command module registered here."""

from __future__ import annotations

import os
import sys

import typer
from pydantic import ValidationError

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
from app.cli import validate as validate_cli
from app.cli import worker as worker_cli

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
cli.command("validate")(validate_cli.validate_cmd)


def run() -> None:
    """Console-script entry point: bad input ends in one line on stderr, never a traceback."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        cli()
    except UnicodeDecodeError as exc:
        sys.exit(f"error: input is not UTF-8 text ({exc.reason} at byte {exc.start})")
    except OSError as exc:
        where = f": {exc.filename}" if exc.filename else ""
        sys.exit(f"error: {exc.strerror or exc}{where}")
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'value'}: {e['msg']}" for e in exc.errors()
        )
        sys.exit(f"error: invalid value ({problems})")
