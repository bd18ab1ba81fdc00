"""The door repository's attacks through the App itself: `spice serve` and `spice worker` as
real processes (the worker's umask 077, its environment holding its secrets, its home its
key), GitHub and the model faked on 127.0.0.1. Merged pull requests are harvested and then
validated by the worker's queue task (row 1); open ones, execution asked for by the operator
and the repository, are validated and measured, and their comment says how strong their tests
are (rows 3 and 5)."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from tests.door_probe import LIVE_MERGED, LIVE_OPEN, World
from tests.door_probe_runs import SPICE, Run, once
from tests.fakes.github_fixtures import REPO, payload, scripted
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.sample_project import hunks
from tests.harvest_support import store_at
from tests.sandbox_attack import CANARIES
from tests.service.deliveries import signed_headers
from tests.test_web_serve import ROOT, free_port

HANDLER = "tests.service.github_worker_handler:make_validating_handler"
FIRST_PR = 20
WAIT_S = 300.0


def live(world: World) -> Run:
    return once(world, "live", lambda: _live(world))


def _live(world: World) -> Run:
    rows = world.instances("live")
    numbers = {v: FIRST_PR + i for i, v in enumerate([*LIVE_MERGED, *LIVE_OPEN])}
    with FakeGitHub() as gh, FakeOpenAI(scripted([2])) as model:
        mirror = _seed(world, gh)
        for variant, number in numbers.items():
            _pull(gh, number, rows[variant], merged=variant in LIVE_MERGED)
        with _app(world, gh, model, mirror) as (url, logs):
            for variant, number in numbers.items():
                _deliver(url, gh, number, "closed" if variant in LIVE_MERGED else "opened")
            store = store_at(f"sqlite:///{world.data / 'spice.db'}")

            def validated() -> dict[str, Any]:
                found = {i.instance["instance_id"]: i.labels for i in store.instances()}
                return {k: v for k, v in found.items() if v.get("validation")}

            def commented() -> dict[int, str]:
                opened = [numbers[v] for v in LIVE_OPEN]
                return {n: c[0]["body"] for n in opened if (c := gh.issue_comments(REPO, n))}

            _wait(lambda: len(validated()) == len(LIVE_MERGED), logs, "the merged ones validated")
            _wait(lambda: len(commented()) == len(LIVE_OPEN), logs, "a comment on each open one")
            labels, comments = validated(), commented()
        found: dict[str, dict[str, Any]] = {}
        said = {"": "\n".join([json.dumps(model.requests), *map(_text, logs), _kept(world.data)])}
    for iid, labelled in labels.items():
        merged = next(v for v, n in numbers.items() if iid.endswith(f"-{n}"))
        found[merged] = {"spice": {"validation": labelled["validation"]}}
        kept = Path(labelled["validation"].get("logs") or world.root / "none")
        said[merged] = "\n".join([json.dumps(labelled), *map(_text, kept.glob("*.gz"))])
    for variant in LIVE_OPEN:
        found[variant] = {"comment": comments[numbers[variant]]}
        said[variant] = comments[numbers[variant]]
    return Run(rows=found, said=said, host=world.host_after("live"))


def _seed(world: World, gh: FakeGitHub) -> Path:
    """The repository on the fake GitHub, asking for its pull requests' tests to be run, and
    the mirror the App clones it from; the App's token (one of its secrets) accepted."""
    gh.tokens[CANARIES["SPICE_GITHUB_TOKEN"]] = (gh.bot_login, float("inf"))
    gh.add_repo(REPO, "main")
    gh.put_file(REPO, ".github/spice.yml", "execute_tests: true\n")
    mirror = world.root / "mirror"
    (mirror / REPO).parent.mkdir(parents=True)
    subprocess.run(
        ["git", "clone", "-q", "--bare", str(world.repo), str(mirror / f"{REPO}.git")],
        check=True,
    )
    return mirror


def _deliver(url: str, gh: FakeGitHub, number: int, action: str) -> None:
    """The pull request's delivery, signed with the App's secret, to `spice serve`."""
    body = json.dumps(payload(gh, "pull_request", action, REPO, number)).encode()
    secret = CANARIES["SPICE_WEBHOOK_SECRET"].encode()
    headers = signed_headers(body, "pull_request", f"door-{number}", secret)
    sent = httpx.post(f"{url}/webhook", content=body, headers=headers, timeout=30)
    assert sent.status_code == 202, sent.text


def _pull(gh: FakeGitHub, number: int, row: dict[str, Any], merged: bool) -> None:
    """The instance as a pull request fixing an issue of its own; merged, or open."""
    issue = number + 100
    gh.add_issue(REPO, issue, "add() returns b", "add(2, 0) gives 0.")
    gh.add_pull(
        REPO,
        number,
        "Fix add",
        f"Fixes #{issue}",
        files=_files(str(row["patch"]) + str(row["test_patch"])),
        commits=["fix add"],
        base_sha=str(row["base_commit"]),
        head_sha=f"{number:040d}",
    )
    if merged:
        stamp = "2026-02-01T00:00:00Z"
        gh.edit_issue(REPO, number, state="closed")
        gh.repos[REPO].pulls[number].update(merged=True, merged_at=stamp, closed_at=stamp)


def _files(diff: str) -> list[dict[str, str]]:
    """The diff's files as GitHub lists them, each with git's exact text for the PR's .diff."""
    parts = ["diff --git " + p for p in re.split(r"^diff --git ", diff, flags=re.M)[1:]]
    return [
        {
            "filename": path,
            "patch": hunk,
            "status": "added" if "\nnew file mode" in part else "modified",
            "git_diff": part,
        }
        for part in parts
        for path, hunk in hunks(part).items()
    ]


@contextmanager
def _app(
    world: World, gh: FakeGitHub, model: FakeOpenAI, mirror: Path
) -> Iterator[tuple[str, list[Path]]]:
    """`spice serve` and `spice worker` on the world's data directory: (serve's URL, logs)."""
    port = free_port()
    env = {k: v for k, v in world.env().items() if k != "SPICE_GITHUB_PRIVATE_KEY"}
    env |= {
        "PYTHONPATH": str(ROOT),
        "SPICE_GITHUB_API_URL": gh.base_url,
        "SPICE_GITHUB_WEB_URL": gh.base_url,
        "SPICE_BOT_LOGIN": gh.bot_login,
        "SPICE_MODEL": "openai/fake",
        "SPICE_API_BASE": model.api_base,
        "SPICE_OUTPUT_MODE": "json_object",
        "SPICE_MAX_ATTEMPTS": "1",
        "SPICE_VOTES": "1",
        "SPICE_EXECUTE_PULL_REQUESTS": "true",
        "SPICE_GIT_BASE_URL": f"file://{mirror}",
        "SPICE_GITHUB_MAX_WAIT_S": "2",
    }
    commands = {
        "serve": [SPICE, "serve", "--host", "127.0.0.1", "--port", str(port), "--workers", "1"],
        "worker": [SPICE, "worker", "--threads", "1", "--handler", HANDLER],
    }
    logs = [world.root / f"live-{name}.log" for name in commands]
    started = []
    for log, command in zip(logs, commands.values(), strict=True):
        with log.open("wb") as out:
            started.append(
                subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
            )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait(lambda: _answers(url), logs, "spice serve to answer")
        yield url, logs
    finally:
        for process in started:
            process.terminate()
        for process in started:
            process.wait(timeout=30)


def _answers(url: str) -> bool:
    try:
        return httpx.get(f"{url}/healthz", timeout=1).status_code == 200
    except httpx.TransportError:
        return False


def _wait(done: Callable[[], bool], logs: list[Path], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not done():
        if time.monotonic() > deadline:
            tails = "\n".join(p.read_text(errors="replace")[-3000:] for p in logs)
            raise AssertionError(f"timed out waiting for {what}:\n{tails}")
        time.sleep(0.2)


def _kept(data: Path) -> str:
    """What the App keeps (its store, queue, results, validation logs), as text to search; not
    the environments, clones and scratch space the runs share."""
    shared = ("envs", "repos", "tmp")
    return "\n".join(
        _text(p)
        for p in data.rglob("*")
        if p.is_file() and p.relative_to(data).parts[0] not in shared
    )


def _text(path: Path) -> str:
    raw = path.read_bytes()
    return (gzip.decompress(raw) if path.name.endswith(".gz") else raw).decode("latin-1")
