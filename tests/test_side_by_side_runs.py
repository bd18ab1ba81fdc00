"""Validation's runs before and after the fix go on at once, each in a tree of its own, for a
language whose second run would reuse nothing of the first (JavaScript here, in the real
sandbox): what one run leaves in its tree is never seen by the other, and both logs are kept."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

from spice_engine.langs import languages
from spice_engine.langs.capabilities import side_by_side
from spice_engine.runs.session import Status
from spice_engine.runs.validator import validate
from tests.lang_projects import lang_job, node_sandbox, project_instance

DATA = Path(__file__).parent / "data" / "lang_js" / "nodetest"

FRESH = """'use strict'
const { test } = require('node:test')
const assert = require('node:assert')
const fs = require('node:fs')
const path = require('node:path')

test('starts in a tree no run touched', () => {
  const mark = path.join(__dirname, '..', '.touched')
  const seen = fs.existsSync(mark)
  fs.writeFileSync(mark, 'ran')
  assert.ok(!seen, 'an earlier run left its mark in this tree')
})
"""


def test_only_languages_that_build_nothing_to_reuse_run_side_by_side() -> None:
    chosen = {name for name, lang in languages().items() if side_by_side(lang)}
    assert {"java", "javascript"} <= chosen
    # A build in the tree is what the run after the fix reuses; pytest's in-session reruns
    # need the run before's outcomes first.
    assert not chosen & {"python", "go", "rust", "c", "cpp"}


def test_the_run_after_the_fix_does_not_see_what_the_run_before_left(tmp_path: Path) -> None:
    box = node_sandbox(tmp_path)
    from spice_engine.langs.executor import Executor

    data = tmp_path / "data"
    shutil.copytree(DATA, data)
    (data / "test" / "test" / "fresh.test.js").write_text(FRESH)
    row = project_instance(data, tmp_path / "repo")
    job = lang_job(row, tmp_path / "repo", "javascript", logs_dir=tmp_path / "logs")
    done = validate(job, Executor(tmp_path / "envs", box), tmp_path / "scratch")

    assert done.validation.status == Status.VALID, done.validation.detail
    assert done.fail_to_pass == ["test/slug.test.js::slug case lowers capitals"]
    # In one tree, the run after the fix would find the before-run's mark and fail.
    assert "test/fresh.test.js::starts in a tree no run touched" in done.pass_to_pass
    for name in ("before", "after"):  # each run's own results kept under its own name
        kept = gzip.decompress((tmp_path / "logs" / f"{name}.results.gz").read_bytes())
        assert b"starts in a tree no run touched" in kept
    assert {"before", "after"} <= set(done.validation.durations)


def test_the_second_tree_reuses_the_sessions_plan_and_environment(tmp_path: Path) -> None:
    # Nothing is planned or looked up again for it: the same key, a job space of its own.
    box = node_sandbox(tmp_path)
    from spice_engine.langs.executor import Executor
    from spice_engine.runs.session import open_session

    row = project_instance(DATA, tmp_path / "repo")
    job = lang_job(row, tmp_path / "repo", "javascript")
    with open_session(job, Executor(tmp_path / "envs", box), tmp_path / "scratch") as session:
        assert session.prepared is not None
        with session.twin("before") as (twin, prepared):
            assert prepared.key == session.prepared.key and prepared.plan == session.prepared.plan
            assert prepared.job != session.prepared.job and not prepared.built
            assert twin.path != session.tree.path
            assert (prepared.job / "home").is_dir() and (prepared.job / "tmp").is_dir()
