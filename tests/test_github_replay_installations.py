"""Installations as GitHub sends them, through the whole App (signed delivery -> intake ->
queue -> worker -> fake GitHub): each test replays one behaviour an outside replay found
wrong, then checks the jobs, the deliveries and the requests GitHub saw."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.fakes.github_fixtures import REPO, fake_github_fixture, payload, scripted  # noqa: F401
from tests.service.github_app import LiveApp, live_fixture  # noqa: F401
from tests.test_github_failures_pr import app_live_fixture  # noqa: F401
from tests.test_github_replay_app import LABEL, opened

OTHER = "octo-org/gadgets"
"""A second repository of installation 1."""


def hook(
    shared_data: Path, event: str, action: str, removed: tuple[str, ...] = ()
) -> dict[str, Any]:
    """GitHub's own example of an installation event (octokit/webhooks), for installation 1."""
    name = "removed" if event == "installation_repositories" else "deleted"
    data: dict[str, Any] = json.loads(
        (shared_data / "webhooks" / event / f"{name}.payload.json").read_text()
    )
    data["action"], data["installation"]["id"] = action, 1
    if removed:
        data["repositories_removed"] = [
            {"id": 1, "node_id": "R_1", "name": r.split("/")[1], "full_name": r, "private": False}
            for r in removed
        ]
    return data


def repo_requests(live: LiveApp) -> list[str]:
    return [path for _, path in live.gh.requests if path.startswith(("/repos/", "/repositories/"))]


def test_a_removed_repository_cancels_its_own_waiting_jobs_and_no_other(
    live: LiveApp, shared_data: Path
) -> None:
    live.gh.too_many_requests(times=100, path_contains="/comments")  # both jobs wait
    opened(live, 7)
    live.gh.add_issue(OTHER, 3, "Crash on empty input", "`parse('')` raises KeyError.")
    live.deliver("issues", "opened", OTHER, 3)
    assert live.job(f"{REPO}#7").state == live.job(f"{OTHER}#3").state == "pending"
    live.post(
        "installation_repositories",
        hook(shared_data, "installation_repositories", "removed", removed=(OTHER,)),
    )
    assert live.job(f"{REPO}#7").state == "pending"  # still installed: still waiting
    gone = live.job(f"{OTHER}#3")
    assert gone.state == "cancelled" and "removed from installation 1" in (gone.error or "")
    live.gh.faults.clear()
    live.run_scheduled()
    assert live.job(f"{REPO}#7").state == "done", live.job(f"{REPO}#7").error
    assert live.gh.label_names(REPO, 7) == [LABEL]
    assert [w.path for w in live.gh.writes if OTHER in w.path] == []
    assert live.statuses() == {"d-1": "done", "d-2": "cancelled", "d-3": "applied"}


def test_an_uninstall_behind_waiting_jobs_cancels_them_before_they_run(
    app_live: LiveApp, shared_data: Path
) -> None:
    live = app_live
    live.model.responder = scripted([3])
    for number in (7, 8):
        live.gh.add_issue(REPO, number, "Crash on empty input", "`parse('')` raises KeyError.")
        live.post("issues", payload(live.gh, "issues", "opened", REPO, number), run=False)
    live.post("installation", hook(shared_data, "installation", "deleted"), run=False)
    live.gh.uninstall(1)
    live.run_queued()
    for number in (7, 8):
        job = live.job(f"{REPO}#{number}")
        assert job.state == "cancelled", job.error
        assert job.error == "cancelled: installation 1 was deleted (App uninstalled)"
    assert live.statuses() == {"d-1": "cancelled", "d-2": "cancelled", "d-3": "applied"}
    assert repo_requests(live) == [] and live.gh.token_requests == 0


def test_a_delivery_arriving_after_the_uninstall_is_stored_and_not_run(
    app_live: LiveApp, shared_data: Path
) -> None:
    live = app_live
    live.gh.add_issue(REPO, 7, "Crash on empty input", "`parse('')` raises KeyError.")
    sent_before = payload(live.gh, "issues", "opened", REPO, 7)  # in flight at the uninstall
    live.post("installation", hook(shared_data, "installation", "deleted"))
    live.gh.uninstall(1)
    live.post("issues", sent_before)
    assert live.statuses() == {"d-1": "applied", "d-2": "cancelled"}
    assert repo_requests(live) == [] and live.gh.token_requests == 0


def test_a_job_running_at_the_uninstall_ends_cancelled_not_with_githubs_404(
    app_live: LiveApp, shared_data: Path
) -> None:
    live = app_live

    def uninstalled_meanwhile() -> None:
        live.post("installation", hook(shared_data, "installation", "deleted"), run=False)
        live.gh.uninstall(1)

    live.gh.fail_next(0, 1, path_contains="/comments", before=uninstalled_meanwhile)
    opened(live, 7)
    job = live.job(f"{REPO}#7")
    assert job.state == "cancelled", job.error
    assert job.error == "cancelled: installation 1 was deleted (App uninstalled)"
    assert live.statuses() == {"d-1": "cancelled", "d-2": "applied"}
    assert live.gh.writes == []


def test_a_suspension_holds_the_installations_jobs_and_an_unsuspend_runs_them(
    app_live: LiveApp, shared_data: Path
) -> None:
    live = app_live
    live.gh.too_many_requests(times=100, path_contains="/comments")
    opened(live, 7)  # waiting for GitHub's minute
    live.post("installation", hook(shared_data, "installation", "suspend"))
    live.gh.suspend(1)
    job = live.job(f"{REPO}#7")
    assert job.state == "cancelled" and job.error == "cancelled: installation 1 is suspended"
    live.gh.add_issue(REPO, 8, "Crash on empty input", "`parse('')` raises KeyError.")
    live.deliver("issues", "opened", REPO, 8)  # sent before the suspension, arriving after
    assert live.statuses() == {"d-1": "cancelled", "d-2": "applied", "d-3": "cancelled"}
    writes_while_suspended = len(live.gh.writes)
    live.gh.unsuspend(1)
    live.gh.faults.clear()
    live.post("installation", hook(shared_data, "installation", "unsuspend"))
    assert live.job(f"{REPO}#7").state == "done", live.job(f"{REPO}#7").error
    assert live.gh.label_names(REPO, 7) == [LABEL] and writes_while_suspended == 0
    assert live.statuses() == {
        "d-1": "done",
        "d-2": "applied",
        "d-3": "cancelled",
        "d-4": "applied",
    }


def transferred(live: LiveApp, source_config: str, destination_config: str) -> None:
    """Issue #7 is opened, then moved to OTHER as #3 before its job runs."""
    live.gh.add_repo(OTHER)
    live.gh.put_file(REPO, ".github/spice.yml", source_config)
    live.gh.put_file(OTHER, ".github/spice.yml", destination_config)
    live.gh.add_issue(REPO, 7, "Crash on empty input", "`parse('')` raises KeyError.")
    live.model.responder = scripted([3])
    sent = payload(live.gh, "issues", "opened", REPO, 7)
    live.gh.transfer_issue(REPO, 7, OTHER, 3)
    live.post("issues", sent)
    assert live.job(f"{REPO}#7").state == "done", live.job(f"{REPO}#7").error
    assert live.statuses() == {"d-1": "done"}


def test_a_transferred_issue_is_labelled_under_the_destinations_config(live: LiveApp) -> None:
    transferred(live, "label_prefix: 'src/'\n", "label_prefix: 'dst/'\n")
    assert live.gh.label_names(OTHER, 3) == [f"dst/{LABEL}"]
    assert {w.path.split("/issues")[0].split("/labels")[0] for w in live.gh.writes} == {
        f"/repos/{OTHER}"
    }


def test_a_transferred_issue_follows_the_destinations_dry_run(live: LiveApp) -> None:
    transferred(live, "comment_mode: always\n", "dry_run: true\n")
    assert live.gh.writes == []


def test_a_transferred_issue_is_not_assessed_where_issues_are_off(live: LiveApp) -> None:
    transferred(live, "comment_mode: always\n", "pipelines:\n  issues: false\n")
    assert live.gh.writes == []
    assert live.model.requests == []  # no vote taken


def test_a_job_running_when_its_repository_is_removed_ends_cancelled(
    app_live: LiveApp, shared_data: Path
) -> None:
    live = app_live
    removal = hook(shared_data, "installation_repositories", "removed", removed=(REPO,))

    def removed_meanwhile() -> None:
        live.post("installation_repositories", removal, run=False)
        live.gh.fail_next(404, 1000, path_contains=f"/repos/{REPO}/")  # no longer the App's

    live.gh.fail_next(0, 1, path_contains="/comments", before=removed_meanwhile)
    opened(live, 7)
    job = live.job(f"{REPO}#7")
    assert job.state == "cancelled", job.error
    assert job.error == "cancelled: repository removed from installation 1"
    assert live.statuses() == {"d-1": "cancelled", "d-2": "applied"}


def test_a_removed_repository_runs_nothing_until_it_is_added_back(
    live: LiveApp, shared_data: Path
) -> None:
    removed = hook(shared_data, "installation_repositories", "removed", removed=(REPO,))
    live.post("installation_repositories", removed)
    live.gh.add_issue(REPO, 7, "Crash on empty input", "`parse('')` raises KeyError.")
    live.model.responder = scripted([3])
    live.deliver("issues", "opened", REPO, 7)
    assert live.statuses() == {"d-1": "applied", "d-2": "cancelled"}
    assert repo_requests(live) == []
    added = dict(removed, action="added", repositories_added=removed["repositories_removed"])
    added["repositories_removed"] = []
    live.post("installation_repositories", added)
    live.deliver("issues", "edited", REPO, 7)
    assert live.job(f"{REPO}#7").state == "done", live.job(f"{REPO}#7").error
    assert live.gh.label_names(REPO, 7) == [LABEL]
