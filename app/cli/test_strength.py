"""`spice test-strength`: how strongly each instance's tests pin its fix down (ablation and
mutation of the fix, run in the sandbox)."""

from __future__ import annotations

import json
import sys
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from app.cli.common import emit_json, settings_with
from app.cli.progress import PhaseReporter
from app.cli.validate import (
    ExecutorOption,
    NoSandboxOption,
    RepoOption,
    StoreOption,
    executor_for,
    finished_rows,
    read_rows,
    repo_map,
)
from app.redaction import redacted_outcome, secret_values
from app.settings import Settings
from spice_engine.strength.config import StrengthConfig


def test_strength_cmd(
    instances: Annotated[Path, typer.Argument(help="SWE-bench JSONL with FAIL_TO_PASS lists.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="JSONL to write.")],
    repo: RepoOption = None,
    workers: Annotated[int, typer.Option(min=1, help="Instances measured at once.")] = 1,
    timeout: Annotated[float, typer.Option(min=1, help="Seconds per test run.")] = 900.0,
    max_mutants: Annotated[int, typer.Option(min=0, help="Mutants tried per instance.")] = 30,
    budget: Annotated[
        float, typer.Option(min=1, help="Seconds per instance, preparing its environment included.")
    ] = 900.0,
    times_validation: Annotated[
        float,
        typer.Option(
            min=1,
            help="At most this many times a row's own validation (its test runs, when the row "
            "carries one from `spice validate`), if that is less than --budget.",
        ),
    ] = StrengthConfig().times_validation,
    ablation: Annotated[
        bool, typer.Option(help="Leave out each file and hunk of the fix in turn.")
    ] = True,
    catching_tests: Annotated[
        int,
        typer.Option(
            min=0,
            help="Top survivors the configured model (SPICE_MODEL, SPICE_VOTES votes) writes a "
            "catching test for, each run on the fix and on the survivor (0: none).",
        ),
    ] = 0,
    logs: Annotated[
        Path | None,
        typer.Option(help="Keep every run's log here, a folder per instance (default: none)."),
    ] = None,
    executor_name: ExecutorOption = "local",
    store: StoreOption = False,
    no_sandbox: NoSandboxOption = False,
) -> None:
    """Mutate each instance's fix and leave out its parts: do its tests notice? (sandboxed)

    Mutants of each fix's changed lines and the fix without each of its parts, judged by
    FAIL_TO_PASS and the touched test files' PASS_TO_PASS, go to `spice.test_strength`. Rows are appended to --out as they finish; the same command resumes an interrupted batch.
    """
    settings = settings_with()
    rows = read_rows(instances)
    data = settings.data_dir.resolve()
    executor = executor_for(settings, executor_name, no_sandbox)
    done_ids = {str(r.get("instance_id")) for r in finished_rows(out, "test_strength")}
    statuses: Counter[str] = Counter(
        r["spice"]["test_strength"]["status"] for r in finished_rows(out, "test_strength")
    )
    todo = [r for r in rows if str(r["instance_id"]) not in done_ids]
    git_dirs = repo_map(repo or [], data / "repos", todo, settings.git_base_url)
    config = StrengthConfig(
        max_mutants=max_mutants,
        budget_s=budget,
        times_validation=times_validation,
        ablation=ablation,
        catching_tests=catching_tests,
    )
    writer = None
    if catching_tests:
        from spice_engine.llm.litellm_chat import LiteLLMChat
        from spice_engine.strength.catching import TestWriter

        chat = LiteLLMChat(settings.model_config_for())
        writer = TestWriter(chat, settings.votes, settings.cost_cap_usd, settings.allow_unpriced)
    lock = threading.Lock()
    out.parent.mkdir(parents=True, exist_ok=True)
    keep = _stored(settings) if store else None
    secrets = secret_values(settings)

    # Minutes pass in each phase: each is said as it starts, and a heartbeat off a terminal.
    say = lambda line: typer.echo(line, err=True)  # noqa: E731
    phases = PhaseReporter("test-strength", say, heartbeat=not sys.stderr.isatty())

    def done(row: dict[str, Any]) -> None:
        phases.done(str(row["instance_id"]))
        row = redacted_outcome(row, "test_strength", secrets)  # before it is written or kept
        got = row["spice"]["test_strength"]
        with lock, out.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            statuses[got["status"]] += 1
            if keep is not None:
                keep(str(row["instance_id"]), got)
        score = "" if got["score"] is None else f", score {got['score']:.2f}"
        verdicts = Counter(m["verdict"] for m in got["mutants"])
        parts = f"{len(got['untested'])} of {got['parts_checked']} parts untested"
        cut = "".join(f"; {s}" for s in got["skipped"])  # what the budget cut, never hidden
        typer.echo(
            f"test-strength: {row['instance_id']} {got['status']} "
            f"({got['mutants_killed']}/{got['mutants_tried']} judged killed{score}, "
            f"{verdicts['equivalent']} equivalent, {verdicts['not_run']} not run, {parts}, "
            f"{got['durations'].get('total', 0):.0f} s{cut})",
            err=True,
        )

    from spice_engine.strength.batch import strength_rows  # libcst: after the input is read

    with phases:
        strength_rows(
            todo,
            git_dirs,
            executor,
            data / "tmp",
            config,
            workers,
            timeout,
            done,
            phases.phase,
            writer,
            logs,
        )
    emit_json({"instances": len(rows), "statuses": dict(statuses), "out": str(out)})


def _stored(settings: Settings) -> Callable[[str, dict[str, Any]], None]:
    """Saves a result on its harvested instance (one not in the store is said on stderr)."""
    from app.harvest.store import HarvestStore
    from app.store.opening import open_store

    harvest = HarvestStore(open_store(settings).sessions)

    def keep(iid: str, strength: dict[str, Any]) -> None:
        if harvest.instance(iid) is None:
            typer.echo(f"test-strength: {iid} is not in the store: not kept", err=True)
            return
        harvest.save_test_strength(iid, strength)

    return keep
