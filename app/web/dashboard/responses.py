"""The dashboard's HTML and its headers: every page rendered escaped, every answer sent with a
strict Content-Security-Policy and no caching."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi.responses import HTMLResponse, Response

if TYPE_CHECKING:
    from jinja2 import Environment

HERE = Path(__file__).parent


@lru_cache(maxsize=1)
def _templates() -> Environment:
    from jinja2 import Environment, FileSystemLoader, StrictUndefined

    # Every value is escaped: issue titles, rationales and logins are someone else's text.
    return Environment(
        loader=FileSystemLoader(str(HERE / "templates")), autoescape=True, undefined=StrictUndefined
    )


def secure(response: Response) -> Response:
    response.headers["Content-Security-Policy"] = (
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
        "frame-ancestors 'none'; base-uri 'none'"
    )
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["Cache-Control"] = "no-store"
    return response


def html(template: str, status: int = 200, **values: Any) -> Response:
    values.setdefault("viewer", None)
    values.setdefault("sign_out_token", "")
    body = _templates().get_template(template).render(**values)
    return secure(HTMLResponse(body, status_code=status))
