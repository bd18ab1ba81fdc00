"""`python -m tests.fakes.github_server`: the fake GitHub on 127.0.0.1 with sample data, to try
the App, the Action and the benchmark builder's path with no GitHub account or network.

It seeds `octo/calc`, a real git repository made under `tour/git/` (the tours' git-ignored
folder; clones come from there): issue #1 to triage, and issue #5 with pull request #10 that
fixes it, merged (a harvest makes one instance of it; validating that gives one task). The
personal token `ghp_octocat` acts as `octocat`, an admin of the repository. The webhook payload
of issue #1 being opened is written to `tour/events/issues.json` for the App (see
`python -m tests.fakes.deliver`) and the Action (`GITHUB_EVENT_PATH`).
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
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
    args = parser.parse_args(argv)
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


def _interrupt(_signum: int, _frame: FrameType | None) -> None:
    raise KeyboardInterrupt
