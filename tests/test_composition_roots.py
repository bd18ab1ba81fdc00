"""One composition root per process: the store opened in one place, the handlers' deps (and
the executors pull requests' tests run in) built once, nothing patched in afterwards."""

from __future__ import annotations

import subprocess
from pathlib import Path

from app.handlers.deps import default_deps
from app.settings import Settings

ROOT = Path(__file__).resolve().parents[1]


def grep(pattern: str, where: str = "app") -> list[str]:
    found = subprocess.run(
        ["grep", "-rnE", pattern, where, "--include=*.py"], cwd=ROOT, capture_output=True, text=True
    )
    return found.stdout.splitlines()


def test_engine_migrate_store_is_written_once() -> None:
    calls = [line for line in grep(r"upgrade_to_head\(engine\)") if "def " not in line]
    # The store's opener, and the web app's own (alembic imported there only when asked).
    assert sorted(line.split(":")[0] for line in calls) == [
        "app/store/opening.py",
        "app/web/app.py",
    ]
    assert grep(r"make_engine|upgrade_to_head", "app/cli") == []


def test_the_handlers_deps_are_not_patched_after_they_are_built() -> None:
    assert grep(r"\bdeps\.[a-z_]+(, *deps\.[a-z_]+)* *=[^=]") == []


def test_the_executors_are_built_once_per_deps(tmp_path: Path) -> None:
    deps = default_deps(Settings(data_dir=tmp_path, github_token="t"))
    assert deps.executors is deps.executors
