"""Dashboard sessions: signed with the dashboard's own key (never one derived from the webhook
secret), ended on the server by a sign-out that only the page's own form can send.

The app runs in-process (TestClient) on a temporary data directory and database; the operator
token signs in, as on the form.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import stat
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from itsdangerous import URLSafeTimedSerializer
from pydantic import ValidationError

from app.settings import Settings
from app.store.private_files import read_or_create
from app.web.app import create_app
from app.web.dashboard.session_key import KEY_FILE, session_key
from tests.dashboard_support import OPERATOR_TOKEN, dashboard_settings
from tests.service.deliveries import SECRET

COOKIE = "spice_dashboard"
TOKEN_FIELD = re.compile(r'name="sign_out_token" value="([0-9a-f]+)"')


@contextmanager
def signed_in_client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as client:
        answer = client.post("/dashboard/login", data={"token": OPERATOR_TOKEN})
        assert answer.url.path == "/dashboard", answer.text
        yield client


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return dashboard_settings(tmp_path)


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with signed_in_client(create_app(settings)) as signed:
        yield signed


def signed_in(client: TestClient) -> bool:
    return client.get("/dashboard", follow_redirects=False).status_code == 200


def sign_out_token(client: TestClient) -> str:
    found = TOKEN_FIELD.search(client.get("/dashboard").text)
    assert found is not None, "the page has no sign-out form"
    return found.group(1)


def cookie_payload(cookie: str) -> dict[str, Any]:
    """What a cookie says, read without its key (itsdangerous signs; it does not encrypt)."""
    _valid, payload = URLSafeTimedSerializer(b"any").loads_unsafe(cookie)
    assert isinstance(payload, dict)
    return payload


def test_a_cookie_signed_with_a_key_derived_from_the_webhook_secret_is_refused(
    settings: Settings, client: TestClient
) -> None:
    real = client.cookies.get(COOKIE) or ""
    payload = cookie_payload(real)
    old_key = hmac.new(SECRET, b"spice dashboard", hashlib.sha256).digest()
    forgeries = [
        # The old cookie, as the webhook secret's holder could mint it before.
        URLSafeTimedSerializer(old_key, salt="viewer").dumps(payload["viewer"]),
        # Today's shape, with a live session id, signed with that derived key.
        URLSafeTimedSerializer(old_key, salt="sign-in").dumps(payload),
    ]
    for forged in forgeries:
        client.cookies.clear()
        client.cookies.set(COOKIE, forged, path="/dashboard")
        assert not signed_in(client)
    # The same payload signed with the dashboard's own key is accepted: what the forgeries
    # lacked is the key, nothing else.
    client.cookies.clear()
    resigned = URLSafeTimedSerializer(session_key(settings), salt="sign-in").dumps(payload)
    client.cookies.set(COOKIE, resigned, path="/dashboard")
    assert signed_in(client)


def test_signing_out_ends_the_session_on_the_server(client: TestClient) -> None:
    kept = client.cookies.get(COOKIE) or ""
    answer = client.post(
        "/dashboard/logout", data={"sign_out_token": sign_out_token(client)}, follow_redirects=False
    )
    assert answer.status_code == 303 and answer.headers["location"] == "/dashboard/login"
    assert not signed_in(client)
    # A copy of the cookie taken before signing out (another tab, a thief) is worthless too.
    client.cookies.set(COOKIE, kept, path="/dashboard")
    assert not signed_in(client)


def test_signing_out_by_get_does_nothing(client: TestClient) -> None:
    answer = client.get("/dashboard/logout", follow_redirects=False)
    assert answer.status_code == 405
    assert "set-cookie" not in answer.headers
    assert signed_in(client)


def test_sign_out_without_the_pages_token_is_refused(settings: Settings) -> None:
    app = create_app(settings)
    with signed_in_client(app) as someone_else, signed_in_client(app) as client:
        theirs, mine = sign_out_token(someone_else), sign_out_token(client)
        assert theirs != mine
        # None, a guess, and another session's own token (a token is bound to its session).
        for offered in ({}, {"sign_out_token": "0" * 64}, {"sign_out_token": theirs}):
            answer = client.post("/dashboard/logout", data=offered, follow_redirects=False)
            assert answer.status_code == 403
            assert "set-cookie" not in answer.headers
            assert signed_in(client)
        assert signed_in(someone_else)


def test_a_post_without_a_cookie_clears_nothing(settings: Settings) -> None:
    # What a cross-site form gets when the browser keeps the SameSite=Lax cookie to itself.
    with TestClient(create_app(settings)) as client:
        answer = client.post("/dashboard/logout", follow_redirects=False)
    assert answer.status_code == 303
    assert "set-cookie" not in answer.headers


def test_changing_the_configured_key_ends_every_session(tmp_path: Path) -> None:
    first = dashboard_settings(tmp_path, dashboard_session_key="k" * 40)
    with signed_in_client(create_app(first)) as client:
        cookie = client.cookies.get(COOKIE) or ""
    rotated = dashboard_settings(tmp_path, dashboard_session_key="r" * 40)
    with TestClient(create_app(rotated)) as client:
        client.cookies.set(COOKIE, cookie, path="/dashboard")
        assert not signed_in(client)
    with TestClient(create_app(first)) as client:  # the session itself still lives
        client.cookies.set(COOKIE, cookie, path="/dashboard")
        assert signed_in(client)
    assert not (tmp_path / KEY_FILE).exists()  # a configured key makes no file


def test_deleting_the_key_file_ends_every_session(settings: Settings, client: TestClient) -> None:
    key_file = settings.data_dir / KEY_FILE
    old = key_file.read_bytes()
    key_file.unlink()
    assert not signed_in(client)
    assert key_file.read_bytes() != old  # the next use made a new one


def test_the_made_key_is_private_and_kept_across_restarts(settings: Settings) -> None:
    key_file = settings.data_dir / KEY_FILE
    assert not key_file.exists()  # made when first needed, not at start-up
    with signed_in_client(create_app(settings)) as client:
        cookie = client.cookies.get(COOKIE) or ""
    made = key_file.read_bytes()
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert len(made.strip()) >= 32
    with TestClient(create_app(settings)) as restarted:
        restarted.cookies.set(COOKIE, cookie, path="/dashboard")
        assert signed_in(restarted)
    assert key_file.read_bytes() == made


def race_to_make(path: Path, racers: int) -> list[bytes]:
    """What each of `racers` threads, let go at once, reads back from `read_or_create`."""
    start = threading.Barrier(racers)
    read: list[bytes] = []

    def race(mine: bytes) -> None:
        start.wait()
        read.append(read_or_create(path, lambda: mine))

    threads = [threading.Thread(target=race, args=(f"key {n}".encode(),)) for n in range(racers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return read


def test_processes_starting_together_agree_on_one_key(tmp_path: Path) -> None:
    for attempt in range(20):
        path = tmp_path / str(attempt) / KEY_FILE
        read = race_to_make(path, racers=12)
        # Everyone read whole the one content that won, whoever wrote it.
        assert len(read) == 12 and len(set(read)) == 1 and read[0].startswith(b"key ")
        assert [p.name for p in path.parent.iterdir()] == [KEY_FILE]  # no temporary left


def test_a_short_configured_key_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="dashboard_session_key"):
        dashboard_settings(tmp_path, dashboard_session_key="too-short")
