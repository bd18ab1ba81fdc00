"""The fake GitHub's Checks API: check runs created, updated and listed per commit, as GitHub
keeps them (an update's annotations are appended to the run's, never replace them; only a
GitHub App may write them, and only with `checks: write`)."""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.fakes.github_routes import Answer, Request

Json = dict[str, Any]
FIELDS = ("name", "status", "conclusion", "started_at", "completed_at", "external_id")
NOT_AN_APP = "You must authenticate via a GitHub App."
REFUSED = "Resource not accessible by integration"


def _app(req: Request) -> Json:
    from tests.fakes.github_app_routes import app_route

    return dict(app_route(req)[1])


def _refused(req: Request) -> Answer | None:
    if req.repo is None:
        return 404, {"message": "Not Found"}
    if not req.actor.endswith("[bot]"):  # an App's installation, or a workflow's token
        return 403, {"message": NOT_AN_APP}
    if req.repo.checks_refused:
        return 403, {"message": REFUSED}
    return None


def _shown(req: Request, run: Json) -> Json:
    """The run as GitHub answers it (its annotations counted, not listed)."""
    shown = copy.deepcopy(run)
    notes = req.repo.annotations.get(run["id"], []) if req.repo else []
    url = f"{req.fake.base_url}/repos/{req.full_name}/check-runs/{run['id']}"
    shown["output"] |= {"annotations_count": len(notes), "annotations_url": f"{url}/annotations"}
    return shown


def _apply(req: Request, run: Json) -> None:
    body = req.body or {}
    for key in FIELDS:
        if key in body:
            run[key] = body[key]
    if body.get("conclusion") is not None:
        run["status"] = "completed"  # GitHub: a conclusion completes the run
        run["completed_at"] = run["completed_at"] or datetime.now(UTC).isoformat()
    output = body.get("output")
    if isinstance(output, dict):
        run["output"] = {k: output.get(k) for k in ("title", "summary", "text")}
        assert req.repo is not None
        req.repo.annotations.setdefault(run["id"], []).extend(output.get("annotations") or [])


def create_check_run(req: Request) -> Answer:
    refused = _refused(req)
    if refused is not None:
        return refused
    assert req.repo is not None
    run_id = next(req.fake._ids)
    run: Json = {
        "id": run_id,
        "node_id": f"CR_{run_id}",
        "head_sha": req.body["head_sha"],
        "url": f"{req.fake.base_url}/repos/{req.full_name}/check-runs/{run_id}",
        "html_url": f"https://github.com/{req.full_name}/runs/{run_id}",
        "details_url": None,
        "status": "queued",
        "conclusion": None,
        "started_at": datetime.now(UTC).isoformat(),
        "completed_at": None,
        "external_id": None,
        "check_suite": {"id": 1},
        "output": {"title": None, "summary": None, "text": None},
        "app": _app(req),
        "pull_requests": [],
    }
    _apply(req, run)
    req.repo.check_runs[run_id] = run
    return 201, _shown(req, run)


def update_check_run(req: Request) -> Answer:
    refused = _refused(req)
    if refused is not None:
        return refused
    assert req.repo is not None
    run = req.repo.check_runs.get(int(req.arg("id")))
    if run is None:
        return 404, {"message": "Not Found"}
    _apply(req, run)
    return 200, _shown(req, run)


def commit_check_runs(req: Request) -> Answer:
    if req.repo is None:
        return 404, {"message": "Not Found"}
    name = req.query.get("check_name")
    runs = [
        _shown(req, r)
        for r in req.repo.check_runs.values()
        if r["head_sha"] == req.arg("ref") and name in (None, r["name"])
    ]
    return 200, {"total_count": len(runs), "check_runs": runs}
