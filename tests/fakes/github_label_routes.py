"""The fake GitHub's label routes: a repository's labels, an item's labels and its label events."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.fakes.github_routes import Answer, Request

NOT_FOUND: tuple[int, Any] = (404, {"message": "Not Found"})


def labels_route(req: Request) -> Answer:
    return (200, list(req.repo.labels.values())) if req.repo else NOT_FOUND


def label_route(req: Request) -> Answer:
    label = req.repo.labels.get(req.arg("label").lower()) if req.repo else None
    return (200, label) if label else NOT_FOUND


def create_label_route(req: Request) -> Answer:
    if req.repo is None:
        return NOT_FOUND
    name = req.body["name"]
    if name.lower() in req.repo.labels:
        return 422, {"message": "Validation Failed", "errors": [{"code": "already_exists"}]}
    color = req.body.get("color", "ededed")
    return 201, req.fake._label(req.repo, name, color, req.body.get("description"))


def issue_labels_route(req: Request) -> Answer:
    issue = req.repo.issues.get(int(req.arg("n"))) if req.repo else None
    return (200, issue["labels"]) if issue else NOT_FOUND


def add_labels_route(req: Request) -> Answer:
    issue = req.repo.issues.get(int(req.arg("n"))) if req.repo else None
    if issue is None or req.repo is None:
        return NOT_FOUND
    names = req.body["labels"] if isinstance(req.body, dict) else req.body
    present = {lab["name"].lower() for lab in issue["labels"]}
    for name in names:
        if name.lower() not in present:
            # GitHub creates unknown labels on the fly with a grey colour and no description.
            issue["labels"].append(req.fake._label(req.repo, name, "ededed", None))
            req.fake.label_event(req.repo, int(req.arg("n")), name, req.actor, added=True)
            present.add(name.lower())
    return 200, issue["labels"]


def remove_label_route(req: Request) -> Answer:
    issue = req.repo.issues.get(int(req.arg("n"))) if req.repo else None
    if issue is None or req.repo is None:
        return NOT_FOUND
    name = req.arg("label").lower()
    gone = [lab for lab in issue["labels"] if lab["name"].lower() == name]
    if not gone:
        return 404, {"message": "Label does not exist"}
    issue["labels"] = [lab for lab in issue["labels"] if lab["name"].lower() != name]
    req.fake.label_event(req.repo, int(req.arg("n")), gone[0]["name"], req.actor, added=False)
    return 200, issue["labels"]


def issue_events_route(req: Request) -> Answer:
    if req.repo is None or int(req.arg("n")) not in req.repo.issues:
        return NOT_FOUND
    return 200, req.repo.events.get(int(req.arg("n")), [])
