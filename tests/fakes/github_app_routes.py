"""The fake GitHub's endpoints for the App itself: `/app` and installation tokens (JWT)."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import jwt

if TYPE_CHECKING:
    from tests.fakes.github_routes import Answer, Request
    from tests.fakes.github_server import FakeGitHub


def app_route(req: Request) -> Answer:
    fake = req.fake
    return 200, {
        "id": fake.app_id,
        "slug": fake.app_slug,
        "name": fake.app_slug,
        "node_id": "A_1",
        "owner": fake.user("app-owner"),
        "html_url": "",
        "external_url": "",
        "description": "",
        "created_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-01T00:00:00Z",
        "permissions": {},
        "events": [],
    }


def _access_token(req: Request) -> Answer:
    fake = req.fake
    fake.token_requests += 1
    refused = fake.installations_refused.get(int(req.arg("inst")))
    if refused is not None:
        return refused[0], {"message": refused[1]}
    token = f"ghs_inst_{req.arg('inst')}_{fake.token_requests}"
    expiry = time.time() + fake.token_ttl_s
    fake.tokens[token] = (f"{fake.app_slug}[bot]", expiry)
    expires_at = datetime.fromtimestamp(expiry, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return 201, {"token": token, "expires_at": expires_at, "permissions": {}}


def check_jwt(fake: FakeGitHub, authorization: str) -> bool:
    if not authorization.startswith("Bearer "):
        return False
    if fake.jwt_public_key is None:
        return True
    try:
        claims = jwt.decode(authorization[7:], fake.jwt_public_key, algorithms=["RS256"])
    except jwt.PyJWTError:
        return False
    return str(claims.get("iss")) == str(fake.app_id)


APP_ROUTES: list[tuple[str, re.Pattern[str], Callable[[Request], Answer]]] = [
    ("GET", re.compile(r"/app$"), app_route),
    ("POST", re.compile(r"/app/installations/(?P<inst>\d+)/access_tokens$"), _access_token),
]
