"""A built environment is found from the host's record of the patched tree alone: planning
writes no tree out (a warm validation checked one out only to read its manifests); a tree is
written out only when the environment must be built in it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from spice_engine.runs.session import tree_of
from spice_engine.validate.tree import Tree, checkout
from tests.lang_projects import go_sandbox, lang_job, project_instance

DATA = Path(__file__).parent / "data" / "lang_go"


def test_a_built_environment_is_planned_from_the_record_alone(tmp_path: Path) -> None:
    box = go_sandbox(tmp_path)
    from spice_engine.langs.executor import Executor

    row = project_instance(DATA / "calc", tmp_path / "repo")
    job = lang_job(row, tmp_path / "repo", "go")
    asked: list[bool] = []

    @contextmanager
    def setup(files: bool = True) -> Iterator[Tree]:
        asked.append(files)
        with tree_of(job, job.base, tmp_path / "setup", "setup", files) as tree:
            tree.apply(job.test_patch)
            tree.apply(job.patch)
            assert tree.path.is_dir() == files  # a record writes nothing out
            yield tree

    executor = Executor(tmp_path / "envs", box)
    (tmp_path / "setup").mkdir()
    (tmp_path / "trees").mkdir()
    prepared = []
    for n in (1, 2):
        with checkout(job.git_dir, job.base, tmp_path / "trees") as tree:
            prepared.append(executor.prepare(job.request, tree, tmp_path / f"job{n}", setup))
        if n == 1:  # cold: planned from the record, then built in a tree written out
            assert asked == [False, True] and prepared[0].built
            asked.clear()
    assert asked == [False]  # warm: the record told which environment, and it was there
    assert not prepared[1].built and prepared[1].key == prepared[0].key
    assert prepared[1].plan.inputs == prepared[0].plan.inputs
