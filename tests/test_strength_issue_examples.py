"""The issue's own example as evidence (issue 49, item 1): a survivor that changes what the
reporter's example prints is shown as a wrong fix on the issue's input, even on a line no
judged test executes; an example that prints the mutant switch itself is not trusted."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from app.github.strength_render import strength_line
from spice_engine.langs.executor import Executor
from spice_engine.langs.python_examples import python_snippets
from spice_engine.langs.python_recipe import Recipe
from spice_engine.runs.session import Job
from spice_engine.strength.config import StrengthConfig
from spice_engine.strength.issue_examples import MOVES, READS_SWITCH, UNFINISHED
from spice_engine.strength.measure import measure
from spice_engine.strength.result import TestStrength
from spice_engine.validate.bubblewrap import Bubblewrap
from tests.fakes.sample_project import calc_project, instance_of
from tests.strength_support import FIX, WEAK
from tests.validation_support import sandbox_fixture  # noqa: F401

RECIPE = Recipe(python="3.11", extra_packages=["pytest"])
ROOT = Path(__file__).resolve().parents[1]
HALF = "\n\ndef half(x):\n    return x // 2\n\n\ndef big(x):\n    return x > 1000\n"
BIG_TEST = "\n\ndef test_big():\n    from calc import big\n    assert big(5) is False\n"
"""big(5) and the inputs next to it cannot tell `>` from `>=`: the differential run finds no
difference; the issue's big(1000) does."""
ISSUE = """add() drops its first argument, and there is no half().

```python
from calc import add, big, half
print(add(2, 3))
```

>>> half(9)
4
>>> big(1000)
True
"""
HOSTILE = """add() drops its first argument.

```python
import os
from calc import add, half
print(os.environ.get("SPICE_MUTANT"), add(2, 3), half(9))
```
"""
NOISY = """add() drops its first argument.

```python
import os
from calc import add, half
print(os.urandom(4).hex(), add(2, 3), half(9))
```
"""


def test_an_issues_examples_are_its_python_blocks_and_console_sessions_in_order() -> None:
    text = (
        "Steps:\n\n>>> from calc import add\n>>> add(2, 3)\n-1\n\n```\nTraceback (most recent"
        " call last):\n  File x\nValueError\n```\n\n```python\nprint(add(1, 2))\n```\n\n"
        "```bash\npip install calc\n```\n\n```python\nx = 1\n```\n"
    )
    # The traceback and the shell are not Python; a block that calls nothing shows nothing.
    assert python_snippets(text) == ["from calc import add\nadd(2, 3)\n", "print(add(1, 2))\n"]
    assert python_snippets("no code at all") == []
    ipython = "```\nIn [5]: f(1)\nOut[5]: 2\n\nIn [6]: def g(x):\n   ...:     return x\n```\n"
    assert python_snippets(ipython) == ["f(1)\ndef g(x):\n    return x\n"]


def test_a_session_that_imports_nothing_runs_in_the_fixed_packages_namespace() -> None:
    session = "```\n>>> exp(9*I*pi/4)\nexp(I*pi/4)\n```\n"
    fixed = ["sympy/functions/elementary/exponential.py", "sympy/core/power.py"]
    preamble = "import sympy\nfrom sympy import *\n"  # `sympy.Matrix(...)` and `Matrix(...)`
    assert python_snippets(session, fixed) == [preamble, "exp(9*I*pi/4)\n"]
    assert python_snippets(session, ["src/_pytest/nodes.py"])[0].startswith("import _pytest\n")
    # One that imports, or a fix across packages (or of a lone module), is run as it is.
    imports = ">>> import sympy\n>>> sympy.exp(1)\n"
    assert python_snippets(imports, fixed) == ["import sympy\nsympy.exp(1)\n"]
    assert python_snippets(session, ["sympy/a.py", "other/b.py"]) == ["exp(9*I*pi/4)\n"]
    assert python_snippets(session, ["calc.py"]) == ["exp(9*I*pi/4)\n"]


def _measured(
    tmp_path: Path, envs: Path, sandbox: Bubblewrap, problem: str, whole: bool = True
) -> TestStrength:
    """The instance measured; not `whole`: without the ablation and the confirmations alone,
    which say nothing of the example (the untrusted examples' cases, kept quick)."""
    repo = tmp_path / "calc"
    calc_project(repo, ("calc",), calc=FIX["calc.py"].replace("a + b", "b"))
    fix = {"calc.py": FIX["calc.py"] + HALF}
    row = instance_of(repo, "octo/calc", fix, ("tests/test_calc.py", WEAK + BIG_TEST), problem)
    row["FAIL_TO_PASS"] = json.dumps(
        ["tests/test_calc.py::test_add", "tests/test_calc.py::test_big"]
    )
    row["PASS_TO_PASS"] = json.dumps(["tests/test_calc.py::test_mul"])
    job = Job(instance=row, git_dir=repo / ".git", version="0.1", recipe=RECIPE, timeout_s=120)
    config = StrengthConfig(
        budget_s=180, ablation=whole, confirm_survivors=StrengthConfig().confirm_survivors * whole
    )
    return measure(job, Executor(envs, sandbox), tmp_path / "scratch", config, None)


@pytest.fixture(name="envs", scope="module")
def envs_fixture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("envs")


def test_a_survivor_the_issues_example_tells_apart_is_shown_on_the_issues_input(
    tmp_path: Path, envs: Path, sandbox: Bubblewrap
) -> None:
    got = _measured(tmp_path, envs, sandbox, ISSUE)
    assert got.status == "measured", got.detail
    by_change = {(m.function, m.change): m for m in got.survivors}
    minus = by_change[("add", "`+` → `-`")]
    assert minus.difference == "issue" and minus.issue_example is not None
    seen = minus.issue_example
    assert (seen.statement, seen.fix, seen.survivor) == ("print(add(2, 3))", "5", "-1")
    # No judged test calls half(): its survivors are shown only because the example differs.
    halves = [m for m in got.survivors if m.function == "half"]
    assert halves and all(m.reached == "not_executed" for m in halves)
    told = [m for m in halves if m.difference == "issue"]
    assert told and all(m.shown and not m.untested_line for m in told)
    # One a differential run saw no difference in is a survivor again: big(1000) tells.
    bound = by_change[("big", "`> 1000` → `>= 1000`")]
    assert bound.difference == "issue" and bound.shown and bound.verdict == "survived"
    assert got.headline is not None and got.headline.difference == "issue"
    gone = by_change[("half", "`return x // 2` → `return None`")].issue_example
    assert gone is not None and (gone.statement, gone.fix, gone.survivor) == (
        "half(9)",
        "4",
        "None",
    )
    top = got.headline.issue_example
    assert top is not None
    said = f"the issue's `{top.statement}` prints `{top.survivor}` instead of `{top.fix}`"
    assert said in strength_line(got)
    assert "examples" in got.durations


FORGING = """add() drops its first argument.

```python
import json, os, re
import calc
ids = set(re.findall(r"_spice_mutant\\((\\d+)\\)", open(calc.__file__).read()))
for n in ids:
    forged = json.dumps({"state": n, "status": "ok", "digest": "0" * 64, "statements": []})
    for fd in range(3, 256):
        try:
            os.write(fd, (forged + "\\n").encode())
        except OSError:
            pass
print(calc.mul(2, 3))
```
"""
"""Reads the mutants' ids from the schema in the tree, as a hostile example could, and writes a
forged result for each to every descriptor it holds: its own output is garbled, and nothing is
concluded (that a child holds no channel is `test_a_child_of_the_driver_holds_no_channel`)."""


@pytest.mark.parametrize(
    "problem,why",
    [(HOSTILE, READS_SWITCH), (NOISY, MOVES), (FORGING, UNFINISHED)],
    ids=["switch", "noise", "forging"],
)
def test_an_example_that_prints_the_switch_or_noise_is_not_trusted(
    tmp_path: Path, envs: Path, sandbox: Bubblewrap, problem: str, why: str
) -> None:
    got = _measured(tmp_path, envs, sandbox, problem, whole=False)
    assert got.status == "measured", got.detail
    assert why in got.skipped
    assert not any(m.difference == "issue" for m in got.survivors)
    minus = next(m for m in got.survivors if m.change == "`+` → `-`")
    assert minus.difference == "nearby"  # the differential run's own evidence stands


def test_a_child_of_the_driver_holds_no_channel(monkeypatch: pytest.MonkeyPatch) -> None:
    """The example runs in a forked child of our driver: what it writes to the run's channel
    descriptor (the number is no secret) goes nowhere; the driver's own messages still go."""
    read_end, write_end = os.pipe()
    monkeypatch.setenv("SPICE_CHANNEL_FD", str(write_end))
    support = _fresh("plugin_support.py", "spice_engine/validate", "_spice_support_channel")
    monkeypatch.setenv("SPICE_SUPPORT_MODULE", support.__name__)
    driver = _fresh("examples_plugin.py", "spice_engine/strength", "_spice_examples_channel")
    channel = support._OUT.fileno()
    forging = f"import os\nos.write({channel}, b'forged\\n')\nprint(1)\n"
    status, printed = driver._in_child([forging], None, 30.0)
    support.send({"state": "real"})
    support._OUT.close()
    with os.fdopen(read_end, "rb") as pipe:
        sent = pipe.read()
    assert status == "ok" and printed is not None and "raised OSError" in printed
    assert b"forged" not in sent and b'"real"' in sent


def _fresh(name: str, folder: str, module: str) -> Any:
    """A new copy of one of our sandbox-side modules, imported as `module`."""
    spec = importlib.util.spec_from_file_location(module, ROOT / folder / name)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[module] = loaded
    spec.loader.exec_module(loaded)
    return loaded
