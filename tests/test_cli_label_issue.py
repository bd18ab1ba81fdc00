"""`spice label-issue` as a user runs it: a subprocess talking to the fake model over HTTP."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from app.cli.main import cli
from app.settings import Settings
from spice_engine.prompts import latest_version
from tests.clarity_script import clarity
from tests.fakes.openai_server import FakeOpenAI, Reply

ROOT = Path(__file__).resolve().parents[1]
SPICE = [sys.executable, "-c", "from app.cli.main import run; run()"]


def spice(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("SPICE_", "OPENAI_"))}
    full_env.update(env or {})
    return subprocess.run(
        [*SPICE, *args], capture_output=True, text=True, cwd=ROOT, env=full_env, timeout=120
    )


def model_args(server: FakeOpenAI) -> list[str]:
    return ["--model", "openai/fake", "--api-base", server.api_base, "--votes", "3"]


def test_json_contract(fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = lambda r: Reply(
        texts=[clarity(2, questions=["Which version?"]), clarity(2), clarity(1)]
    )
    body = ROOT / "examples" / "issue.md"
    proc = spice(
        "label-issue",
        "--title",
        "Crash",
        "--body-file",
        str(body),
        *model_args(fake_openai),
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["clarity"]["score"] == 2
    assert [v["score"] for v in out["clarity"]["votes"]] == [2, 2, 1]
    assert all("rationale" in v for v in out["clarity"]["votes"])
    assert out["clarity"]["agreement"] == "majority"
    assert out["clarity"]["controversial"] is True
    assert out["candidate_solution"] == "none"
    assert out["questions"] == ["Which version?"]
    assert out["model"] == "openai/fake"
    assert out["prompt_version"] == latest_version("issue_clarity")  # the newest on disk
    assert out["tokens"]["input"] > 0 and out["tokens"]["output"] > 0
    assert out["cost_usd"] is None  # openai/fake has no price: unknown, not free
    assert out["usage"]["cost_usd"] is None and out["usage"]["cost_known"] is False
    # With --api-base the key may be any string: none was set, a placeholder was sent.
    assert len(fake_openai.requests) == 1


def test_instance_files(
    fake_openai: FakeOpenAI,
    tmp_path: Path,
    swebench_instances: list[dict[str, Any]],
    shared_data: Path,
) -> None:
    seen: list[str] = []

    def responder(request: dict[str, Any]) -> Reply:
        seen.append(request["messages"][-1]["content"])
        return Reply(texts=[clarity(0)] * int(request.get("n") or 1))

    fake_openai.responder = responder
    inst = tmp_path / "instance.json"
    inst.write_text(json.dumps(swebench_instances[0]))
    proc = spice("label-issue", "--instance", str(inst), *model_args(fake_openai))
    assert proc.returncode == 0, proc.stderr
    assert "clarity: 0 (well-specified)" in proc.stdout
    assert "evidence, deterministic signals" in proc.stdout and "- reproduction: " in proc.stdout
    title = swebench_instances[0]["problem_statement"].splitlines()[0]
    assert f"Title: {title}" in seen[-1]

    payload = json.loads((shared_data / "webhooks/issues/opened.payload.json").read_text())
    gh = tmp_path / "issue.json"
    gh.write_text(json.dumps(payload["issue"]))
    proc = spice("label-issue", "--instance", str(gh), *model_args(fake_openai), "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["issue"]["title"] == payload["issue"]["title"]


def test_no_valid_votes_exits_non_zero(fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = lambda r: Reply(texts=["garbage"] * int(r.get("n") or 1))
    proc = spice("label-issue", "--title", "x", *model_args(fake_openai), "--json")
    assert proc.returncode != 0
    assert "no valid votes for clarity" in proc.stderr
    assert proc.stdout == ""


def test_bad_inputs_get_clear_errors(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    proc = spice("label-issue", *model_args(fake_openai))
    assert proc.returncode != 0 and "--title" in proc.stderr
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    proc = spice("label-issue", "--instance", str(broken), *model_args(fake_openai))
    assert proc.returncode != 0 and "not valid JSON" in proc.stderr
    proc = spice(
        "label-issue", "--instance", str(tmp_path / "missing.json"), *model_args(fake_openai)
    )
    assert proc.returncode != 0 and "cannot read" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert fake_openai.requests == []


def test_a_hung_model_server_fails_within_the_deadline_naming_it(fake_openai: FakeOpenAI) -> None:
    """A server that accepts and never answers: one line naming it, in the deadline."""
    fake_openai.responder = lambda r: Reply(texts=["{}"], delay_s=60)
    proc = spice(
        "label-issue", "--title", "x", *model_args(fake_openai), env={"SPICE_DEADLINE_S": "3"}
    )
    assert proc.returncode == 1
    assert fake_openai.api_base in proc.stderr and "(deadline 3 s)" in proc.stderr
    # The deadline cut the wait, not the server's 60 s (the time is the client's own count,
    # whatever the machine's load did to start-up).
    waited = re.search(r"no answer within (\d+) s", proc.stderr)
    assert waited is not None and int(waited.group(1)) < 60, proc.stderr
    assert "Traceback" not in proc.stderr and proc.stderr.strip().count("\n") == 0
    # Later labels of the same run do not wait all over again on the same server.
    assert len(fake_openai.requests) <= 3
    assert Settings().deadline_s <= 90


def test_a_refused_port_is_named(fake_openai: FakeOpenAI) -> None:
    args = ["--model", "openai/fake", "--api-base", "http://127.0.0.1:9/v1"]
    proc = spice("label-issue", "--title", "x", *args)
    assert proc.returncode == 1
    assert "http://127.0.0.1:9/v1" in proc.stderr and "cannot connect" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_text_tells_the_models_candidate_verdict_from_the_signal(
    fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("SPICE_MODEL", "SPICE_API_BASE", "SPICE_VOTES"):
        monkeypatch.delenv(name, raising=False)
    fake_openai.responder = lambda r: Reply(
        texts=[clarity(1, candidate_solution=c) for c in ("partial", "partial", "none")]
    )
    body = str(ROOT / "examples" / "issue.md")
    args = ["label-issue", "--title", "Crash", "--body-file", body, *model_args(fake_openai)]
    text = CliRunner().invoke(cli, args).stdout
    assert (
        "candidate solution, the model's verdict: partial  votes partial · partial · none" in text
    )
    signals = text.split("evidence, deterministic signals from the text (shown to the model):")[1]
    assert "- candidate solution: none" in signals

    typo = CliRunner().invoke(cli, [*args[:5], "--model", "gpt-4o-mnii"])
    assert typo.exit_code == 1
    assert typo.output.strip().startswith("error: unknown model 'gpt-4o-mnii'")
    assert len(typo.output.strip().splitlines()) == 1 and len(typo.output) < 250
