"""Submodules from the repositories a run was given: checked out by the host, offline, into the
tree the build sees; one that cannot be had is named on the row."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from spice_engine.runs.session import Status, tree_of
from spice_engine.runs.validator import validate
from spice_engine.validate.bubblewrap import Bubblewrap
from spice_engine.validate.submodules import missing, repository_of
from tests.fakes.sample_project import git
from tests.lang_projects import lang_job

URL = "https://github.com/acme/consts.git"
MAKEFILE = "check:\n\tcc -o t t.c calc.c && ./t\n"
CALC = '#include "vendor/consts/two.h"\nint four(void) { return TWO %s; }\n'
TEST = "int four(void);\nint main(void) { return four() == 4 ? 0 : 1; }\n"


def _repo(path: Path, files: dict[str, str]) -> str:
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    git(path, "init", "-q", "-b", "main")
    git(path, "add", "-A")
    git(path, "commit", "-qm", "commit")
    return git(path, "rev-parse", "HEAD").strip()


def _project(tmp_path: Path) -> tuple[dict[str, Any], Path]:
    """`acme/app`, whose code reads a header of its submodule `acme/consts`."""
    consts = tmp_path / "consts"
    pinned = _repo(consts, {"two.h": "#define TWO 2\n"})
    app = tmp_path / "app"
    modules = f'[submodule "consts"]\n\tpath = vendor/consts\n\turl = {URL}\n'
    _repo(app, {".gitmodules": modules, "Makefile": MAKEFILE, "calc.c": CALC % "+ 1"})
    git(app, "update-index", "--add", "--cacheinfo", f"160000,{pinned},vendor/consts")
    git(app, "commit", "-qm", "submodule")
    lines = TEST.splitlines()
    test_patch = (
        "diff --git a/t.c b/t.c\nnew file mode 100644\n--- /dev/null\n+++ b/t.c\n"
        f"@@ -0,0 +1,2 @@\n+{lines[0]}\n+{lines[1]}\n"
    )
    patch = (
        "diff --git a/calc.c b/calc.c\n--- a/calc.c\n+++ b/calc.c\n@@ -1,2 +1,2 @@\n"
        f' #include "vendor/consts/two.h"\n-{(CALC % "+ 1").splitlines()[1]}\n'
        f"+{(CALC % '+ TWO').splitlines()[1]}\n"
    )
    row = {"instance_id": "acme__app-1", "repo": "acme/app"}
    row["base_commit"] = git(app, "rev-parse", "HEAD").strip()
    return row | {"test_patch": test_patch, "patch": patch}, consts


def test_submodule_urls_name_repositories() -> None:
    assert repository_of(URL, "acme/app") == "acme/consts"
    assert repository_of("git@github.com:kkos/oniguruma.git", "jqlang/jq") == "kkos/oniguruma"
    assert repository_of("../consts.git", "acme/app") == "acme/consts"
    assert repository_of("", "acme/app") is None


def test_a_given_repository_fills_the_submodule_and_none_is_named(tmp_path: Path) -> None:
    row, consts = _project(tmp_path)
    app = tmp_path / "app"
    assert missing(app, row["base_commit"], "acme/app", {}) == [
        f"missing_submodule: vendor/consts ({URL})"
    ]
    assert missing(app, row["base_commit"], "acme/app", {"Acme/Consts": consts}) == []
    job = lang_job(row, app, "c", submodules={"acme/consts": consts})
    with tree_of(job, row["base_commit"], tmp_path) as tree:
        assert (tree.path / "vendor/consts/two.h").read_text() == "#define TWO 2\n"
        assert not (tree.path / "vendor/consts/.git").exists()
        assert tree.untracked() == []  # the submodule's files are not what an install wrote


def test_the_build_sees_the_submodule_or_the_row_says_it_is_missing(tmp_path: Path) -> None:
    if shutil.which("make") is None or shutil.which("cc") is None:
        pytest.skip("no make or cc on this machine")
    box = Bubblewrap()
    if why := box.problem(tmp_path):
        pytest.skip(f"bubblewrap cannot run here: {why}")
    from spice_engine.langs.executor import Executor

    row, consts = _project(tmp_path)
    executor = Executor(tmp_path / "envs", box)
    given = lang_job(row, tmp_path / "app", "c", submodules={"acme/consts": consts})
    done = validate(given, executor, tmp_path / "scratch")
    assert done.validation.status == Status.VALID, done.validation.detail
    assert done.fail_to_pass == ["Makefile::check"]
    alone = validate(lang_job(row, tmp_path / "app", "c"), executor, tmp_path / "scratch")
    assert alone.validation.status != Status.VALID
    assert alone.validation.detail.splitlines()[0] == f"missing_submodule: vendor/consts ({URL})"
