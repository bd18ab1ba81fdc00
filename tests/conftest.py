"""Shared fixtures: the scripted model server and the shared data directory."""

from __future__ import annotations

import json
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from spice_engine.langs.seeds import SEEDS_DIR
from tests import network_guard
from tests.fakes.openai_server import FakeOpenAI

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def pytest_configure(config: pytest.Config) -> None:
    network_guard.install()
    _share_seeds()


def _share_seeds() -> None:
    """Every test's data folder is new; the toolchains' seeds (Go's compiled standard library,
    spice_engine.langs.seeds) are made by no tree and may serve them all: one folder for the
    machine's runs, this user's alone (else each test makes its own)."""
    folder = Path(tempfile.gettempdir()) / f"spice-test-seeds-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    found = folder.lstat()
    if stat.S_ISDIR(found.st_mode) and found.st_uid == os.getuid() and not found.st_mode & 0o077:
        os.environ.setdefault(SEEDS_DIR, str(folder))


def pytest_runtest_setup(item: pytest.Item) -> None:
    # Heavy end-to-end tests others cover in part run in a step of their own (.ci/run), so the
    # default suite stays within its time.
    if item.get_closest_marker("heavy") is not None and os.environ.get("SPICE_HEAVY") != "all":
        pytest.skip("SPICE_HEAVY=all runs it (minutes of builds; .ci/run does, in its own step)")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if network_guard.attempts:
        print(f"\nblocked non-loopback connections: {network_guard.attempts}")


ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    """A fake OpenAI-compatible server with schema-valid default answers; set `.responder`."""
    with FakeOpenAI() as server:
        yield server


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture(scope="session")
def swebench_instances(shared_data: Path) -> list[dict[str, Any]]:
    path = shared_data / "swebench" / "instances.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="session")
def hostile_cases(shared_data: Path) -> list[dict[str, Any]]:
    path = shared_data / "hostile" / "issues.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="session")
def dashboard_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The App after weeks of work, every row its own (tests.dashboard_support): built once
    for all dashboard tests; a test may add to it, never change what is there."""
    from tests.dashboard_support import dashboard_site as site

    with site(tmp_path_factory.mktemp("dashboard")) as app:
        yield app
