"""Many items through one labelling function, concurrently, each failure kept with its item."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Generic, TypeVar

from spice_engine.errors import SpiceError

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class Done(Generic[T, R]):
    item: T
    result: R | None = None
    error: str | None = None


def run_all(items: Iterable[T], label: Callable[[T], R], workers: int) -> Iterator[Done[T, R]]:
    """Results as they finish (not in input order); at most `workers` items in flight, so a
    long input is never read into memory ahead of the model. Expected failures (model,
    input) become `error`; anything else is a bug and propagates."""
    pending: dict[Future[R], T] = {}
    source = iter(items)
    pool = ThreadPoolExecutor(workers, thread_name_prefix="label")
    try:
        while True:
            for item in source:
                pending[pool.submit(label, item)] = item
                if len(pending) >= workers:
                    break
            if not pending:
                return
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                item = pending.pop(future)
                try:
                    yield Done(item, result=future.result())
                except SpiceError as exc:
                    yield Done(item, error=str(exc))
    finally:
        # Stopped early (Ctrl-C, or the caller gave up): items not started never start, and
        # the caller is not held until those in flight finish.
        pool.shutdown(wait=not pending, cancel_futures=True)
