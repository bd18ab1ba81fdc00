"""Prometheus metrics of the service, shared by web and worker processes.

Counters and histograms are process-local objects; when `PROMETHEUS_MULTIPROC_DIR` is set
(`spice serve` and `spice worker` set it before importing prometheus_client), every process
writes them to that directory and `GET /metrics` sums them. Job states are read from the store
at scrape time, so they are right across processes and machines.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from prometheus_client import CollectorRegistry, Counter, Histogram, values
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.metrics_core import Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
LATENCY_BUCKETS = (0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800)


@dataclass(frozen=True)
class ServiceMetrics:
    registry: CollectorRegistry
    deliveries: Counter
    """Webhook deliveries by event and outcome (queued, coalesced, duplicate, ignored, ...)."""
    jobs_finished: Counter
    label_latency: Histogram
    """Seconds from a delivery's arrival to its labels being written."""
    llm_tokens: Counter
    llm_cost: Counter
    errors: Counter
    github_failures: Counter
    """Failed GitHub calls (each attempt) by kind: rate limits, 5xx, 401, 404, 410, ..."""
    github_waits: Counter
    """Rate-limit waits by kind and where: `in_job` (slept) or `deferred` (job requeued)."""
    github_wait_seconds: Counter


def build_metrics() -> ServiceMetrics:
    """Fresh metric objects in their own registry (several apps can live in one test process)."""
    registry = CollectorRegistry()
    return ServiceMetrics(
        registry=registry,
        deliveries=Counter(
            "spice_webhook_deliveries",
            "Webhook deliveries by event and outcome.",
            ["event", "outcome"],
            registry=registry,
        ),
        jobs_finished=Counter(
            "spice_jobs_finished", "Job runs by result.", ["result"], registry=registry
        ),
        label_latency=Histogram(
            "spice_label_latency_seconds",
            "Seconds from delivery arrival to a finished labelling run.",
            buckets=LATENCY_BUCKETS,
            registry=registry,
        ),
        llm_tokens=Counter(
            "spice_llm_tokens", "LLM tokens used, by direction.", ["direction"], registry=registry
        ),
        llm_cost=Counter("spice_llm_cost_usd", "LLM cost in US dollars.", registry=registry),
        errors=Counter("spice_errors", "Errors by component.", ["component"], registry=registry),
        github_failures=Counter(
            "spice_github_failures", "Failed GitHub calls by kind.", ["kind"], registry=registry
        ),
        github_waits=Counter(
            "spice_github_rate_limit_waits",
            "GitHub rate-limit waits by kind and where they were waited (in_job, deferred).",
            ["kind", "where"],
            registry=registry,
        ),
        github_wait_seconds=Counter(
            "spice_github_rate_limit_wait_seconds",
            "Seconds GitHub asked us to wait, by kind.",
            ["kind"],
            registry=registry,
        ),
    )


def watch_github(metrics: ServiceMetrics) -> Callable[[], None]:
    """Count this process's GitHub failures and rate-limit waits; returns the unsubscribe."""
    from app.github.events import GitHubEvent, subscribe

    def observe(event: GitHubEvent) -> None:
        metrics.github_failures.labels(event.kind).inc()
        if event.kind.startswith("rate_limit") and event.wait_s is not None:
            where = "deferred" if event.deferred else "in_job"
            metrics.github_waits.labels(event.kind, where).inc()
            metrics.github_wait_seconds.labels(event.kind).inc(event.wait_s)

    return subscribe(observe)


def github_summary(registry: CollectorRegistry) -> dict[str, object]:
    """What `/healthz` says of GitHub: failures by kind, rate-limit waits and their seconds."""
    failures: dict[str, float] = {}
    waits: dict[str, float] = {}
    seconds = 0.0
    for family in registry.collect():
        for sample in family.samples:
            if sample.name == "spice_github_failures_total":
                kind = sample.labels["kind"]
                failures[kind] = failures.get(kind, 0) + sample.value
            elif sample.name == "spice_github_rate_limit_waits_total":
                key = f"{sample.labels['kind']}/{sample.labels['where']}"
                waits[key] = waits.get(key, 0) + sample.value
            elif sample.name == "spice_github_rate_limit_wait_seconds_total":
                seconds += sample.value
    return {"failures": failures, "rate_limit_waits": waits, "rate_limit_wait_s": seconds}


class JobStateCollector(Collector):
    """`spice_jobs{state}` read from the store on every scrape (absent when it is down)."""

    def __init__(self, counts: Callable[[], dict[str, int] | None]) -> None:
        self._counts = counts

    def collect(self) -> Iterator[Metric]:
        counts = self._counts()
        if counts is None:
            return
        family = GaugeMetricFamily("spice_jobs", "Jobs by state.", labels=["state"])
        for state in ("pending", "running", "done", "failed"):
            family.add_metric([state], counts.get(state, 0))
        yield family


def scrape_registry(
    metrics: ServiceMetrics, job_counts: Callable[[], dict[str, int] | None]
) -> CollectorRegistry:
    """What `GET /metrics` exposes: this process's (or all processes') metrics plus job states."""
    registry = CollectorRegistry()
    if os.environ.get(MULTIPROC_ENV):
        MultiProcessCollector(registry)
    else:
        registry.register(_Forward(metrics.registry))
    registry.register(JobStateCollector(job_counts))
    return registry


class _Forward(Collector):
    def __init__(self, source: CollectorRegistry) -> None:
        self._source = source

    def collect(self) -> Iterator[Metric]:
        yield from self._source.collect()


def use_multiprocess_dir(path: Path) -> None:
    """Share metrics through `path` with every process on this host started after this call.

    Dead processes' files are removed so restarts start from zero; live ones (a worker next
    to the web server) are kept.
    """
    path.mkdir(parents=True, exist_ok=True)
    for file in path.glob("*.db"):
        pid = file.stem.rpartition("_")[2]
        if pid.isdigit() and not _alive(int(pid)):
            file.unlink(missing_ok=True)
    os.environ[MULTIPROC_ENV] = str(path.resolve())
    # prometheus_client picks its value store when first imported; pick again now.
    values.ValueClass = values.get_value_class()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
