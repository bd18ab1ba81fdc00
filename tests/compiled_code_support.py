"""A session holding an instance's fix, for checks of a language's compiled code
(spice_engine.strength.same_code) without a whole measurement."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from spice_engine.langs.capabilities import compiled_code
from spice_engine.strength.choose import Chosen
from spice_engine.strength.runs import Runner
from spice_engine.strength.same_code import SameCode
from spice_engine.strength.sites import Site
from tests.lang_projects import lang_job


@contextmanager
def fixed_session(
    tmp_path: Path, row: dict[str, Any], language: str, built: bool = False
) -> Iterator[SameCode]:
    """The check over a session of `row` whose tree holds the test patch and the fix, its
    environment ready (skipped, saying why, where the sandbox cannot run); `built`: after one
    run of its tests (a C build's folder is the tests')."""
    from spice_engine.langs.executor import Executor
    from spice_engine.runs.session import open_session
    from spice_engine.validate.bubblewrap import Bubblewrap

    box = Bubblewrap()
    if why := box.problem(tmp_path):
        pytest.skip(f"bubblewrap cannot run here: {why}")
    job = lang_job(row, tmp_path / "repo", language)
    with open_session(job, Executor(tmp_path / "envs", box), tmp_path / "scratch") as session:
        session.tree.apply(job.test_patch)
        session.tree.apply(job.patch)
        language_code = compiled_code(session.language)
        assert language_code is not None
        runner = Runner(session, time.monotonic() + 900, 600)
        if built:
            runner.outcomes(runner.targets, whole_files=True)
        yield SameCode(runner, language_code)


def validated_and_measured(
    tmp_path: Path, row: dict[str, Any], language: str, executor: Any, budget_s: float = 400
) -> Any:
    """`row` validated in the sandbox (asserted valid), its lists then set from what the
    validation found, and its test strength measured (asserted measured)."""
    from spice_engine.runs.validator import validate
    from spice_engine.strength.config import StrengthConfig
    from spice_engine.strength.measure import measure

    done = validate(lang_job(row, tmp_path / "repo", language), executor, tmp_path / "scratch")
    assert done.validation.status == "valid", done.validation.detail
    row["FAIL_TO_PASS"], row["PASS_TO_PASS"] = json.dumps(done.fail_to_pass), "[]"
    job = lang_job(row, tmp_path / "repo", language)
    got = measure(job, executor, tmp_path / "s", StrengthConfig(budget_s=budget_s))
    assert got.status == "measured", got.detail
    return got


def c_project_measured(
    tmp_path: Path,
    base: dict[str, str],
    fix: dict[str, str],
    test: dict[str, str],
    issue: str,
) -> Any:
    """A C project written here (`small_project`), `issue` its problem statement, validated
    and measured in the real sandbox (skipped without cmake, gcc or the sandbox)."""
    from spice_engine.langs.executor import Executor
    from spice_engine.validate.bubblewrap import Bubblewrap

    if shutil.which("cmake") is None or shutil.which("gcc") is None:
        pytest.skip("no cmake or gcc on this machine")
    box = Bubblewrap()
    if why := box.problem(tmp_path):
        pytest.skip(f"bubblewrap cannot run here: {why}")
    row = small_project(tmp_path, base, fix, test)
    row["problem_statement"] = issue
    return validated_and_measured(tmp_path, row, "c", Executor(tmp_path / "envs", box))


def mutant(check: SameCode, path: str, old: str, new: str) -> Chosen:
    """The fixed file `path` with its one `old` written `new`."""
    fixed = check.runner.session.tree.source(path)
    assert fixed.count(old) == 1, old
    line = fixed[: fixed.index(old)].count("\n") + 1
    site = Site(1, line, "operator", f"`{old}` → `{new}`", None, switchable=False)
    return Chosen(1, path, site, fixed.replace(old, new))


def timed(check: SameCode, c: Chosen) -> tuple[bool, float]:
    """Whether `c` compiles to the fix's code, and the seconds its check took (the fix's own
    compilation included the first time); a different code is a digest the mutant's unit
    compiled to, never a failed command."""
    t0 = time.monotonic()
    same = check.same(c)
    seconds = round(time.monotonic() - t0, 2)
    if not same:
        assert check.fixed[c.path] is not None, check.failed
        assert check.mutant_digest(c) is not None, check.failed
    return same, seconds


def small_project(
    tmp_path: Path, base: dict[str, str], fix: dict[str, str], test: dict[str, str]
) -> dict[str, Any]:
    """An instance of a project written here: `base` committed, `test` and `fix` (files laid
    over it) its test patch and gold patch."""
    from tests.lang_projects import project_instance

    data = tmp_path / "data"
    for part, files in (("base", base), ("fix", fix), ("test", test)):
        for name, text in files.items():
            (data / part / name).parent.mkdir(parents=True, exist_ok=True)
            (data / part / name).write_text(text)
    return project_instance(data, tmp_path / "repo")
