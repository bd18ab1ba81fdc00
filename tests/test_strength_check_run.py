"""A pull request's test strength where the reviewer looks, and the maintainers' answer to it,
through the whole App (signed delivery -> stored job -> worker -> sandboxed tests -> the fake
GitHub, every check-run request validated against GitHub's description): a check run, in
progress while the tests run, completed with the result and a note at the survivor's line;
`/spice not-useful <id>` stored, that kind of mutant suppressed the next time, and the
repository's usefulness rate on the dashboard."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from app.store.models import ShownSurvivor, SurvivorAnswer
from spice_engine.validate.bubblewrap import Bubblewrap
from tests.fakes.github_fixtures import REPO, fake_github_fixture, payload, scripted  # noqa: F401
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI
from tests.service.github_app import LiveApp, live_app
from tests.strength_support import FIX, WEAK, calc_instance
from tests.test_pr_execution import PR, _open_pull, world_fixture  # noqa: F401
from tests.validation_support import hunks, sandbox_fixture  # noqa: F401

TOKEN = "operator-token-for-the-check-run-test-01"
CHECK = "SPICE test strength"


def _app(
    tmp_path: Path, gh: FakeGitHub, model: FakeOpenAI, world: Path, **extra: Any
) -> Iterator[LiveApp]:
    """The whole App, its pull requests executed; environments and measurements in `world`
    (shared by the module: one environment), its store and queue its own."""
    yield from live_app(
        tmp_path,
        gh,
        model,
        data_dir=world / "data",
        database_url=f"sqlite:///{tmp_path / 'spice.db'}",
        git_base_url=f"file://{world / 'mirror'}",
        execute_pull_requests=True,
        votes=1,
        dashboard_token=TOKEN,
        **extra,
    )


@pytest.fixture(name="app")
def app_fixture(
    tmp_path: Path,
    fake_github: FakeGitHub,
    fake_openai: FakeOpenAI,
    world: Path,
    sandbox: Bubblewrap,
) -> Iterator[LiveApp]:
    (world / "data" / "queue.db").unlink(missing_ok=True)  # each test's own queue
    yield from _app(tmp_path, fake_github, fake_openai, world)


def _runs(gh: FakeGitHub) -> list[dict[str, Any]]:
    return [r for r in gh.repos[REPO].check_runs.values() if r["name"] == CHECK]


def _opened(app: LiveApp, world: Path, head: str) -> None:
    _open_pull(app.gh, world, WEAK, head)
    app.model.responder = scripted([2])
    app.deliver("pull_request", "opened", REPO, PR)
    job = app.job(f"{REPO}#{PR}")
    assert job.state == "done", job.error


def _command(app: LiveApp, body: str, author: str = "maintainer") -> None:
    posted = app.gh.add_comment(REPO, PR, body, author)
    said = {"body": body, "author": author, "comment_id": posted["id"]}
    app.post("issue_comment", payload(app.gh, "issue_comment", "created", REPO, PR, **said))
    job = app.job(f"{REPO}#{PR}/comment/{posted['id']}")
    assert job.state == "done", job.error


def _sticky(app: LiveApp) -> str:
    return next(
        str(c["body"])
        for c in app.gh.issue_comments(REPO, PR)
        if c["user"]["login"] == app.gh.bot_login and "mutants" in str(c["body"])
    )


def test_the_check_run_notes_the_survivor_and_a_not_useful_answer_suppresses_its_kind(
    app: LiveApp, world: Path
) -> None:
    _opened(app, world, "a")
    # The check run: started in progress (POST), completed with the result (PATCH).
    assert [w.body["status"] for w in app.gh.writes_to("POST", "/check-runs")] == ["in_progress"]
    [run] = _runs(app.gh)
    assert run["head_sha"] == "a" * 40 and run["status"] == "completed"
    assert run["conclusion"] == "neutral"
    assert run["output"]["title"] == "1 wrong fix(es) the tests accept"
    assert "1 of 2 mutants of the fix survive" in run["output"]["summary"]
    [note] = app.gh.repos[REPO].annotations[run["id"]]
    assert (note["path"], note["start_line"], note["end_line"]) == ("calc.py", 2, 2)
    assert note["annotation_level"] == "warning" and "+    return a - b" in note["raw_details"]
    survivor = note["message"].split("Survivor ", 1)[1][:8]
    assert f"/spice not-useful {survivor}" in note["message"]
    # The sticky comment keeps the headline, with the id to answer it by.
    assert "e.g. `+ → -` in `add()`" in _sticky(app) and f"(survivor `{survivor}`)" in _sticky(app)
    with app.stack.sessions() as session:
        [shown] = session.scalars(select(ShownSurvivor)).all()
    assert (shown.survivor_id, shown.path, shown.place) == (survivor, "calc.py", "add()")
    assert f"({shown.operator})" in note["message"]

    # A maintainer answers; a drive-by commenter's answer is refused.
    app.gh.set_permission(REPO, "maintainer", "write")
    app.gh.set_permission(REPO, "drive-by", "read")
    _command(app, f"/spice not-useful {survivor}", author="drive-by")
    _command(app, "/spice not-useful nonsense")
    with app.stack.sessions() as session:
        assert session.scalars(select(SurvivorAnswer)).all() == []
    _command(app, f"/spice not-useful {survivor}")
    with app.stack.sessions() as session:
        [answer] = session.scalars(select(SurvivorAnswer)).all()
    assert (answer.repo, answer.survivor_id, answer.login) == (REPO, survivor, "maintainer")
    assert (answer.path, answer.place) == ("calc.py", "add()")

    # Next time (the PR assessed again), that kind of mutant is not shown.
    _command(app, "/spice relabel")
    newest = max(_runs(app.gh), key=lambda r: r["id"])
    assert newest["id"] != run["id"] and newest["conclusion"] == "neutral"
    assert app.gh.repos[REPO].annotations.get(newest["id"], []) == []
    assert newest["output"]["title"] == "1 of 2 mutants of the fix caught"
    body = _sticky(app)
    assert "1 not shown: of kinds answered not useful here" in body
    assert "A wrong fix these tests accept" not in body and survivor not in body

    # The dashboard shows the repository's usefulness rate.
    bearer = {"Authorization": f"Bearer {TOKEN}"}
    index = app.client.get("/dashboard", headers=bearer)
    assert index.status_code == 200 and ">0% of 1<" in index.text
    page = app.client.get(f"/dashboard/repos/{REPO}", headers=bearer)
    assert "1 answered not useful of 1 shown" in page.text


def test_the_operator_may_make_a_shown_survivor_fail_the_check(
    tmp_path: Path,
    fake_github: FakeGitHub,
    fake_openai: FakeOpenAI,
    world: Path,
    sandbox: Bubblewrap,
) -> None:
    (world / "data" / "queue.db").unlink(missing_ok=True)
    for app in _app(
        tmp_path, fake_github, fake_openai, world, strength_check_conclusion="failure_when_shown"
    ):
        _opened(app, world, "a")  # measured by the test above: kept for this head
        [run] = _runs(app.gh)
        assert run["conclusion"] == "failure"


def test_without_checks_write_the_result_stays_in_the_comment(app: LiveApp, world: Path) -> None:
    app.gh.repos[REPO].checks_refused = True  # the owner has not accepted `checks: write`
    _opened(app, world, "a")
    assert _runs(app.gh) == []
    body = _sticky(app)
    assert "1 of 2 mutants of the fix survive" in body
    assert "no test-strength check run: GitHub refused it (403)" in body


def test_a_check_run_cut_off_before_it_completed_is_completed_by_the_next_run(
    app: LiveApp, world: Path
) -> None:
    _open_pull(app.gh, world, WEAK, "a")
    # Every try of the completion fails (a GitHub outage): the job ends to be retried.
    app.gh.fail_next(503, times=3, method="PATCH", path_contains="/check-runs/")
    app.model.responder = scripted([2])
    app.deliver("pull_request", "opened", REPO, PR)
    [cut] = _runs(app.gh)
    assert cut["status"] == "in_progress"  # the completion never landed: the job retries
    app.run_scheduled()
    assert app.job(f"{REPO}#{PR}").state == "done", app.job(f"{REPO}#{PR}").error
    [run] = _runs(app.gh)
    assert run["id"] == cut["id"] and run["status"] == "completed"


def test_a_pull_request_without_tests_completes_its_check_as_not_measured(
    tmp_path: Path,
    fake_github: FakeGitHub,
    fake_openai: FakeOpenAI,
    world: Path,
    sandbox: Bubblewrap,
) -> None:
    (world / "data" / "queue.db").unlink(missing_ok=True)
    _, row = calc_instance(tmp_path, WEAK, FIX)
    fake_github.put_file(REPO, ".github/spice.yml", "execute_tests: true\n")
    fix = [{"filename": path, "patch": hunk} for path, hunk in hunks(row["patch"]).items()]
    fake_github.add_pull(REPO, PR, "Fix add", "no test", files=fix, head_sha="c" * 40)
    for app in _app(
        tmp_path, fake_github, fake_openai, world, strength_check_conclusion="failure_when_shown"
    ):
        app.model.responder = scripted([2])
        app.deliver("pull_request", "opened", REPO, PR)
        assert app.job(f"{REPO}#{PR}").state == "done", app.job(f"{REPO}#{PR}").error
        [run] = _runs(app.gh)
        assert (run["status"], run["conclusion"]) == ("completed", "neutral")
        assert run["output"]["title"] == "Not measured"
        assert "no fix and tests to measure" in run["output"]["summary"]
