"""`POST /webhook`: signature on the raw body first, then parse, dedupe, persist, answer 202."""

from __future__ import annotations

import logging
from typing import Any

import orjson
from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import Response
from starlette.types import Receive, Scope, Send

from app.intake.contract import Intake, IntakeUnavailable
from app.store.deliveries import NewDelivery
from app.web.events import HANDLED_ACTIONS, InvalidPayload, MalformedBody, route_body
from app.web.services import WebServices
from app.web.signature import signature_valid

log = logging.getLogger(__name__)
router = APIRouter()

MAX_BODY_BYTES = 25 * 1024 * 1024  # GitHub caps webhook payloads at 25 MB
MAX_DELIVERY_ID = 100


def _answer(code: int, **content: Any) -> Response:
    return Response(orjson.dumps(content), status_code=code, media_type="application/json")


async def webhook(request: Request) -> Response:
    """Receive one GitHub webhook delivery."""
    # Looked up directly, not through Depends: dependency solving was a tenth of this
    # endpoint's time under load (benchmarks/webhook_ingest.py).
    services: WebServices = request.app.state.services
    count = services.metrics.deliveries
    body = await request.body()
    if len(body) > MAX_BODY_BYTES:
        count.labels("unknown", "too_large").inc()
        return _answer(413, error="payload too large")
    signature = request.headers.get("x-hub-signature-256")
    if services.secret is None or not signature_valid(services.secret, body, signature):
        # Headers of an unverified request are attacker text: log none of them.
        count.labels("unknown", "unauthorized").inc()
        log.warning("webhook refused: bad or missing signature")
        return _answer(401, error="bad or missing X-Hub-Signature-256")

    event = request.headers.get("x-github-event", "")
    delivery_id = request.headers.get("x-github-delivery", "")
    event_label = event if event in HANDLED_ACTIONS or event == "ping" else "other"
    if not event:
        count.labels(event_label, "malformed").inc()
        return _answer(400, error="missing X-GitHub-Event header")
    try:
        route = route_body(event, body)
    except (MalformedBody, InvalidPayload) as exc:
        count.labels(event_label, "malformed").inc()
        log.info("webhook refused delivery=%s event=%s: %s", delivery_id, event, exc)
        return _answer(400, error=str(exc))
    if event == "ping":
        count.labels("ping", "pong").inc()
        log.info("webhook ping delivery=%s", delivery_id)
        return _answer(200, pong=True)
    if route is None:
        count.labels(event_label, "ignored").inc()
        log.info("webhook ignored delivery=%s event=%s", delivery_id, event)
        return _answer(200, status="ignored")
    if not delivery_id or len(delivery_id) > MAX_DELIVERY_ID:
        count.labels(event_label, "malformed").inc()
        return _answer(400, error="missing or invalid X-GitHub-Delivery header")

    new = NewDelivery.received(
        delivery_id=delivery_id,
        event=event,
        action=route.action,
        repo=route.repo,
        job_key=route.job_key,
        body=body,
    )
    try:
        intake = await services.intake.submit(new)
    except IntakeUnavailable as exc:
        # Not stored: GitHub shows the failure and the delivery can be redelivered.
        services.metrics.errors.labels("database").inc()
        log.error("webhook not stored delivery=%s: %s", delivery_id, exc)
        return _answer(503, error="store unavailable, redeliver later")
    count.labels(event_label, intake.value).inc()
    log.info(
        "webhook %s delivery=%s event=%s action=%s repo=%s key=%s",
        intake.value,
        delivery_id,
        event,
        route.action,
        route.repo,
        route.job_key,
    )
    if intake is Intake.duplicate:
        return _answer(200, status="duplicate", delivery=delivery_id)
    return _answer(202, status=intake.value, delivery=delivery_id, job=route.job_key)


# A plain Starlette route: FastAPI's per-request machinery (dependency solving, response
# handling) cost a tenth of this endpoint's time and none of it is used here. The price:
# /webhook is absent from the OpenAPI document (its body is GitHub's schema, not ours).
router.add_route("/webhook", webhook, methods=["POST"])


class WebhookFirst:
    """The served ASGI app: POST /webhook straight to `webhook`, the rest to the FastAPI app.

    Under load the middleware stack and routing in front of the route cost a fifth of a web
    worker's time per delivery (benchmarks/webhook_ingest.py), for nothing this endpoint
    uses: it answers every error itself. An exception escaping it still reaches uvicorn,
    which answers 500 and logs it, as FastAPI's outermost middleware would.
    """

    def __init__(self, app: FastAPI) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] == "/webhook" and scope["method"] == "POST":
            scope["app"] = self.app  # where Request.app (and so the services) is found
            response = await webhook(Request(scope, receive, send))
            await response(scope, receive, send)
        else:
            await self.app(scope, receive, send)
