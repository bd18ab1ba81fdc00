"""`spice validate`: run each instance's tests before and after its gold patch."""

from __future__ import annotations

import json
import sys
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from tqdm import tqdm  # type: ignore[import-untyped]

from app.cli.common import emit_json, fail, settings_with
from app.cli.progress import PhaseReporter
from app.redaction import redacted_outcome, secret_values
from app.sandboxing import checked_sandbox, docker_sandbox
from app.settings import Settings
from spice_engine.dataset.completion import complete
from spice_engine.errors import InputError
from spice_engine.jsonl import instances
from spice_engine.langs.executor import Executor
from spice_engine.runs.validate_rows import validate_rows
from spice_engine.validate.clone_cache import clone_from_github
from spice_engine.validate.gitwork import open_repository
from spice_engine.validate.sandbox import Sandbox, SandboxUnavailable, Unsandboxed

NONE_VALID = 3
"""Exit status when no instance validated (not an error of the command: of the instances)."""


def read_rows(path: Path) -> list[dict[str, Any]]:
    try:
        return instances(path, ("instance_id", "repo", "base_commit"))
    except InputError as exc:
        fail(str(exc))


def repo_map(
    specs: list[str], cache: Path, rows: list[dict[str, Any]], base_url: str
) -> dict[str, Path]:
    git_dirs: dict[str, Path] = {}
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep or "/" not in name or not path:
            fail(f"--repo must be OWNER/NAME=PATH, got {spec!r}")
        try:
            git_dirs[name] = open_repository(Path(path).expanduser(), cache)
        except InputError as exc:
            fail(str(exc))
    given = {name.lower(): path for name, path in git_dirs.items()}
    for name in {str(r["repo"]) for r in rows} - git_dirs.keys():  # GitHub's names ignore case
        if name.lower() in given:
            git_dirs[name] = given[name.lower()]
    if not specs:  # no local copies: clone each repository the rows name (SPICE_GIT_BASE_URL)
        for name in sorted({str(r["repo"]) for r in rows}):
            try:
                git_dirs[name] = clone_from_github(name, cache, base_url)
            except InputError as exc:
                typer.echo(f"warning: {exc}", err=True)
    return git_dirs


def executor_for(settings: Settings, name: str, no_sandbox: bool) -> Executor:
    """The executor asked for (every language, one sandbox); repository code runs in the
    sandbox unless told otherwise."""
    if name not in ("local", "docker"):
        fail(f"--executor must be local or docker, not {name!r}")
    sandbox: Sandbox
    if name == "docker":
        try:
            sandbox = docker_sandbox(settings)
        except SandboxUnavailable as exc:
            fail(f"--executor docker: {exc}")
    elif no_sandbox:
        typer.echo(
            "warning: --no-sandbox: the repositories' build and tests run as you, with your "
            "files and network; use it for repositories you trust only",
            err=True,
        )
        sandbox = Unsandboxed()
    else:
        try:
            sandbox = checked_sandbox(settings)
        except SandboxUnavailable as exc:
            fail(
                f"no sandbox to run repository code in: {exc}. Install it, use --executor "
                "docker, or pass --no-sandbox for repositories you trust"
            )
    envs = settings.data_dir.resolve() / "envs"
    return Executor(envs, sandbox)


RepoOption = Annotated[
    list[str] | None,
    typer.Option("--repo", help="OWNER/NAME=PATH (a git repository or bundle); repeatable."),
]
ExecutorOption = Annotated[
    str,
    typer.Option(
        "--executor",
        help="local (bubblewrap, the default) or docker: where each command is sandboxed.",
    ),
]
StoreOption = Annotated[
    bool,
    typer.Option(
        "--store",
        help="Also keep each result on its harvested instance in the store, for `spice export`.",
    ),
]
NoSandboxOption = Annotated[
    bool,
    typer.Option(
        "--no-sandbox",
        help="Run the repositories' code without the sandbox (trusted repositories only).",
    ),
]
"""Options `spice validate` shares with the other commands that run repositories' tests."""


def validate_cmd(
    instances: Annotated[Path, typer.Argument(help="SWE-bench JSONL to validate.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="JSONL to write.")],
    repo: RepoOption = None,
    workers: Annotated[int, typer.Option(min=1, help="Instances validated at once.")] = 1,
    timeout: Annotated[
        float, typer.Option(min=1, help="Seconds per test run (SWE-bench's harness allows 1800).")
    ] = 1800.0,
    reruns: Annotated[
        int, typer.Option(min=0, max=5, help="Reruns of fail-to-pass tests to drop flaky ones.")
    ] = 1,
    executor_name: ExecutorOption = "local",
    logs: Annotated[
        Path | None,
        typer.Option(help="Keep each instance's run logs here (default: OUT.logs/)."),
    ] = None,
    store: StoreOption = False,
    no_sandbox: NoSandboxOption = False,
) -> None:
    """Compute FAIL_TO_PASS, PASS_TO_PASS, version and environment_setup_commit by running tests.

    Each instance is appended to --out as it finishes, so an interrupted batch keeps what it
    did and the same command resumes it (instances already in --out are skipped). Exit status:
    0 when at least one instance is valid, 3 when none is.
    """
    settings = settings_with()
    rows = read_rows(instances)
    data = settings.data_dir.resolve()
    executor = executor_for(settings, executor_name, no_sandbox)
    statuses: Counter[str] = Counter(_already_done(out))
    todo = [r for r in rows if str(r["instance_id"]) not in _done_ids(out)]
    if len(todo) < len(rows):
        typer.echo(
            f"validate: resuming, {len(rows) - len(todo)} of {len(rows)} already in {out}", err=True
        )
    git_dirs = repo_map(repo or [], data / "repos", todo, settings.git_base_url)
    bar = tqdm(total=len(todo), unit="instance", desc="validate", disable=None, dynamic_ncols=True)
    lock = threading.Lock()
    finished: list[str] = []
    keep = _stored_validations(settings) if store else None
    out.parent.mkdir(parents=True, exist_ok=True)
    secrets = secret_values(settings)

    # On a terminal the bar moves and each phase is a line above it; elsewhere a heartbeat.
    say = (lambda line: typer.echo(line, err=True)) if bar.disable else _above(bar)
    phases = PhaseReporter("validate", say, heartbeat=bool(bar.disable))

    def done(row: dict[str, Any]) -> None:
        phases.done(str(row["instance_id"]))
        row = complete(row, data / "envs")  # version, recipe and runs for others' tools
        row = redacted_outcome(row, "validation", secrets)  # before it is written or kept
        validation = row["spice"]["validation"]
        with lock, out.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            statuses[validation["status"]] += 1
            line = outcome_line(row, len(finished) + 1, len(todo))
            if bar.disable:  # not a terminal (CI, nohup): a line per instance instead
                typer.echo(line, err=True)
            elif validation["status"] != "valid":  # the bar counts; a failure says why
                tqdm.write(line, file=sys.stderr)
            finished.append(str(row["instance_id"]))
            if keep is not None:
                keep(row)
            bar.update(1)
            bar.set_postfix(valid=statuses["valid"], refresh=False)

    try:
        with phases:
            validate_rows(
                todo,
                git_dirs,
                executor,
                data / "tmp",
                workers,
                timeout,
                reruns,
                on_done=done,
                logs_dir=logs or Path(f"{out}.logs"),
                on_phase=phases.phase,
            )
    finally:
        bar.close()
    emit_json({"instances": len(rows), "statuses": dict(statuses), "out": str(out)})
    if rows and not statuses["valid"]:
        raise typer.Exit(NONE_VALID)


def _above(bar: Any) -> Callable[[str], None]:
    return lambda line: bar.write(line, file=sys.stderr)


def outcome_line(row: dict[str, Any], n: int, total: int) -> str:
    """`validate: [n/total] id status (s)`, and its detail's first line: a failure's reason, or
    what a valid row says of its tests (how many need the network)."""
    validation = row["spice"]["validation"]
    seconds = validation.get("durations", {}).get("total", 0.0)
    line = f"validate: [{n}/{total}] {row['instance_id']} {validation['status']} ({seconds:.0f} s)"
    reason = next(iter(str(validation.get("detail") or "").strip().splitlines()), "")
    if reason:
        line += f": {reason[:300]}"
    return line


def _stored_validations(settings: Settings) -> Callable[[dict[str, Any]], None]:
    """Saves a validated row on its harvested instance (rows the store does not hold are
    said once each on stderr: they were not harvested here)."""
    from app.harvest.store import HarvestStore
    from app.store.opening import open_store

    harvest = HarvestStore(open_store(settings).sessions)

    def keep(row: dict[str, Any]) -> None:
        iid = str(row["instance_id"])
        if harvest.instance(iid) is None:
            typer.echo(
                f"validate: {iid} is not in the store (not harvested here): not kept", err=True
            )
            return
        harvest.save_validation(iid, row)

    return keep


def _done_ids(out: Path) -> set[str]:
    return {str(r.get("instance_id")) for r in finished_rows(out)}


def _already_done(out: Path) -> list[str]:
    return [str(r["spice"]["validation"]["status"]) for r in finished_rows(out)]


def finished_rows(out: Path, part: str = "validation") -> list[dict[str, Any]]:
    """Rows an earlier run of the same command wrote, holding its `spice.<part>` (a line cut
    by an interruption is not one of them: that instance runs again)."""
    if not out.is_file():
        return []
    rows = []
    for line in out.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(row, dict) and isinstance((row.get("spice") or {}).get(part), dict):
            rows.append(row)
    return rows
