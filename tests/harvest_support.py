"""Test and benchmark helpers for harvesting: fast sources, stores, queue worker threads."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from huey import Huey

from app.github.retries import RetryPolicy
from app.harvest.budget import RateBudget
from app.harvest.source import GitHubHarvestSource
from app.harvest.store import HarvestStore
from app.store.engine import make_engine, session_factory
from app.store.migrate import upgrade_to_head
from spice_engine.llm.config import ModelConfig
from spice_engine.llm.litellm_chat import LiteLLMChat
from tests.fakes.github_server import FakeGitHub


def fake_source(gh: FakeGitHub, attempts: int = 2, per_page: int = 10) -> GitHubHarvestSource:
    """A source on the fake GitHub with an unlimited budget, no retry waits and small pages."""
    return GitHubHarvestSource(
        lambda: gh.bot_token,
        gh.base_url,
        RateBudget(per_hour=1e9, burst=10**9),
        RetryPolicy(attempts=attempts, backoff_s=0),
        per_page=per_page,
    )


def store_at(url: str) -> HarvestStore:
    engine = make_engine(url)
    upgrade_to_head(engine)
    return HarvestStore(session_factory(engine))


def sqlite_store(tmp_path: Path, name: str = "spice.db") -> HarvestStore:
    return store_at(f"sqlite:///{tmp_path / name}")


def fake_model(api_base: str, timeout_s: float = 30) -> LiteLLMChat:
    return LiteLLMChat(
        ModelConfig(
            model="openai/fake",
            api_base=api_base,
            api_key="x",
            output_mode="json_object",
            timeout_s=timeout_s,
        )
    )


class QueueWorkers:
    """`n` threads taking tasks off a huey queue, as `spice worker --threads n` does."""

    def __init__(self, huey: Huey, n: int) -> None:
        self.huey, self.executed = huey, 0
        self._stop = threading.Event()
        self._busy = 0
        self._lock = threading.Lock()
        self._threads = [threading.Thread(target=self._work, daemon=True) for _ in range(n)]

    def __enter__(self) -> QueueWorkers:
        for t in self._threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(timeout=30)

    def _work(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                task = self.huey.dequeue()
                if task is not None:
                    self._busy += 1
            if task is None:
                time.sleep(0.005)
                continue
            try:
                self.huey.execute(task)
            finally:
                with self._lock:
                    self._busy -= 1
                    self.executed += 1

    def idle(self) -> bool:
        with self._lock:
            return self._busy == 0 and self.huey.pending_count() == 0


def wait_idle(*pools: QueueWorkers, timeout_s: float = 60) -> None:
    """Until every queue is empty and no worker is busy (seen twice, 50 ms apart)."""
    deadline = time.monotonic() + timeout_s
    calm = 0
    while calm < 2:
        if time.monotonic() > deadline:
            raise TimeoutError("queue workers did not finish")
        calm = calm + 1 if all(p.idle() for p in pools) else 0
        time.sleep(0.05)


def harvest_env(gh: FakeGitHub, tmp_path: Path, **extra: str) -> dict[str, str]:
    """What `spice harvest` and `spice export` read: the fake GitHub, a data dir, JSON mode."""
    return {
        "SPICE_GITHUB_API_URL": gh.base_url,
        "SPICE_GITHUB_TOKEN": gh.bot_token,
        "SPICE_DATA_DIR": str(tmp_path / "data"),
        "SPICE_OUTPUT_MODE": "json_object",
        **extra,
    }
