"""POST /webhook: signatures, parsing, ping, ignored events, dedup, coalescing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.store.models import Delivery, Job
from app.web.app import create_app
from tests.service.deliveries import example, issue_payload, signed_headers
from tests.service.settings import service_settings


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(service_settings(tmp_path))) as test_client:
        yield test_client


def post(
    client: TestClient, payload: object, event: str = "issues", delivery_id: str | None = None
) -> httpx.Response:
    body = json.dumps(payload).encode()
    headers = signed_headers(body, event, delivery_id)
    return client.post("/webhook", content=body, headers=headers)


def stored(client: TestClient) -> tuple[int, int]:
    """(deliveries, jobs) rows in the store."""
    sessions = client.app.state.services.sessions  # type: ignore[attr-defined]
    with sessions() as session:
        deliveries = session.scalar(select(func.count()).select_from(Delivery))
        jobs = session.scalar(select(func.count()).select_from(Job))
    return deliveries, jobs


def queued(client: TestClient) -> int:
    return int(client.app.state.services.queue.huey.pending_count())  # type: ignore[attr-defined]


def test_accepted_delivery_is_stored_and_queued(client: TestClient) -> None:
    response = post(client, issue_payload(7), delivery_id="d-1")
    assert response.status_code == 202
    assert response.json() == {
        "status": "queued",
        "delivery": "d-1",
        "job": "Codertocat/Hello-World#7",
    }
    assert stored(client) == (1, 1)
    assert queued(client) == 1


@pytest.mark.parametrize("signature", [None, "", "sha256=" + "0" * 64, "sha1=abc", "garbage"])
def test_forged_or_missing_signature_is_401_and_nothing_stored(
    client: TestClient, signature: str | None
) -> None:
    body = json.dumps(issue_payload(1)).encode()
    headers = signed_headers(body, "issues")
    if signature is None:
        del headers["X-Hub-Signature-256"]
    else:
        headers["X-Hub-Signature-256"] = signature
    assert client.post("/webhook", content=body, headers=headers).status_code == 401
    assert stored(client) == (0, 0)
    assert queued(client) == 0


def test_signature_over_other_bytes_is_refused(client: TestClient) -> None:
    body = json.dumps(issue_payload(1)).encode()
    headers = signed_headers(body, "issues")
    # Same JSON, different bytes: the signature covers the raw body, not the parsed object.
    tampered = json.dumps(issue_payload(1), indent=1).encode()
    assert client.post("/webhook", content=tampered, headers=headers).status_code == 401
    wrong_secret = signed_headers(body, "issues", secret=b"not-the-secret")
    assert client.post("/webhook", content=body, headers=wrong_secret).status_code == 401
    assert stored(client) == (0, 0)


@pytest.mark.parametrize("body", [b"{not json", b"", b"\xff\xfe", b"[" * 100_000])
def test_malformed_body_with_valid_signature_is_400(client: TestClient, body: bytes) -> None:
    response = client.post("/webhook", content=body, headers=signed_headers(body, "issues"))
    assert response.status_code == 400
    assert stored(client) == (0, 0)


@pytest.mark.parametrize(
    "payload", [[1, 2], "text", {"action": "opened"}, {"action": "opened", "issue": {}}]
)
def test_json_without_the_expected_shape_is_400(client: TestClient, payload: object) -> None:
    assert post(client, payload).status_code == 400
    assert stored(client) == (0, 0)


def _nested(depth: int) -> bytes:
    return b'{"action": "opened", "x": ' + b"[" * depth + b"]" * depth + b"}"


@pytest.mark.parametrize(
    "body",
    [
        _nested(5_000),  # deeper than any parser here allows: 400, never a RecursionError
        b'{"action": "opened", "issue": {"number": 1}, "repository": {"full_name": "a/\xff"}}',
    ],
)
def test_deep_or_undecodable_json_is_400_not_500(client: TestClient, body: bytes) -> None:
    response = client.post("/webhook", content=body, headers=signed_headers(body, "issues"))
    assert response.status_code == 400
    assert stored(client) == (0, 0)


@pytest.mark.parametrize(
    ("number", "full_name"),
    [
        (2**70, "octo/widgets"),
        (0, "octo/widgets"),
        (-3, "octo/widgets"),
        (7, "../../etc/passwd"),
        (7, "octo/.."),
        (7, "octo/widgets/extra"),
        (7, "octo\nevil/widgets"),
    ],
)
def test_signed_payload_fields_outside_githubs_shapes_are_400(
    client: TestClient, number: int, full_name: str
) -> None:
    payload = issue_payload(1)
    payload["issue"]["number"] = number
    payload["repository"]["full_name"] = full_name
    assert post(client, payload).status_code == 400
    assert stored(client) == (0, 0)


def test_a_body_over_the_limit_is_413(client: TestClient) -> None:
    # Streaming and memory are checked against the real server in test_web_serve.
    declared = {"Content-Length": str(30 * 1024 * 1024), "X-GitHub-Event": "issues"}
    assert client.post("/webhook", content=b"{}", headers=declared).status_code == 413

    def chunks() -> Iterator[bytes]:
        for _ in range(30):  # chunked: no length declared
            yield b" " * (1024 * 1024)

    response = client.post("/webhook", content=chunks(), headers={"X-GitHub-Event": "issues"})
    assert response.status_code == 413
    assert stored(client) == (0, 0)


@pytest.mark.parametrize("name", ["payload", "with-app_id.payload", "with-organization.payload"])
def test_ping_is_answered(client: TestClient, name: str) -> None:
    response = post(client, example("ping", name.removesuffix("payload").rstrip(".")), "ping")
    assert response.status_code == 200
    assert response.json() == {"pong": True}
    assert stored(client) == (0, 0)


def test_a_label_change_is_stored_as_feedback(client: TestClient) -> None:
    """A person's label change may correct ours: it is stored and queued, not ignored."""
    assert post(client, example("issues", "labeled"), "issues").status_code == 202


@pytest.mark.parametrize(
    ("event", "payload"),
    [
        ("issues", example("issues", "opened") | {"action": "assigned"}),
        ("pull_request", example("pull_request", "closed")),
        ("star", {"action": "created"}),
        ("push", {"ref": "refs/heads/main"}),
    ],
)
def test_ignored_events_are_200_and_not_stored(
    client: TestClient, event: str, payload: dict[str, object]
) -> None:
    response = post(client, payload, event)
    assert response.status_code == 200
    assert response.json() == {"status": "ignored"}
    assert stored(client) == (0, 0)


def test_same_delivery_twice_gives_one_job(client: TestClient) -> None:
    first = post(client, issue_payload(3), delivery_id="same-id")
    again = post(client, issue_payload(3), delivery_id="same-id")
    assert first.status_code == 202
    assert again.status_code == 200
    assert again.json()["status"] == "duplicate"
    assert stored(client) == (1, 1)
    assert queued(client) == 1


def test_burst_for_one_issue_coalesces_into_one_queued_run(client: TestClient) -> None:
    statuses = [
        post(client, issue_payload(5, action), delivery_id=f"burst-{i}").json()["status"]
        for i, action in enumerate(["opened", "edited", "edited", "edited"])
    ]
    assert statuses == ["queued", "coalesced", "coalesced", "coalesced"]
    post(client, issue_payload(6), delivery_id="other-issue")
    assert stored(client) == (5, 2)
    assert queued(client) == 2
    services = client.app.state.services  # type: ignore[attr-defined]
    with services.sessions() as session:
        job = session.scalar(select(Job).where(Job.key == "Codertocat/Hello-World#5"))
    assert (job.state, job.delivery_id, job.generation) == ("pending", "burst-3", 4)


def test_pull_request_and_comment_keys(client: TestClient) -> None:
    pr = post(client, example("pull_request", "opened"), "pull_request")
    comment = post(client, example("issue_comment", "created"), "issue_comment")
    assert pr.json()["job"].endswith("#2")
    assert "/comment/" in comment.json()["job"]
    assert stored(client) == (2, 2)


def test_missing_delivery_header_is_400(client: TestClient) -> None:
    body = json.dumps(issue_payload(1)).encode()
    headers = signed_headers(body, "issues")
    del headers["X-GitHub-Delivery"]
    assert client.post("/webhook", content=body, headers=headers).status_code == 400
    assert stored(client) == (0, 0)


def test_app_refuses_to_start_without_a_secret(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="SPICE_WEBHOOK_SECRET"):
        create_app(service_settings(tmp_path, webhook_secret=None))


def test_test_mode_without_secret_refuses_every_delivery(tmp_path: Path) -> None:
    app = create_app(service_settings(tmp_path, webhook_secret=None, test_mode=True))
    with TestClient(app) as test_client:
        body = json.dumps(issue_payload(1)).encode()
        response = test_client.post(
            "/webhook", content=body, headers=signed_headers(body, "issues")
        )
        assert response.status_code == 401
        assert stored(test_client) == (0, 0)
