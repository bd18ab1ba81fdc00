"""The project's editable install: captured when an environment is built, replayed into each
later job's venv for its own worktree, and installed for real when the packaging changed."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from spice_engine.validate import gitwork
from spice_engine.validate.local import EDITABLE, LocalExecutor
from spice_engine.validate.recipe import Recipe
from tests.validation_support import calc_repo_fixture, git  # noqa: F401

RECIPE = Recipe(python="3.11", test_cmd="python -m pytest -rA")


def which_calc(python: Path, tree: Path) -> str:
    done = subprocess.run(
        [
            str(python),
            "-c",
            "import calc, importlib.metadata as m; print(calc.__file__, m.version('calc'))",
        ],
        cwd="/",
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def test_second_job_gets_the_install_replayed_for_its_own_tree(
    calc_repo: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    repo, row = calc_repo
    executor = LocalExecutor(tmp_path / "envs")
    jobs = []
    for n in range(2):
        job = tmp_path / f"job{n}"
        job.mkdir()
        jobs.append(job)
    with (
        gitwork.worktree(repo, row["base_commit"], jobs[0]) as first,
        gitwork.worktree(repo, row["base_commit"], jobs[1]) as second,
    ):
        built = executor.prepare("octo/calc", "0.1", RECIPE, first, jobs[0])
        shared = tmp_path / "envs" / built.key
        captured = json.loads((shared / EDITABLE).read_text())
        assert any(name.endswith(".dist-info/METADATA") for name in captured["site_files"])
        # The shared environment keeps dependencies only, not the first job's project.
        assert not list(next((shared / "lib").glob("python*/site-packages")).glob("calc*"))
        reused = executor.prepare("octo/calc", "0.1", RECIPE, second, jobs[1])
        assert built.built and not reused.built
        assert which_calc(reused.python, second) == f"{second / 'calc.py'} 0.1.0"
        assert which_calc(built.python, first) == f"{first / 'calc.py'} 0.1.0"


def test_changed_packaging_installs_for_real(
    calc_repo: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    repo, row = calc_repo
    executor = LocalExecutor(tmp_path / "envs")
    job0, job1 = tmp_path / "job0", tmp_path / "job1"
    job0.mkdir()
    job1.mkdir()
    with gitwork.worktree(repo, row["base_commit"], job0) as first:
        executor.prepare("octo/calc", "0.1", RECIPE, first, job0)
    pyproject = repo / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('version = "0.1.0"', 'version = "0.1.7"'))
    git(repo, "commit", "-qam", "release 0.1.7")
    head = git(repo, "rev-parse", "HEAD").strip()
    with gitwork.worktree(repo, head, job1) as second:
        prepared = executor.prepare("octo/calc", "0.1", RECIPE, second, job1)
        # A copy of the old install would claim 0.1.0.
        assert which_calc(prepared.python, second) == f"{second / 'calc.py'} 0.1.7"
