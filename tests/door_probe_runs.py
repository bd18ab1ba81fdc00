"""The door repository's instances run by `spice validate` and `spice test-strength` (with
bubblewrap or Docker), and what each run left: its rows, everything a reader of its results
sees, and the host paths its attacks aimed at. Each run happens once per test session, its
record kept beside the world for every test that reads it (xdist's workers share it)."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from filelock import FileLock

from tests.door_probe import World
from tests.fakes.github_fixtures import REPO

SPICE = str(Path(sys.executable).with_name("spice"))


@dataclass(frozen=True)
class Run:
    rows: dict[str, dict[str, Any]]
    """Variant -> its output row."""
    said: dict[str, str]
    """Variant -> what a reader of its results sees (its row, its logs, its comment); `""`:
    what belongs to no one variant (the run's other output, the App's logs and store)."""
    host: dict[str, dict[str, Any]]
    """Variant -> what it left on the host (`World.host_after`)."""

    def result(self, variant: str, key: str = "validation") -> dict[str, Any]:
        found: dict[str, Any] = self.rows[variant]["spice"][key]
        return found

    def seen(self, variant: str) -> str:
        """Everything a reader of the variant's results could see."""
        return self.said[variant] + "\n" + self.said[""]


def once(world: World, channel: str, make: Callable[[], Run]) -> Run:
    """`channel`'s run, made by the first test that asks for it."""
    kept = world.root / "runs" / f"{channel}.json"
    kept.parent.mkdir(exist_ok=True)
    with FileLock(str(kept) + ".lock"):
        if not kept.exists():
            kept.write_text(json.dumps(make().__dict__))
    return Run(**json.loads(kept.read_text()))


def cli(world: World, channel: str) -> Run:
    """`channel` (`bwrap-validate`, `docker-test-strength`, ...) through the CLI."""
    return once(world, channel, lambda: _cli(world, channel))


def _cli(world: World, channel: str) -> Run:
    sandbox, command = channel.split("-", 1)
    rows = world.instances(channel)
    by_id = {str(row["instance_id"]): variant for variant, row in rows.items()}
    given = world.root / "runs" / f"{channel}.in.jsonl"
    given.write_text("".join(json.dumps(row) + "\n" for row in rows.values()))
    out = given.with_suffix(".out")
    args = [SPICE, command, str(given), "--out", str(out), "--repo", f"{REPO}={world.repo}"]
    args += ["--workers", "2", "--timeout", "120"]
    if command == "test-strength":
        args += ["--budget", "120"]
    if sandbox == "docker":
        args += ["--executor", "docker"]
    try:
        done = subprocess.run(
            args, env=world.env(), capture_output=True, text=True, timeout=900, check=False
        )
    finally:
        host = world.host_after(channel)  # whatever happened: nothing may stay planted
    assert done.returncode == 0, done.stderr[-3000:]
    written = [json.loads(line) for line in out.read_text().splitlines()]
    found = {by_id[str(row["instance_id"])]: row for row in written}
    lines = (done.stdout + done.stderr).splitlines()
    said = {"": "\n".join(line for line in lines if not any(i in line for i in by_id))}
    for iid, variant in by_id.items():
        logs = [_gunzip(p) for p in sorted(Path(f"{out}.logs").glob(f"{iid}/*.log.gz"))]
        mine = [line for line in lines if iid in line]
        said[variant] = "\n".join([json.dumps(found[variant]), *mine, *logs])
    return Run(rows=found, said=said, host=host)


def _gunzip(path: Path) -> str:
    with gzip.open(path, "rt", encoding="utf-8", errors="replace") as fh:
        return f"== {path.name}\n{fh.read()}"
