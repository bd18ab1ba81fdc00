"""A scripted OpenAI-compatible chat server on 127.0.0.1 that litellm reaches over real HTTP.

Tests give it a `responder`: a function from the request JSON to a `Reply` (choices, delay,
status). Without one it answers every request with schema-valid JSON derived from the
`response_format` schema, so it also serves as a stand-in model for demos:

    python -m tests.fakes.openai_server --port 8080
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """What the server does for one request."""

    texts: list[str] = field(default_factory=list)
    """One text per choice; fewer than `n` simulates a server that ignores `n`."""
    finish_reason: str = "stop"
    """`length` simulates an answer cut off at `max_tokens`."""
    delay_s: float = 0.0
    status: int = 200
    error: str = ""


Responder = Callable[[dict[str, Any]], Reply]


def example_from_schema(schema: dict[str, Any], pick: int = 0) -> Any:
    """A minimal instance of a JSON schema; `pick` rotates enum choices."""
    defs = schema.get("$defs", {})

    def build(node: dict[str, Any]) -> Any:
        if "$ref" in node:
            return build(defs[node["$ref"].rsplit("/", 1)[-1]])
        if "enum" in node:
            return node["enum"][pick % len(node["enum"])]
        if "const" in node:
            return node["const"]
        if "anyOf" in node:
            return build(node["anyOf"][0])
        kind = node.get("type")
        if kind == "object":
            return {k: build(v) for k, v in node.get("properties", {}).items()}
        if kind == "array":
            return []
        if kind == "integer":
            return 0
        if kind == "number":
            return 0.0
        if kind == "boolean":
            return False
        if kind == "string":
            return "A scripted answer from the fake model."
        return None

    return build(schema)


def request_schema(request: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON schema a request asks for, in either structured-output mode."""
    fmt = request.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        return dict(fmt["json_schema"]["schema"])
    if fmt.get("type") == "json_object" and "schema" in fmt:
        return dict(fmt["schema"])
    return None


def default_responder(request: dict[str, Any]) -> Reply:
    """Schema-valid answers, one enum choice per seed so that votes differ."""
    schema = request_schema(request) or {"type": "object", "properties": {}}
    n = int(request.get("n") or 1)
    seed = int(request.get("seed") or 0)
    return Reply(texts=[json.dumps(example_from_schema(schema, seed + i)) for i in range(n)])


def _count_tokens(text: str) -> int:
    return max(1, len(text) // 4)


class FakeOpenAI:
    """The server; use as a context manager. `requests` records every request body."""

    def __init__(self, responder: Responder | None = None, port: int = 0) -> None:
        self.responder = responder or default_responder
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", port), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    self._send(200, {"object": "list", "data": [{"id": "fake", "object": "model"}]})
                else:
                    self._send(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                request = json.loads(self.rfile.read(length) or b"{}")
                with fake._lock:
                    fake.requests.append(request)
                reply = fake.responder(request)
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                if reply.status != 200:
                    self._send(
                        reply.status,
                        {
                            "error": {
                                "message": reply.error or "scripted error",
                                "type": "server_error",
                            }
                        },
                    )
                    return
                prompt = sum(_count_tokens(str(m.get("content", ""))) for m in request["messages"])
                completion = sum(_count_tokens(t) for t in reply.texts)
                self._send(
                    200,
                    {
                        "id": f"chatcmpl-fake-{len(fake.requests)}",
                        "object": "chat.completion",
                        "created": int(time.time()),
                        "model": request.get("model", "fake"),
                        "choices": [
                            {
                                "index": i,
                                "finish_reason": reply.finish_reason,
                                "message": {"role": "assistant", "content": text},
                            }
                            for i, text in enumerate(reply.texts)
                        ],
                        "usage": {
                            "prompt_tokens": prompt,
                            "completion_tokens": completion,
                            "total_tokens": prompt + completion,
                        },
                    },
                )

            def _send(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a scripted timeout)

        return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=8080)
    args = parser.parse_args()
    try:
        fake = FakeOpenAI(port=args.port)
    except OSError as exc:  # one line, not a traceback: the tour's reader can act on it
        sys.exit(
            f"fake model server: cannot listen on 127.0.0.1:{args.port}: {exc.strerror} "
            "(another server there? pick another --port, and the same in --api-base)"
        )
    with fake as server:
        print(f"fake OpenAI-compatible server on {server.api_base}", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
