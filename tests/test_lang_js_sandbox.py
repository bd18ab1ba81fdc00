"""JavaScript and TypeScript projects validated end to end in the real sandbox: from the npm
registry, with `node --test` and none, and an npm workspace."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from spice_engine.runs.session import Status
from spice_engine.runs.validator import validate
from spice_engine.validate.bubblewrap import Bubblewrap
from tests.lang_projects import lang_job, node_sandbox, project_instance, registry_problem

DATA = Path(__file__).parent / "data"


JS_ADD = "test/add.test.js::add adds"
TS_CLAMP = "test/clamp.test.ts::clamp"


@pytest.mark.parametrize(
    ("project", "fail_to_pass", "pass_to_pass"),
    [
        ("lang_js/calc", [f"{JS_ADD} a negative number", f"{JS_ADD} two numbers"], []),
        (
            "lang_ts/calc",
            ["test/clamp.test.ts", f"{TS_CLAMP} caps at hi"],
            [f"{TS_CLAMP} keeps what is inside"],
        ),
    ],
)
def test_a_project_validates_end_to_end_in_the_sandbox(
    tmp_path: Path, project: str, fail_to_pass: list[str], pass_to_pass: list[str]
) -> None:
    box = Bubblewrap()
    if shutil.which("node") is None:
        pytest.skip("no Node.js on this machine")
    if why := box.problem(tmp_path) or registry_problem("registry.npmjs.org"):
        pytest.skip(f"cannot run here: {why}")
    from spice_engine.langs.executor import Executor

    row = project_instance(DATA / project, tmp_path / "repo")
    job = lang_job(row, tmp_path / "repo", "javascript")
    executor = Executor(tmp_path / "envs", box)
    done = validate(job, executor, tmp_path / "scratch")
    assert done.validation.status == Status.VALID, done.validation.detail
    # What a test prints is never a result; the untouched test file is not run.
    assert done.fail_to_pass == fail_to_pass
    assert done.pass_to_pass == pass_to_pass


def test_a_node_test_project_validates_end_to_end_without_a_registry(tmp_path: Path) -> None:
    box = node_sandbox(tmp_path)
    from spice_engine.langs.executor import Executor

    row = project_instance(DATA / "lang_js" / "nodetest", tmp_path / "repo")
    job = lang_job(row, tmp_path / "repo", "javascript")
    executor = Executor(tmp_path / "envs", box)
    done = validate(job, executor, tmp_path / "scratch")
    assert done.validation.status == Status.VALID, done.validation.detail
    # The skipped test is neither; the test printing a look-alike line is read from ours.
    assert done.fail_to_pass == ["test/slug.test.js::slug case lowers capitals"]
    assert done.pass_to_pass == ["test/slug.test.js::slug joins words with dashes"]


def test_a_workspace_validates_end_to_end_without_a_registry(tmp_path: Path) -> None:
    # npm links the members into node_modules (no registry: they are all there is); the
    # test of one member requires another by its package name.
    box = node_sandbox(tmp_path, ("node", "npm"))
    from spice_engine.langs.executor import Executor

    row = project_instance(DATA / "lang_js" / "workspace", tmp_path / "repo")
    job = lang_job(row, tmp_path / "repo", "javascript")
    executor = Executor(tmp_path / "envs", box)
    done = validate(job, executor, tmp_path / "scratch")
    assert done.validation.status == Status.VALID, done.validation.detail
    slug = "packages/slug/test/slug.test.js::slug"
    assert done.fail_to_pass == [f"{slug} lowers capitals"]
    assert done.pass_to_pass == [f"{slug} joins words"]
