"""A tiny project whose fix is tested weakly or strongly: instances to measure."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from spice_engine.llm.config import ModelConfig
from spice_engine.llm.litellm_chat import LiteLLMChat
from spice_engine.strength.catching import TestWriter
from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.fakes.sample_project import calc_project, instance_of

STRONG = "\n\ndef test_add():\n    from calc import add\n    assert add(2, 3) == 5\n"
WEAK = "\n\ndef test_add():\n    from calc import add\n    assert add(2, 0) == 2\n"
FIX = {"calc.py": "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"}
UNTESTED = {"notes.py": "SEP = ', '\n"}
"""A part of the weak fix no test reads."""


def calc_instance(tmp_path: Path, test: str, fix: dict[str, str]) -> tuple[Path, dict[str, str]]:
    """The project (`add` returns `b`) in `tmp_path/calc` and its instance: `fix` as the gold
    patch, `test` appended to its tests as the test patch, with the lists."""
    repo = tmp_path / "calc"
    calc_project(
        repo, ("calc", "notes"), calc=FIX["calc.py"].replace("a + b", "b"), notes="SEP = ','\n"
    )
    row = instance_of(repo, "octo/calc", fix, ("tests/test_calc.py", test), "add subtracts")
    row["FAIL_TO_PASS"] = json.dumps(["tests/test_calc.py::test_add"])
    row["PASS_TO_PASS"] = json.dumps(["tests/test_calc.py::test_mul"])
    return repo, row


CLAMP_BUG = "def clamp(x, lo, hi):\n    return min(x, hi)\n"
CLAMP_FIX = {
    "clamp.py": 'def clamp(x, lo, hi):\n    """Clamp x into [lo, hi]."""\n    if x < lo:\n'
    "        return lo\n    if x > hi:\n        return hi\n    return x\n"
}
CLAMP_STRONG = (
    "\n\ndef test_clamp():\n    from clamp import clamp\n    assert clamp(-5, 0, 10) == 0\n"
    "    assert clamp(15, 0, 10) == 10\n    assert clamp(5, 0, 10) == 5\n"
    "    assert clamp(0, 0, 10) == 0\n    assert clamp(10, 0, 10) == 10\n"
)
CLAMP_WEAK = (
    "\n\ndef test_clamp():\n    from clamp import clamp\n    assert clamp(-5, 0, 10) == 0\n"
    "    assert clamp(15, 0, 10) is not None\n"
)
"""Checks the lower bound; runs the upper one but checks nothing there; never reaches the
last line."""


def clamp_instance(tmp_path: Path, test: str) -> tuple[Path, dict[str, str]]:
    """A project whose `clamp` ignores its lower bound, and the instance that fixes it."""
    repo = tmp_path / "clamp"
    calc_project(
        repo, ("calc", "clamp"), calc="def mul(a, b):\n    return a * b\n", clamp=CLAMP_BUG
    )
    row = instance_of(
        repo, "octo/clamp", CLAMP_FIX, ("tests/test_calc.py", test), "clamp() ignores lo"
    )
    row["FAIL_TO_PASS"] = json.dumps(["tests/test_calc.py::test_clamp"])
    row["PASS_TO_PASS"] = json.dumps(["tests/test_calc.py::test_mul"])
    return repo, row


@contextmanager
def test_writer(*tests: str) -> Iterator[tuple[TestWriter, FakeOpenAI]]:
    """A writer of catching tests whose model, the scripted fake server, answers its k votes
    with `tests` in order (one written test each); and the server, to read what was asked."""

    def reply(request: dict[str, Any]) -> Reply:
        texts = [json.dumps({"test_code": t, "explanation": "2 + 3 is 5"}) for t in tests]
        return Reply(texts=texts[: int(request.get("n") or 1)])

    with FakeOpenAI(reply) as server:
        config = ModelConfig(
            model="openai/fake",
            api_base=server.api_base,
            api_key="anything",
            output_mode="json_object",
            backoff_s=0.0,
        )
        yield TestWriter(LiteLLMChat(config), votes=len(tests)), server


test_writer.__test__ = False  # type: ignore[attr-defined]
