"""Every command block of the README and the docs runs as printed, or says what it needs and
where its offline twin is.

A `bash`/`sh` block carries a marker on the line before its fence:
    <!-- tour: runs -->                                       run here, offline, as printed
    <!-- tour: needs: WHAT; offline: DOC#heading -->          and that heading has a `runs` block
Runnable blocks run in a temporary copy of the working tree (tracked and untracked files, not
ignored ones; `.venv` linked), each in its own shell, with the ports they name swapped for free
ones and nothing of the caller's SPICE_* settings. By default only the benchmark builder's
offline path runs (harvest -> export -> validate --store -> export against the fake GitHub,
then graded by SWE-bench's own harness); SPICE_TOURS=all runs every block (about 2 minutes;
`.ci/run` does).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.swebench_referee import grade, referee_fixture  # noqa: F401
from tests.test_swebench_harness import run_log
from tests.validation_support import sandbox_fixture  # noqa: F401

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
MARKER = re.compile(r"<!-- tour: (.*?) -->")
FENCE = re.compile(r"^\s*```(\w*)\s*$")
PORTS = ("8000", "8080", "9000")
EXPECTED = {
    ("offline.md", "the-app"): '"clarity: ',  # the worker labelled the issue
    ("offline.md", "the-action"): '"dry_run":true',
    ("offline.md", "the-evaluation"): "kappa_binary",
    ("offline.md", "the-benchmark-builder-from-local-history"): "acme__mathx-12 resolved",
    ("README.md", "five-minutes-with-the-cli"): "issues into tour/labels.jsonl",
}
"""What a tour's output shows when it did what its text says (beyond exiting 0)."""
DEFAULT_RUN = ("offline.md", "the-benchmark-builder")
"""The one tour the default suite runs: the benchmark builder's whole path, offline."""


@dataclass(frozen=True)
class Block:
    doc: Path
    anchor: str
    line: int
    marker: str | None
    code: str

    @property
    def name(self) -> str:
        return f"{self.doc.name}#{self.anchor}:{self.line}"


def slug(heading: str) -> str:
    """The anchor mkdocs (and GitHub) give a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return re.sub(r"\s+", "-", text.strip())


def command_blocks(doc: Path) -> list[Block]:
    lines = doc.read_text(encoding="utf-8").splitlines()
    blocks, anchor, i = [], "", 0
    while i < len(lines):
        if lines[i].startswith("#") and not lines[i].startswith("#!"):
            anchor = slug(lines[i].lstrip("#"))
        fence = FENCE.match(lines[i])
        if fence is None:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].strip().startswith("```"))
        if fence.group(1) in ("bash", "sh"):
            marker = MARKER.search(lines[i - 1]) if i else None
            indent = len(lines[i]) - len(lines[i].lstrip())
            code = "\n".join(line[indent:] for line in lines[i + 1 : end]) + "\n"
            blocks.append(Block(doc, anchor, i + 1, marker.group(1) if marker else None, code))
        i = end + 1
    return blocks


ALL = [block for doc in DOCS for block in command_blocks(doc)]
RUNNABLE = [block for block in ALL if block.marker == "runs"]


def test_every_command_block_runs_or_names_its_offline_twin() -> None:
    unmarked = [b.name for b in ALL if b.marker is None]
    assert unmarked == [], (
        "mark these: <!-- tour: runs --> or <!-- tour: needs: ...; offline: ... -->"
    )
    runnable_at = {(b.doc.resolve(), b.anchor) for b in RUNNABLE}
    for block in ALL:
        if block.marker == "runs":
            continue
        found = re.fullmatch(r"needs: ([^;]+); offline: ([^#\s]+)#(\S+)", block.marker or "")
        assert found, f"{block.name}: say `needs: WHAT; offline: DOC#heading`: {block.marker}"
        twin = ((block.doc.parent / found.group(2)).resolve(), found.group(3))
        assert twin in runnable_at, f"{block.name}: no runnable block at {found.group(2)}#{twin[1]}"
    # The tours the README promises have their runnable twins.
    offline = {b.anchor for b in RUNNABLE if b.doc.name == "offline.md"}
    assert {"the-app", "the-action", "the-benchmark-builder", "the-evaluation"} <= offline


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The working tree as a plain clone would have it: no ignored files, no ../shared."""
    stamp = ROOT / ".venv" / ".spice-installed"
    newer = [
        n
        for n in ("pyproject.toml", "constraints.txt")
        if not stamp.exists() or (ROOT / n).stat().st_mtime > stamp.stat().st_mtime
    ]
    if newer:  # ./dev in the copy would reinstall the shared .venv from the copy
        pytest.skip(f".venv is older than {', '.join(newer)}: run ./dev install first")
    target = tmp_path_factory.mktemp("tours") / "spice-triage"
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)  # mtimes kept: ./dev sees .venv up to date
    (target / ".venv").symlink_to(ROOT / ".venv")
    return target


def run_block(block: Block, where: Path) -> subprocess.CompletedProcess[str]:
    code = block.code
    for port in PORTS:  # other runs on this machine may hold the printed ports
        code = re.sub(rf"\b{port}\b", str(_free_port()), code)  # one free port for each
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SPICE_", "GITHUB_"))}
    logs = where / "tour-logs"
    logs.mkdir(exist_ok=True)
    out, err = (logs / f"{block.line}.out", logs / f"{block.line}.err")
    # Files, not pipes: a background job left running must not hold the test's reading end.
    with out.open("w") as stdout, err.open("w") as stderr:
        shell = subprocess.Popen(
            ["bash", "-euo", "pipefail", "-c", code],
            cwd=where,
            env=env,
            stdout=stdout,
            stderr=stderr,
            start_new_session=True,  # its background jobs share its group: all stopped below
        )
        try:
            shell.wait(timeout=600)
        finally:
            _stop_group(shell.pid)
            pid_file = where / "tour" / "github-server.pid"
            # The block's own `kill` may have the server remove it meanwhile.
            with contextlib.suppress(FileNotFoundError, ValueError):
                _stop_group(int(pid_file.read_text()))
    return subprocess.CompletedProcess(
        shell.args, shell.returncode, out.read_text(), err.read_text()
    )


@pytest.mark.parametrize("block", RUNNABLE, ids=[b.name for b in RUNNABLE])
def test_the_block_runs_as_printed(
    block: Block, clone: Path, request: pytest.FixtureRequest
) -> None:
    if (block.doc.name, block.anchor) != DEFAULT_RUN and os.environ.get("SPICE_TOURS") != "all":
        pytest.skip("SPICE_TOURS=all runs every tour (about 2 minutes); the default runs one")
    if "./dev validate" in block.code:
        request.getfixturevalue("sandbox")  # skips, saying why, where validation cannot run
    done = run_block(block, clone)
    assert done.returncode == 0, f"{block.name}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    expected = EXPECTED.get((block.doc.name, block.anchor), "")
    assert expected in done.stdout + done.stderr, f"{block.name}: no {expected!r} in its output"


@pytest.mark.parametrize("block", [b for b in RUNNABLE if (b.doc.name, b.anchor) == DEFAULT_RUN])
def test_the_offline_tasks_are_graded_by_swebench(
    block: Block, clone: Path, referee: Path, tmp_path: Path, sandbox: object
) -> None:
    tasks = clone / "tour" / "tasks.jsonl"
    if not tasks.exists():  # else written by the tour's own test, which runs first by default
        assert run_block(block, clone).returncode == 0
    [task] = [json.loads(line) for line in tasks.read_text().splitlines()]
    assert (
        task["instance_id"] == "octo__calc-10" and task["spice"]["validation"]["status"] == "valid"
    )
    assert json.loads(task["FAIL_TO_PASS"]) == ["tests/test_calc.py::test_add"]
    assert json.loads(task["PASS_TO_PASS"]) == ["tests/test_calc.py::test_mul"]

    repo = clone / "tour" / "git" / "octo" / "calc.git"  # the fake GitHub's clone source
    files = " ".join(task["spice"]["validation"]["test_files"])
    logs = {"gold": tmp_path / "gold.log", "empty": tmp_path / "empty.log"}
    run_log(repo, [task["test_patch"], task["patch"]], files, logs["gold"])
    run_log(repo, [task["test_patch"]], files, logs["empty"])
    report = grade(referee, [(task, logs)], tmp_path)[task["instance_id"]]
    assert report["gold"]["resolved"] is True, report["gold"]
    assert report["empty"]["resolved"] is False, report["empty"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _stop_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGTERM)


@pytest.mark.parametrize("server", ["tests.fakes.openai_server", "tests.fakes.github_server"])
def test_a_tour_server_on_a_taken_port_says_so_in_one_line(server: str) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", server, "--port", str(port)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
    [line] = done.stderr.strip().splitlines()
    assert f"cannot listen on 127.0.0.1:{port}" in line
