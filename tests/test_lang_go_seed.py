"""Go's seed (spice_engine.langs.seeds): the standard library compiled once, by no tree, and
each job given a copy its tests may spoil for themselves only."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from spice_engine.langs.executor import Executor
from spice_engine.langs.seeds import SEEDS_DIR
from spice_engine.runs.session import Status
from spice_engine.runs.validator import validate
from spice_engine.validate.bubblewrap import Bubblewrap
from tests.lang_projects import lang_job, project_instance

DATA = Path(__file__).parent / "data" / "lang_go"
POISON = """package mathx

import (
	"os"
	"path/filepath"
	"testing"
)

// Overwrites every file of the build cache it is given: Go trusts what it finds there.
func TestPoison(t *testing.T) {
	filepath.Walk(os.Getenv("GOCACHE"), func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			os.WriteFile(p, []byte("poison"), 0o644)
		}
		return nil
	})
}
"""


def with_new_file(patch: str, path: str, text: str) -> str:
    lines = text.splitlines()
    added = "".join(f"+{line}\n" for line in lines)
    return (
        patch
        + f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
        + f"@@ -0,0 +1,{len(lines)} @@\n{added}"
    )


def digest(folder: Path) -> str:
    sha = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        sha.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes())
    return sha.hexdigest()


@pytest.mark.heavy  # compiles Go's standard library for the seed: about a minute
@pytest.mark.timeout(900)
def test_one_seed_serves_every_job_and_no_job_can_spoil_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if shutil.which("go") is None and not Path("/usr/local/go/bin/go").exists():
        pytest.skip("no Go toolchain on this machine")
    box = Bubblewrap()
    if why := box.problem(tmp_path):
        pytest.skip(f"bubblewrap cannot run here: {why}")
    seeds = tmp_path / "seeds"
    monkeypatch.setenv(SEEDS_DIR, str(seeds))
    row = project_instance(DATA / "calc", tmp_path / "repo")
    hostile = dict(row, test_patch=with_new_file(row["test_patch"], "mathx/poison_test.go", POISON))

    first = validate(
        lang_job(hostile, tmp_path / "repo", "go", reruns=0),
        Executor(tmp_path / "envs-1", box),
        tmp_path / "scratch-1",
    )
    # The hostile test ran, after the fix, over its job's copy of the seed.
    assert "example.com/calc/mathx::TestPoison" in first.fail_to_pass, first.validation
    [made] = [p for p in seeds.iterdir() if p.is_dir()]
    assert (made / "gocache").is_dir()
    before = digest(made)

    # Another data folder, the same seed: its jobs compile no standard package again, and
    # what the hostile test wrote went to its own job's copy only.
    done = validate(
        lang_job(row, tmp_path / "repo", "go", reruns=0),
        Executor(tmp_path / "envs-2", box),
        tmp_path / "scratch-2",
    )
    assert done.validation.status == Status.VALID, done.validation.detail
    assert [p for p in seeds.iterdir() if p.is_dir()] == [made]
    assert digest(made) == before
    assert not any(p.read_bytes() == b"poison" for p in made.rglob("*") if p.is_file())
