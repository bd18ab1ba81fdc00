"""What code run at import leaves behind, as evidence (spice_engine.strength.import_states): a
survivor in a module's own table, which no differential run can watch (no test calls it), is
shown when the module imported under it holds something else; the module's state is written
out alike every time (no addresses), and a `src/` layout's module is imported by its own name."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from app.github.check_run_render import check_output
from app.github.strength_render import strength_line
from app.shown_survivors import shown_survivors
from spice_engine.langs.executor import Executor
from spice_engine.langs.python_recipe import Recipe
from spice_engine.runs.session import Job
from spice_engine.strength.config import StrengthConfig
from spice_engine.strength.import_states import module_names
from spice_engine.strength.measure import measure
from spice_engine.strength.state_dump_support import _spice_lines
from spice_engine.validate.bubblewrap import Bubblewrap
from tests.fakes.sample_project import calc_project, instance_of
from tests.validation_support import sandbox_fixture  # noqa: F401

RECIPE = Recipe(python="3.11", extra_packages=["pytest"])
BASE = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"
UNITS = """

UNITS = {"kg": 1000, "g": 1}


def weight(n, unit):
    return n * UNITS[unit]
"""
TEST = "\n\ndef test_weight():\n    from calc import weight\n    assert weight(2, 'kg') == 2000\n"


def test_a_modules_names_put_a_src_layouts_package_first() -> None:
    assert module_names("src/_pytest/fixtures.py") == ["_pytest.fixtures", "src._pytest.fixtures"]
    assert module_names("sphinx/domains/std.py") == ["sphinx.domains.std"]
    assert module_names("pkg/__init__.py") == ["pkg"]
    assert module_names("lib/x.c") == []


def test_a_modules_state_is_written_alike_every_time() -> None:
    class Holder:
        pass

    import types

    module = types.ModuleType("demo")
    module.__dict__.update(
        TABLE={"b": {2, 1}, "a": [Holder()]},
        PATTERN=re.compile(r"\d+", re.I),
        handler=Holder(),
    )
    lines = _spice_lines(module)
    assert "PATTERN = re.compile('\\\\d+', 34)" in lines
    assert "TABLE = {'a': list[Holder()], 'b': set{1, 2}}" in lines
    assert all(" at 0x" not in line for line in lines)


def test_a_survivor_in_a_table_built_at_import_is_shown_when_the_module_holds_otherwise(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, sandbox: Bubblewrap
) -> None:
    repo = tmp_path / "calc"
    calc_project(repo, ("calc",), calc=BASE)
    row = instance_of(
        repo, "octo/calc", {"calc.py": BASE + UNITS}, ("tests/test_calc.py", TEST), "No grams."
    )
    row["FAIL_TO_PASS"] = json.dumps(["tests/test_calc.py::test_weight"])
    row["PASS_TO_PASS"] = json.dumps(["tests/test_calc.py::test_mul"])
    job = Job(instance=row, git_dir=repo / ".git", version="0.1", recipe=RECIPE, timeout_s=120)
    config = StrengthConfig(budget_s=180, ablation=False, confirm_survivors=0)
    envs = Executor(tmp_path_factory.mktemp("envs"), sandbox)
    got = measure(job, envs, tmp_path / "scratch", config, None)
    assert got.status == "measured", got.detail
    grams = [m for m in got.survivors if m.function is None]
    assert grams, [(m.line, m.change) for m in got.survivors]
    for m in grams:  # the grams entry, read by no test: only the module's state tells
        assert m.difference == "tests" and m.difference_in == "stored", m.reason
        assert m.shown and not m.unconfirmed
        assert "`calc` holds `UNITS = {" in m.reason
        held = m.module_state
        assert held is not None and held.module == "calc"
        assert held.fix == "UNITS = {'g': 1, 'kg': 1000}" and held.survivor != held.fix
    top = got.headline
    assert top is not None and top.module_state is not None
    assert f"where `calc` imported holds `{top.module_state.survivor}`" in strength_line(got)
    notes = check_output(got, shown_survivors(got), ()).annotations
    assert any("Imported with it, calc holds" in n.message for n in notes)
    assert not any(m.shown for m in got.survivors if m.verdict != "survived")
