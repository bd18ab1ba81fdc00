"""Fuzzed deliveries (hypothesis): whatever the body and headers, never a 500."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.web.app import create_app
from tests.service.deliveries import SECRET, example, signed_headers
from tests.service.settings import service_settings

EVENTS = ["issues", "pull_request", "issue_comment", "installation", "ping", "push", "", "x" * 200]
FUZZ = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=20,
)
field_values = st.one_of(
    json_values,
    st.integers(min_value=-(2**70), max_value=2**70),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=300),
)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    app = create_app(service_settings(tmp_path_factory.mktemp("fuzz")))
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client


def mutate(payload: dict[str, Any], path: list[str], value: Any) -> dict[str, Any]:
    node: Any = payload
    for part in path[:-1]:
        if not isinstance(node, dict) or not isinstance(node.get(part), dict):
            return payload
        node = node[part]
    if isinstance(node, dict):
        node[path[-1]] = value
    return payload


PATHS = [
    ["action"],
    ["repository"],
    ["repository", "full_name"],
    ["issue"],
    ["issue", "number"],
    ["number"],
    ["comment", "id"],
    ["installation", "id"],
]


@FUZZ
@given(
    event=st.sampled_from(EVENTS),
    base=st.sampled_from(
        [("issues", "opened"), ("pull_request", "opened"), ("issue_comment", "created")]
    ),
    path=st.sampled_from(PATHS),
    value=field_values,
    delivery=st.text(max_size=120).filter(lambda s: s.isprintable() and s.isascii()),
)
def test_signed_payloads_with_broken_fields_never_500(
    client: TestClient,
    event: str,
    base: tuple[str, str],
    path: list[str],
    value: Any,
    delivery: str,
) -> None:
    payload = mutate(example(*base), path, value)
    body = json.dumps(payload).encode()
    headers = signed_headers(body, event, delivery or "fallback")
    headers["X-GitHub-Delivery"] = delivery
    response = client.post("/webhook", content=body, headers=headers)
    assert response.status_code in (200, 202, 400), response.text


@FUZZ
@given(body=st.binary(max_size=2000), event=st.sampled_from(EVENTS), signed=st.booleans())
def test_arbitrary_bytes_never_500(
    client: TestClient, body: bytes, event: str, signed: bool
) -> None:
    headers = signed_headers(body, event, secret=SECRET if signed else b"wrong")
    response = client.post("/webhook", content=body, headers=headers)
    assert response.status_code in ((200, 202, 400) if signed else (401,))


@FUZZ
@given(value=json_values, event=st.sampled_from(EVENTS))
def test_arbitrary_json_never_500(client: TestClient, value: Any, event: str) -> None:
    body = json.dumps(value).encode()
    response = client.post("/webhook", content=body, headers=signed_headers(body, event))
    assert response.status_code in (200, 202, 400)
