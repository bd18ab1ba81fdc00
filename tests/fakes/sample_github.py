"""`python -m tests.fakes.github_server`: the fake GitHub on 127.0.0.1 with sample data, to try
the App, the Action and the benchmark builder's path with no GitHub account or network.

It seeds `octo/calc`, a real git repository made under `tour/git/` (the tours' git-ignored
folder; clones come from there): issue #1 to triage, and issue #5 with pull request #10 that
fixes it, merged (a harvest makes one instance of it; validating that gives one task). The
personal token `ghp_octocat` acts as `octocat`, an admin of the repository. The webhook payload
of issue #1 being opened is written to `tour/events/issues.json` for the App (see
`python -m tests.fakes.deliver`) and the Action (`GITHUB_EVENT_PATH`).

`--background` returns once the server is ready, leaving it running (its pid in
`tour/github-server.pid`, its output in `tour/github-server.log`): scripts need no sleep.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import FrameType

from tests.fakes.github_server import FakeGitHub
from tests.fakes.sample_project import make_calc_repo, merged_pull

ROOT = Path(__file__).resolve().parents[2]
TOUR = ROOT / "tour"
REPO = "octo/calc"
LOGIN = "octocat"
ISSUE_BODY = (
    "I expected `calc.div(6, 3)` to return `2.0`, but calc has no `div`.\n\n"
    "Dividing by zero should raise `ZeroDivisionError`, as Python's `/` does."
)


def seed(gh: FakeGitHub, tour: Path) -> dict[str, str]:
    """The sample repository, its issues and pull request; returns the settings to use it."""
    git_root = tour / "git"
    shutil.rmtree(git_root, ignore_errors=True)
    clone = git_root / f"{REPO}.git"
    row = make_calc_repo(clone, REPO)
    gh.add_repo(REPO, "master")
    gh.use_git_repo(REPO, clone)
    merged_pull(gh, REPO, 10, row)
    gh.add_issue(REPO, 1, "calc has no div()", ISSUE_BODY, author="reporter")
    gh.set_permission(REPO, LOGIN, "admin")
    token = gh.personal_token(LOGIN)
    events = tour / "events"
    events.mkdir(parents=True, exist_ok=True)
    (events / "issues.json").write_text(json.dumps(issue_opened(gh), indent=1) + "\n")
    return {
        "SPICE_GITHUB_API_URL": gh.base_url,
        "SPICE_GITHUB_TOKEN": token,
        "SPICE_GIT_BASE_URL": git_root.as_uri(),
    }


def issue_opened(gh: FakeGitHub) -> dict[str, object]:
    """The `issues` webhook GitHub sends when #1 is opened (checked against its schema)."""
    from tests.fakes.github_fixtures import payload

    return payload(gh, "issues", "opened", REPO, 1)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=9000, help="TCP port on 127.0.0.1")
    parser.add_argument("--background", action="store_true", help="return once it is ready")
    args = parser.parse_args(argv)
    if args.background:
        sys.exit(background(args.port))
    # `kill %1` from the tours: leave through the same path as Ctrl-C.
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        gh = FakeGitHub(bot_login=f"{LOGIN}", check_contract=False, port=args.port)
    except OSError as exc:
        sys.exit(f"fake GitHub: cannot listen on 127.0.0.1:{args.port}: {exc.strerror}")
    with gh:
        settings = seed(gh, TOUR)
        exports = " ".join(f"{k}={v}" for k, v in settings.items())
        print(
            f"fake GitHub on {gh.base_url}: {REPO} with issue #1 open and PR #10 (fixes #5) "
            f"merged\nthe App and the CLI:  export {exports}\n"
            f"the Action:  GITHUB_API_URL={gh.base_url} GITHUB_TOKEN={settings['SPICE_GITHUB_TOKEN']}"
            " GITHUB_EVENT_NAME=issues GITHUB_EVENT_PATH=tour/events/issues.json\n"
            "Ctrl-C stops it.",
            flush=True,
        )
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
        finally:  # stopped: the pid file must not name a process that may be someone else's
            pid = TOUR / "github-server.pid"
            if pid.exists() and pid.read_text().strip() == str(os.getpid()):
                pid.unlink()


def _interrupt(_signum: int, _frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def background(port: int, wait_s: float = 60) -> int:
    """Start the server as a process of its own; print its banner once it is serving."""
    TOUR.mkdir(exist_ok=True)
    log, pid = TOUR / "github-server.log", TOUR / "github-server.pid"
    with log.open("w") as out:
        child = subprocess.Popen(
            [sys.executable, "-m", "tests.fakes.github_server", "--port", str(port)],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=ROOT,
            start_new_session=True,  # outlives the shell that started it, until killed
        )
    deadline = time.monotonic() + wait_s
    while "Ctrl-C" not in log.read_text():
        if child.poll() is not None or time.monotonic() > deadline:
            child.kill()
            print(log.read_text() or f"fake GitHub: not serving after {wait_s:.0f}s", end="")
            return 1
        time.sleep(0.1)
    pid.write_text(f"{child.pid}\n")
    stop = f"Stop it: kill $(cat {pid.relative_to(ROOT)})"
    print(log.read_text().replace("Ctrl-C stops it.", stop), end="", flush=True)
    return 0
