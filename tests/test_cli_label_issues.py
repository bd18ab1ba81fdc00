"""`spice label-issues`: a file of issues labelled concurrently, resumable, failures counted."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from app.cli.main import cli
from tests.fakes.github_fixtures import scripted
from tests.fakes.openai_server import FakeOpenAI, Reply

ROOT = Path(__file__).resolve().parents[1]
SPICE = str(Path(sys.executable).parent / "spice")


def spice(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SPICE_", "OPENAI_"))}
    return subprocess.run(
        [SPICE, *args], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120
    )


def instances(tmp_path: Path, n: int) -> Path:
    path = tmp_path / "issues.jsonl"
    rows = [
        {
            "instance_id": f"acme__widgets-{i}",
            "repo": "acme/widgets",
            "problem_statement": f"parse() fails on input {i}\nIt raises KeyError for '{i}'.",
        }
        for i in range(1, n + 1)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def model(server: FakeOpenAI) -> list[str]:
    return ["--model", "openai/fake", "--api-base", server.api_base, "--votes", "3"]


def test_a_file_is_labelled_concurrently_and_a_rerun_resumes(
    tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    out = tmp_path / "labels.jsonl"
    done = spice(
        "label-issues",
        str(instances(tmp_path, 5)),
        "--out",
        str(out),
        "--workers",
        "3",
        *model(fake_openai),
    )
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["instance_id"] for r in rows) == [f"acme__widgets-{i}" for i in range(1, 6)]
    assert all(r["clarity"]["score"] in (0, 1, 2, 3) for r in rows)
    assert "labelled 5 of 5" in done.stderr
    asked = len(fake_openai.requests)

    # An interrupted run left half a line: it is dropped and that issue labelled again.
    out.write_text(out.read_text() + '{"instance_id": "acme__wid')
    more = instances(tmp_path, 6)
    done = spice("label-issues", str(more), "--out", str(out), *model(fake_openai))
    assert done.returncode == 0, done.stderr
    assert "labelled 1 of 1" in done.stderr
    assert len(fake_openai.requests) > asked
    ids = [json.loads(line)["instance_id"] for line in out.read_text().splitlines()]
    assert sorted(ids) == sorted(f"acme__widgets-{i}" for i in range(1, 7))


def test_every_issue_failing_is_an_error(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    def refuse(_request: dict[str, Any]) -> Reply:
        return Reply(status=401, error="Incorrect API key provided")

    fake_openai.responder = refuse
    out = tmp_path / "labels.jsonl"
    done = spice(
        "label-issues", str(instances(tmp_path, 3)), "--out", str(out), *model(fake_openai)
    )
    assert done.returncode == 1
    assert "every issue failed" in done.stderr and "Traceback" not in done.stderr
    assert out.read_text() == ""


def test_a_mistyped_model_is_one_short_line_before_any_vote(
    tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    args = ["--model", "opnai/fake", "--api-base", fake_openai.api_base]
    issues = str(instances(tmp_path, 3))
    done = CliRunner().invoke(cli, ["label-issues", issues, "--out", str(tmp_path / "o"), *args])
    assert done.exit_code == 1
    [line] = done.output.splitlines()
    assert line.startswith("error: unknown model 'opnai/fake'") and len(line) < 250, line
    assert fake_openai.requests == []


def test_ctrl_c_keeps_what_was_labelled_and_says_how_to_resume(
    tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    slow = scripted([1])
    fake_openai.responder = lambda request: replace(slow(request), delay_s=0.3)
    out, issues = tmp_path / "labels.jsonl", instances(tmp_path, 40)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SPICE_", "OPENAI_"))}
    command = [SPICE, "label-issues", str(issues), "--out", str(out), "--workers", "2"]
    run = subprocess.Popen(
        [*command, *model(fake_openai)],
        cwd=ROOT,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        # A suite started in the background (CI, nohup, `&`) ignores SIGINT, and its children
        # would inherit that: Ctrl-C restored as a terminal would deliver it.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 60
    while not (out.exists() and out.read_text().count("\n") >= 2):
        assert time.monotonic() < deadline and run.poll() is None, run.communicate()
        time.sleep(0.05)
    run.send_signal(signal.SIGINT)
    _, err = run.communicate(timeout=30)
    assert run.returncode == 130
    kept = out.read_text().count("\n")
    assert f"interrupted: {kept} of 40 issues labelled into {out} and kept" in err
    assert f"run the same command again to label the other {40 - kept}" in err
    assert "Traceback" not in err
