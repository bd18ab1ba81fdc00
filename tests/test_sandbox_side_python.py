"""Our modules that run inside the sandbox, in the project's own Python (the plugins, their
support modules, the example driver), are written for Python 3.6 and later: each compiles under
the oldest Python 3 found here. Which modules those are is read from where ruff is told to allow
the older syntax (pyproject's per-file ignores of "UP"), so a new one is checked once listed."""

from __future__ import annotations

import subprocess
import tomllib
from pathlib import Path

import pytest

from spice_engine.langs.python_interpreters import find_pythons

ROOT = Path(__file__).resolve().parents[1]


def _sandbox_side() -> list[str]:
    lint = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["ruff"]["lint"]
    return sorted(path for path, ignored in lint["per-file-ignores"].items() if "UP" in ignored)


def test_the_sandbox_side_modules_are_listed() -> None:
    listed = _sandbox_side()
    assert "spice_engine/strength/examples_plugin.py" in listed
    assert all((ROOT / path).is_file() for path in listed), listed


def test_each_sandbox_side_module_compiles_under_the_oldest_python() -> None:
    pythons = find_pythons()
    if not pythons:
        pytest.skip("no Python 3 interpreter found besides ours (pyenv or python3.X on PATH)")
    oldest = min(pythons, key=lambda v: int(v.split(".")[1]))
    check = "import sys\nfor p in sys.argv[1:]:\n    compile(open(p).read(), p, 'exec')\n"
    files = [str(ROOT / path) for path in _sandbox_side()]
    done = subprocess.run(
        [str(pythons[oldest]), "-c", check, *files], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, f"Python {oldest}: {done.stderr[-2000:]}"
