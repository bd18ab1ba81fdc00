"""`POST /webhook`: bounded read, signature on the raw body, route, store with its job, 202."""

from __future__ import annotations

import hashlib
import hmac
import logging
from tempfile import SpooledTemporaryFile
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect

from app.redaction import redacted_excerpt, secret_values
from app.routing import HANDLED_EVENTS, route_body
from app.store.deliveries import NewDelivery
from app.store.intake import Intake, StoreUnavailable, accept
from app.web.services import WebServices
from app.web.signature import PREFIX, matches
from app.webhook_envelope import InvalidPayload, MalformedBody

log = logging.getLogger(__name__)
router = APIRouter()

MAX_BODY_BYTES = 25 * 1024 * 1024  # GitHub caps webhook payloads at 25 MB
MAX_DELIVERY_ID = 100


SPOOL_BYTES = 1024 * 1024
"""A body is kept in memory up to this size, on disk past it, until its signature is known."""


class BodyTooLarge(Exception):
    pass


def _answer(code: int, **content: Any) -> JSONResponse:
    return JSONResponse(content, status_code=code)


async def read_signed(
    request: Request, secret: bytes | None, limit: int
) -> tuple[SpooledTemporaryFile[bytes], str]:
    """The body, spooled, and the `X-Hub-Signature-256` it calls for.

    Nobody is trusted before the signature checks out: the HMAC is computed while the body
    streams in, memory holds at most `SPOOL_BYTES` of it, and it is refused as soon as it
    passes `limit` (declared length first; a chunked body declares none).
    """
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise BodyTooLarge
    mac = hmac.new(secret or b"", digestmod=hashlib.sha256)
    spool: SpooledTemporaryFile[bytes] = SpooledTemporaryFile(max_size=SPOOL_BYTES)  # noqa: SIM115 - closed by the caller
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise BodyTooLarge
            mac.update(chunk)
            spool.write(chunk)
    except BaseException:
        spool.close()
        raise
    spool.seek(0)
    return spool, PREFIX + mac.hexdigest()


@router.post("/webhook", include_in_schema=False)
async def webhook(request: Request) -> JSONResponse:
    """Receive one GitHub webhook delivery."""
    services: WebServices = request.app.state.services
    count = services.metrics.deliveries
    try:
        spool, expected = await read_signed(request, services.secret, MAX_BODY_BYTES)
    except BodyTooLarge:
        count.labels("unknown", "too_large").inc()
        log.info("webhook refused: body over %d bytes", MAX_BODY_BYTES)
        return _answer(413, error="payload too large")
    except ClientDisconnect:
        count.labels("unknown", "disconnected").inc()
        log.info("webhook client went away before sending its whole body")
        return _answer(400, error="body incomplete")
    with spool:
        signature = request.headers.get("x-hub-signature-256")
        if services.secret is None or not matches(expected, signature):
            # Headers of an unverified request are attacker text: log none of them.
            count.labels("unknown", "unauthorized").inc()
            log.warning("webhook refused: bad or missing signature")
            return _answer(401, error="bad or missing X-Hub-Signature-256")
        body = spool.read()
    return await _accept_signed(request, services, body)


async def _accept_signed(request: Request, services: WebServices, body: bytes) -> JSONResponse:
    count = services.metrics.deliveries
    event = request.headers.get("x-github-event", "")
    delivery_id = request.headers.get("x-github-delivery", "")
    event_label = event if event in HANDLED_EVENTS or event == "ping" else "other"
    if not event:
        count.labels(event_label, "malformed").inc()
        return _answer(400, error="missing X-GitHub-Event header")
    try:
        route = route_body(event, body)
    except (MalformedBody, InvalidPayload) as exc:
        count.labels(event_label, "malformed").inc()
        log.info("webhook refused delivery=%.100s event=%.60s: %s", delivery_id, event, exc)
        secrets = secret_values(services.settings)
        return _answer(400, error=redacted_excerpt(str(exc), head=500, secrets=secrets))
    if event == "ping":
        count.labels("ping", "pong").inc()
        log.info("webhook ping delivery=%.100s", delivery_id)
        return _answer(200, pong=True)
    if route is None:
        count.labels(event_label, "ignored").inc()
        log.info("webhook ignored delivery=%.100s event=%.60s", delivery_id, event)
        return _answer(200, status="ignored")
    if not delivery_id or len(delivery_id) > MAX_DELIVERY_ID or not delivery_id.isprintable():
        count.labels(event_label, "malformed").inc()
        return _answer(400, error="missing or invalid X-GitHub-Delivery header")
    new = NewDelivery.received(
        delivery_id=delivery_id,
        event=event,
        action=route.action,
        repo=route.repo,
        job_key=route.job_key,
        body=body,
        kind=route.kind,
        number=route.number,
        installation=route.installation,
        repos=route.repos,
    )
    try:
        intake = await run_in_threadpool(accept, services.sessions, new, services.queue.enqueue)
    except StoreUnavailable as exc:
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
