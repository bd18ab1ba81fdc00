"""The benchmark builder's path through the store: harvested instances exported unvalidated,
`spice validate --store` runs them (in the sandbox) and keeps each result on its instance, and a
plain `spice export` then writes them as validated tasks."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from app.harvest.build import Built, SweInstance
from app.harvest.store import HarvestStore
from app.settings import Settings
from app.store.engine import database_url, make_engine, session_factory
from app.store.migrate import upgrade_to_head
from spice_engine.validate.bubblewrap import Bubblewrap
from tests.sandbox_attack import SPICE
from tests.validation_support import calc_repo_fixture, sandbox_fixture  # noqa: F401


def test_validate_store_then_export_gives_validated_tasks(
    tmp_path: Path, calc_repo: tuple[Path, dict[str, str]], sandbox: Bubblewrap
) -> None:
    repo, row = calc_repo
    data = tmp_path / "data"
    engine = make_engine(database_url(Settings(data_dir=data)))
    upgrade_to_head(engine)
    fields = {k: v for k, v in row.items() if k in SweInstance.model_fields}
    HarvestStore(session_factory(engine)).save(
        Built(instance=SweInstance(**fields), issues=[], pr_number=1), None
    )
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "SPICE_DATA_DIR": str(data)}
    env["PYENV_ROOT"] = str(Path.home() / ".pyenv")

    def spice(*args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([SPICE, *args], env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        return done

    harvested, validated, tasks = (tmp_path / n for n in ("h.jsonl", "v.jsonl", "t.jsonl"))
    spice("export", "--include-unvalidated", "--out", str(harvested))
    spice("export", "--out", str(tasks))
    assert tasks.read_text() == ""  # nothing validated yet
    spice(
        "validate",
        str(harvested),
        "--repo",
        f"octo/calc={repo}",
        "--out",
        str(validated),
        "--store",
    )
    spice("export", "--out", str(tasks))
    [task] = [json.loads(line) for line in tasks.read_text().splitlines()]
    assert json.loads(task["FAIL_TO_PASS"]) == ["tests/test_calc.py::test_add"]
    assert json.loads(task["PASS_TO_PASS"]) == ["tests/test_calc.py::test_mul"]
    assert task["spice"]["validation"]["status"] == "valid"
