"""Entry point of the `spice` command: every command listed here, loaded when used."""

from __future__ import annotations

import os
import sys

import typer

from app.cli.lazy_commands import LazyCommand, lazy_group

COMMANDS = {
    "label-issue": LazyCommand(
        "app.cli.label_issue:label_issue",
        "Label an issue for clarity (0-3) and candidate solution with k model votes.",
    ),
    "label-issues": LazyCommand(
        "app.cli.label_issues:label_issues",
        "Label a JSONL file of issues for clarity and candidate solution, concurrently.",
    ),
    "label-pr": LazyCommand(
        "app.cli.label_pr:label_pr",
        "Label a pull request's test adequacy (with counter-examples) and difficulty.",
    ),
    "label-instance": LazyCommand(
        "app.cli.label_instance:label_instance",
        "Label SWE-bench instances (tests + difficulty), or dry-run them for a token/cost report.",
    ),
    "action": LazyCommand(
        "app.cli.action:action",
        "Triage the event in $GITHUB_EVENT_PATH; JSON on stdout and in $GITHUB_OUTPUT (`json`).",
    ),
    "serve": LazyCommand(
        "app.cli.serve:serve",
        "Serve POST /webhook, GET /healthz and GET /metrics (gunicorn with uvicorn workers).",
    ),
    "worker": LazyCommand(
        "app.cli.worker:worker",
        "Run queued jobs; jobs a crash left behind are picked up at start and every minute.",
    ),
    "harvest": LazyCommand(
        "app.cli.harvest:harvest",
        "Harvest merged PRs into SWE-bench-style task instances; a rerun resumes where it stopped.",
    ),
    "export": LazyCommand(
        "app.cli.export:export",
        "Write the stored instances with SWE-bench's fields and a `spice` block of our labels.",
    ),
    "validate": LazyCommand(
        "app.cli.validate:validate_cmd",
        "Compute FAIL_TO_PASS, PASS_TO_PASS, version and environment_setup_commit by running "
        "tests.",
    ),
    "test-strength": LazyCommand(
        "app.cli.test_strength:test_strength_cmd",
        "Mutate each instance's fix and leave out its parts: do its tests notice? (sandboxed)",
    ),
    "eval": LazyCommand(
        "app.cli.evaluate:evaluate_cmd",
        "Agreement of predictions with human labels: accuracy, kappa, alpha, F1, CIs, per repo.",
    ),
    "evaluate": LazyCommand(
        "app.cli.grade:evaluate_cmd",
        "Grade model patches on a dataset's instances in the sandbox: SWE-bench's reports.",
    ),
    "signals": LazyCommand(
        "app.cli.signals:signals",
        "Extract issue evidence signals; with --gold, score them against the human labels.",
    ),
    "pr-signals": LazyCommand(
        "app.cli.pr_signals:pr_signals",
        "Score the deterministic test-adequacy flags and difficulty prior against human labels.",
    ),
    "split-diff": LazyCommand(
        "app.cli.split_diff:split_diff_command",
        "Split a diff per file into the gold patch (source) and the test patch, byte-exact.",
    ),
}

cli = typer.Typer(
    name="spice",
    cls=lazy_group(COMMANDS),
    help="SPICE Triage: rubric-based LLM labels for GitHub issues and pull requests.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


@cli.callback()
def _root() -> None:
    """SPICE Triage: rubric-based LLM labels for GitHub issues and pull requests."""


def run() -> None:
    """Console-script entry point: a failure ends in one line on stderr, never a traceback."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        cli()
    except KeyboardInterrupt:
        sys.exit("interrupted")
    except Exception as exc:  # noqa: BLE001 - the one place every failure is turned into a line
        from app.cli.errors import explain, log_unexpected
        from spice_engine.redaction import env_secret_values, redact

        line = explain(exc)
        if line is None:
            path = log_unexpected(exc)
            line = f"unexpected {type(exc).__name__}: {_first_line(exc)} (details in {path})"
        sys.exit(f"error: {redact(line, env_secret_values())}")


def _first_line(exc: BaseException) -> str:
    from spice_engine.redaction import redacted_excerpt

    text = str(exc).strip().splitlines()
    return redacted_excerpt(text[0], head=200) if text else "no message"
