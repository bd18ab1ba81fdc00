"""`spice --help` and `spice <command> --help` load no heavy dependency; the command list's
one-line help is each command's own."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli.main import COMMANDS

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("sqlalchemy", "github", "sklearn", "litellm", "matplotlib", "scipy", "aider", "huey")
PROBE = """
import sys
from app.cli.main import cli
try:
    cli(sys.argv[1:])
except SystemExit:
    pass
heavy = sorted({m.split('.')[0] for m in sys.modules} & set(%r))
print("HEAVY=" + ",".join(heavy), file=sys.stderr)
"""


def loaded_heavy(*args: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE % (HEAVY,), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    line = done.stderr.strip().splitlines()[-1]
    assert line.startswith("HEAVY="), done.stderr
    return [name for name in line.removeprefix("HEAVY=").split(",") if name]


def test_the_command_list_loads_nothing_heavy() -> None:
    assert loaded_heavy("--help") == []


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_commands_help_loads_nothing_heavy(command: str) -> None:
    assert loaded_heavy(command, "--help") == [], command


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_listed_help_is_the_commands_own_first_docstring_line(command: str) -> None:
    lazy = COMMANDS[command]
    real = lazy.load(command)
    function = real.callback
    assert function is not None
    doc = inspect.getdoc(function) or ""
    assert lazy.summary == doc.split("\n\n")[0].replace("\n", " "), command


BAD_INPUT = {
    "eval": ("eval", "--gold", "{missing}.csv", "--predictions", "{missing}.jsonl"),
    "label-instance": ("label-instance", "{missing}.jsonl"),
    "harvest": ("harvest", "https://example.org/not-a-repo"),
    "test-strength": ("test-strength", "{missing}.jsonl", "--out", "{missing}.out.jsonl"),
}


@pytest.mark.parametrize("command", sorted(BAD_INPUT))
def test_a_wrong_input_is_said_before_anything_heavy_loads(command: str, tmp_path: Path) -> None:
    """scikit-learn, matplotlib, litellm and libcst take seconds to import (tens on a cold
    disk): a path that does not exist, or a repository that is no owner/name, is said first."""
    missing = str(tmp_path / "absent")
    args = [a.format(missing=missing) for a in BAD_INPUT[command]]
    done = subprocess.run(
        [sys.executable, "-c", PROBE % ((*HEAVY, "libcst"),), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    lines = done.stderr.strip().splitlines()
    assert lines[-1] == "HEAVY=", done.stderr
    said = "\n".join(lines[:-1])
    assert said.startswith("error: ") and ("absent" in said or "owner/name" in said), said
