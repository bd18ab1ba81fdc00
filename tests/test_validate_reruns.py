"""The flakiness reruns: a fail-to-pass test must fail again without the fix and pass again
with it. Inside the two runs' own pytest sessions when the plugin loads; otherwise two more
runs at once, the one without the fix in a second worktree at base + test patch."""

from __future__ import annotations

from pathlib import Path

from spice_engine.langs.executor import Executor
from spice_engine.langs.prepared import Prepared
from spice_engine.runs.validator import Validated
from spice_engine.validate.bubblewrap import Bubblewrap
from spice_engine.validate.executor import RunResult
from spice_engine.validate.plugin_run import Plugin
from spice_engine.validate.tree import Tree
from tests.validation_support import (  # noqa: F401
    calc_repo_fixture,
    calc_test_patch,
    sandbox_fixture,
    validate_calc,
)

FLAKY_TESTS = (
    "\n\ndef test_add():\n    from calc import add\n    assert add(2, 3) == 5\n"
    "\n\ndef test_add_once():\n    from pathlib import Path\n    from calc import add\n"
    "    counter = Path.home() / 'runs'  # the job's own scratch, across its runs\n"
    "    if add(2, 3) == 5:\n"
    "        runs = int(counter.read_text()) if counter.exists() else 0\n"
    "        counter.write_text(str(runs + 1))\n"
    "        assert runs == 0\n"
    "    assert add(2, 3) == 5\n"
)
"""test_add (stable) and test_add_once (passes with the fix only on its first run)."""


class NoPluginExecutor(Executor):
    """A real local executor whose test runs cannot load the rerun plugin (as with a test
    command that is not pytest's own, or a pytest too old for it)."""

    trees: list[Path]
    """The tree of each run, in order."""

    def run(
        self,
        prepared: Prepared,
        tree: Tree,
        args: list[str],
        timeout_s: float,
        plugin: Plugin | None = None,
    ) -> RunResult:
        self.trees = [*getattr(self, "trees", []), tree.path]
        return super().run(prepared, tree, args, timeout_s)


def _validate(
    repo: Path, row: dict[str, str], tmp_path: Path, executor: Executor, **job: float
) -> tuple[Validated, Path]:
    patch = calc_test_patch(repo, row["base_commit"], FLAKY_TESTS)
    scratch = tmp_path / "scratch"
    return validate_calc(repo, row, patch, executor, scratch, **job), scratch


def _assert_lists_and_nothing_left(done: Validated, repo: Path, scratch: Path) -> None:
    assert done.validation.status == "valid", done.validation.detail
    # Were the before-rerun made with the fix in place, test_add would pass twice: dropped.
    assert done.fail_to_pass == ["tests/test_calc.py::test_add"]
    assert done.validation.flaky == ["tests/test_calc.py::test_add_once"]
    assert done.pass_to_pass == ["tests/test_calc.py::test_mul"]
    assert list(scratch.iterdir()) == []  # trees, venvs and plugin folders are gone
    # The host never made a worktree of the repository (nor wrote anything into it).
    assert not (repo / ".git" / "worktrees").exists()


def test_reruns_happen_inside_the_two_runs_and_drop_the_flaky_test(
    calc_repo: tuple[Path, dict[str, str]], tmp_path: Path, sandbox: Bubblewrap
) -> None:
    repo, row = calc_repo
    done, scratch = _validate(repo, row, tmp_path, Executor(tmp_path / "envs", sandbox))
    _assert_lists_and_nothing_left(done, repo, scratch)
    assert done.validation.reruns == "in_session"
    durations = done.validation.durations
    # test_add_once flipped in the session: two more runs confirmed it (it flips there too).
    assert {"rerun_after", "rerun_before"} <= set(durations)
    assert durations["reruns"] >= 0.0


def test_a_test_failing_only_on_its_in_session_rerun_is_confirmed_in_new_processes(
    calc_repo: tuple[Path, dict[str, str]], tmp_path: Path, sandbox: Bubblewrap
) -> None:
    """A test that leaves state behind in its process (a module-level list here; a shared app
    fixture or build folder in real suites) fails when run twice in one session: not flaky."""
    repo, row = calc_repo
    patch = calc_test_patch(
        repo,
        row["base_commit"],
        "\n\nSEEN = []\n\n\ndef test_add_fresh():\n    from calc import add\n"
        "    SEEN.append(1)\n    assert len(SEEN) == 1 and add(2, 3) == 5\n",
    )
    executor = Executor(tmp_path / "envs", sandbox)
    done = validate_calc(repo, row, patch, executor, tmp_path / "scratch")
    assert done.validation.status == "valid", done.validation.detail
    assert done.fail_to_pass == ["tests/test_calc.py::test_add_fresh"]
    assert done.validation.flaky == []
    assert done.validation.reruns == "in_session"
    assert {"rerun_after", "rerun_before"} <= set(done.validation.durations)


def test_without_the_plugin_two_more_runs_go_at_once_in_two_worktrees(
    calc_repo: tuple[Path, dict[str, str]], tmp_path: Path, sandbox: Bubblewrap
) -> None:
    repo, row = calc_repo
    executor = NoPluginExecutor(tmp_path / "envs", sandbox)
    done, scratch = _validate(repo, row, tmp_path, executor)
    _assert_lists_and_nothing_left(done, repo, scratch)
    assert done.validation.reruns == "new_processes"
    assert {"rerun_after", "rerun_before"} <= set(done.validation.durations)
    # Before, after, then the two reruns: the before-rerun in a second tree of its own (so it
    # can go on while the after-rerun runs in the first, which holds the fix).
    trees = executor.trees
    assert len(trees) == 4 and trees[0] == trees[1]
    assert sorted(t == trees[0] for t in trees[2:]) == [False, True]


CRASHING_RERUN = (
    "\n\ndef test_add_then_crash():\n    import os\n    from pathlib import Path\n"
    "    from calc import add\n"
    "    counter = Path.home() / 'crash'  # the job's own scratch, across its runs\n"
    "    if add(2, 3) == 5:\n"
    "        if counter.exists():\n            os._exit(3)  # the rerun's process dies\n"
    "        counter.write_text('1')\n"
    "    assert add(2, 3) == 5\n"
)


def test_a_rerun_that_never_ran_the_test_is_said_so(
    calc_repo: tuple[Path, dict[str, str]], tmp_path: Path, sandbox: Bubblewrap
) -> None:
    repo, row = calc_repo
    patch = calc_test_patch(repo, row["base_commit"], CRASHING_RERUN)
    executor = NoPluginExecutor(tmp_path / "envs", sandbox)
    done = validate_calc(repo, row, patch, executor, tmp_path / "scratch")
    assert done.validation.status == "valid", done.validation.detail
    assert done.fail_to_pass == ["tests/test_calc.py::test_add_then_crash"]
    assert done.validation.flaky == []
    assert done.validation.not_rerun == ["tests/test_calc.py::test_add_then_crash"]


def test_past_its_budget_the_plugin_stops_and_the_rest_rerun_in_processes(
    calc_repo: tuple[Path, dict[str, str]], tmp_path: Path, sandbox: Bubblewrap
) -> None:
    repo, row = calc_repo
    executor = Executor(tmp_path / "envs", sandbox)
    done, scratch = _validate(repo, row, tmp_path, executor, rerun_share=0.0)
    _assert_lists_and_nothing_left(done, repo, scratch)
    assert done.validation.reruns == "new_processes"
    assert {"rerun_after", "rerun_before"} <= set(done.validation.durations)


SPACED = (
    "\n\nimport pytest\n\n\n@pytest.mark.parametrize('s', ['a b'])\n"
    "def test_spaced(s):\n    from pathlib import Path\n    from calc import add\n"
    "    counter = Path.home() / 'spaced'  # the job's own scratch, across its runs\n"
    "    if add(2, 3) == 5:\n"
    "        runs = int(counter.read_text()) if counter.exists() else 0\n"
    "        counter.write_text(str(runs + 1))\n"
    "        assert runs == 0\n"
    "    assert add(2, 3) == 5\n"
)
"""A flaky test whose id has a space: SWE-bench's lists cut it (`test_spaced[a`), and no
command line can name it."""


def test_a_flaky_test_whose_id_has_a_space_is_rerun_and_dropped(
    calc_repo: tuple[Path, dict[str, str]], tmp_path: Path, sandbox: Bubblewrap
) -> None:
    repo, row = calc_repo
    patch = calc_test_patch(repo, row["base_commit"], SPACED)
    executor = Executor(tmp_path / "envs", sandbox)
    done = validate_calc(repo, row, patch, executor, tmp_path / "scratch")
    assert done.validation.status == "no_fail_to_pass", done.validation.detail
    # Rerun in new processes, chosen by id inside pytest: it flipped there, so it is flaky.
    assert done.validation.flaky == ["tests/test_calc.py::test_spaced[a"]
    assert done.validation.reruns == "new_processes"
