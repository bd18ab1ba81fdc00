"""One composition root per process: the store opened in one place, the handlers' deps (and
the executors pull requests' tests run in) built once, nothing patched in afterwards."""

from __future__ import annotations

import os
import subprocess
import sys
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
    # The store's opener only (alembic imported there only when asked: web workers never).
    assert [line.split(":")[0] for line in calls] == ["app/store/opening.py"]
    assert grep(r"make_engine|upgrade_to_head", "app/cli") == []
    assert grep(r"make_engine|upgrade_to_head", "app/web") == []


def test_the_handlers_deps_are_not_patched_after_they_are_built() -> None:
    assert grep(r"\bdeps\.[a-z_]+(, *deps\.[a-z_]+)* *=[^=]") == []


def test_the_executors_are_built_once_per_deps(tmp_path: Path) -> None:
    deps = default_deps(Settings(data_dir=tmp_path, github_token="t"))
    assert deps.executor is deps.executor


def test_a_web_worker_opens_its_store_without_alembic(tmp_path: Path) -> None:
    """gunicorn's workers build the app with the schema already at head (`spice serve`
    migrated once): opening their store must not load alembic (~10 MB a worker)."""
    code = (
        "import sys\n"
        "from app.settings import Settings\n"
        "from app.web.app import create_app\n"
        f"create_app(Settings(data_dir={str(tmp_path)!r}, webhook_secret='s'), migrate=False)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'alembic'))\n"
    )
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
