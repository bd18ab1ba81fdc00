"""The project's editable install: captured when an environment is built, replayed into each
later job's venv for its own worktree, and installed for real when the packaging changed."""

from __future__ import annotations

import json
from pathlib import Path

from spice_engine.langs.executor import Executor
from spice_engine.langs.prepared import EnvRequest, Prepared
from spice_engine.langs.python_env import EDITABLE
from spice_engine.langs.python_recipe import Recipe
from spice_engine.validate.bubblewrap import Bubblewrap
from spice_engine.validate.tree import Tree, checkout
from tests.validation_support import calc_repo_fixture, git, sandbox_fixture  # noqa: F401

RECIPE = Recipe(python="3.11", test_cmd="python -m pytest -rA", extra_packages=["pytest"])


def python_env(repo: str, version: str) -> EnvRequest:
    return EnvRequest(repo=repo, language="python", version=version, recipe=RECIPE)


def which_calc(executor: Executor, prepared: Prepared, tree: Tree, name: str) -> str:
    """Which calc the job's tests import, as the sandbox shows it: path, the marker file beside
    it (which worktree it is) and the installed version."""
    tree.put("marker", name)
    tree.put(
        "test_which.py",
        "def test_which():\n"
        "    import calc, importlib.metadata as m, pathlib\n"
        "    here = pathlib.Path(calc.__file__)\n"
        "    print('CALC', here, (here.parent / 'marker').read_text(), m.version('calc'))\n",
    )
    done = executor.run(prepared, tree, ["-s", "test_which.py"], 120)
    return next(line for line in done.log.splitlines() if "CALC " in line).split("CALC ", 1)[1]


def test_second_job_gets_the_install_replayed_for_its_own_tree(
    calc_repo: tuple[Path, dict[str, str]], tmp_path: Path, sandbox: Bubblewrap
) -> None:
    repo, row = calc_repo
    executor = Executor(tmp_path / "envs", sandbox)
    jobs = []
    for n in range(2):
        job = tmp_path / f"job{n}"
        job.mkdir()
        jobs.append(job)
    with (
        checkout(repo, row["base_commit"], jobs[0]) as first,
        checkout(repo, row["base_commit"], jobs[1]) as second,
    ):
        built = executor.prepare(python_env("octo/calc", "0.1"), first, jobs[0] / "space")
        shared = tmp_path / "envs" / built.key
        captured = json.loads((shared / EDITABLE).read_text())
        assert any(name.endswith(".dist-info/METADATA") for name in captured["site_files"])
        # The shared environment keeps dependencies only, not the first job's project.
        assert not list(next((shared / "lib").glob("python*/site-packages")).glob("calc*"))
        reused = executor.prepare(python_env("octo/calc", "0.1"), second, jobs[1] / "space")
        assert built.built and not reused.built
        # Each job's tests import its own worktree, always seen at /testbed.
        assert which_calc(executor, reused, second, "job1") == "/testbed/calc.py job1 0.1.0"
        assert which_calc(executor, built, first, "job0") == "/testbed/calc.py job0 0.1.0"


def test_changed_packaging_installs_for_real(
    calc_repo: tuple[Path, dict[str, str]], tmp_path: Path, sandbox: Bubblewrap
) -> None:
    repo, row = calc_repo
    executor = Executor(tmp_path / "envs", sandbox)
    job0, job1 = tmp_path / "job0", tmp_path / "job1"
    job0.mkdir()
    job1.mkdir()
    with checkout(repo, row["base_commit"], job0) as first:
        executor.prepare(python_env("octo/calc", "0.1"), first, job0 / "space")
    pyproject = repo / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('version = "0.1.0"', 'version = "0.1.7"'))
    git(repo, "commit", "-qam", "release 0.1.7")
    head = git(repo, "rev-parse", "HEAD").strip()
    with checkout(repo, head, job1) as second:
        prepared = executor.prepare(python_env("octo/calc", "0.1"), second, job1 / "space")
        # A copy of the old install would claim 0.1.0.
        assert which_calc(executor, prepared, second, "job1") == "/testbed/calc.py job1 0.1.7"


def test_python_dash_m_in_a_subprocess_runs_the_worktree_package(
    tmp_path: Path, sandbox: Bubblewrap
) -> None:
    """A package whose directory is mapped (`package-dir`), started as `python -m` from a test's
    subprocess in another folder: the editable install must serve new interpreters too, in the
    job that installed it and in a job that got it replayed."""
    repo = tmp_path / "mapped"
    (repo / "lib" / "calc").mkdir(parents=True)
    (repo / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=64"]\nbuild-backend = "setuptools.build_meta"\n'
        '[project]\nname = "calc"\nversion = "0.2.0"\n'
        '[tool.setuptools]\npackage-dir = {"calc" = "lib/calc"}\npackages = ["calc"]\n'
    )
    (repo / "lib" / "calc" / "__init__.py").write_text("")
    (repo / "lib" / "calc" / "__main__.py").write_text("print('calc main from', __file__)\n")
    (repo / "test_main.py").write_text(
        "import subprocess, sys\n\n\ndef test_main(tmp_path):\n"
        "    done = subprocess.run([sys.executable, '-m', 'calc'], cwd=tmp_path,\n"
        "                          capture_output=True, text=True)\n"
        "    print('MAIN', done.stdout.strip() or done.stderr.strip().splitlines()[-1])\n"
    )
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    base = git(repo, "rev-parse", "HEAD").strip()
    executor = Executor(tmp_path / "envs", sandbox)
    for n in range(2):
        job = tmp_path / f"job{n}"
        job.mkdir()
        with checkout(repo, base, job) as tree:
            prepared = executor.prepare(python_env("octo/mapped", "0.2"), tree, job / "space")
            assert prepared.built == (n == 0)
            done = executor.run(prepared, tree, ["-s", "test_main.py"], 120)
            line = next(x for x in done.log.splitlines() if "MAIN " in x)
            assert line.endswith("MAIN calc main from /testbed/lib/calc/__main__.py"), line


def test_the_tree_is_on_sys_path_for_tools_that_search_it(
    tmp_path: Path, sandbox: Bubblewrap
) -> None:
    """pylint loads its own checkers by finding their files on `sys.path` (astroid), from a
    subprocess in another folder: an import hook alone serves `import`, not such a search."""
    repo = tmp_path / "flat"
    (repo / "calc").mkdir(parents=True)
    (repo / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=64"]\nbuild-backend = "setuptools.build_meta"\n'
        '[project]\nname = "calc"\nversion = "0.3.0"\n[tool.setuptools]\npackages = ["calc"]\n'
    )
    (repo / "calc" / "__init__.py").write_text("")
    (repo / "test_search.py").write_text(
        "import subprocess, sys\n\nSEARCH = ('import os, sys; print([p for p in sys.path'\n"
        '          \' if os.path.isfile(os.path.join(p, "calc", "__init__.py"))])\')\n\n\n'
        "def test_search(tmp_path):\n"
        "    done = subprocess.run([sys.executable, '-c', SEARCH], cwd=tmp_path,\n"
        "                          capture_output=True, text=True)\n"
        "    print('FOUND', done.stdout.strip() or done.stderr.strip())\n"
    )
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    base = git(repo, "rev-parse", "HEAD").strip()
    executor = Executor(tmp_path / "envs", sandbox)
    for n in range(2):  # installed, then replayed
        job = tmp_path / f"job{n}"
        job.mkdir()
        with checkout(repo, base, job) as tree:
            prepared = executor.prepare(python_env("octo/flat", "0.3"), tree, job / "space")
            done = executor.run(prepared, tree, ["-s", "test_search.py"], 120)
            line = next(x for x in done.log.splitlines() if "FOUND " in x)
            assert line.endswith("FOUND ['/testbed']"), line
