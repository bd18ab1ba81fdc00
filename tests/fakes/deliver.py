"""`python -m tests.fakes.deliver FILE`: send a webhook payload to the App as GitHub does,
signed with `SPICE_WEBHOOK_SECRET`; the event is the file's name (`issues.json` -> `issues`).

Prints the App's answer; exits non-zero unless it was accepted (2xx).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

from app.web.signature import sign


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("payload", type=Path, help="a webhook payload, named for its event")
    parser.add_argument("--to", default="http://127.0.0.1:8000/webhook", help="the App's webhook")
    parser.add_argument("--wait", type=float, default=0, help="seconds to wait for the App")
    args = parser.parse_args(argv)
    secret = os.environ.get("SPICE_WEBHOOK_SECRET")
    if not secret:
        sys.exit("deliver: set SPICE_WEBHOOK_SECRET (the App's) to sign the delivery")
    body = args.payload.read_bytes()
    request = urllib.request.Request(
        args.to,
        data=body,
        headers={
            "Content-Type": "application/json",
            "X-GitHub-Event": args.payload.stem,
            "X-GitHub-Delivery": str(uuid.uuid4()),
            "X-Hub-Signature-256": sign(secret.encode(), body),
        },
    )
    deadline = time.monotonic() + args.wait
    while True:
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                print(f"{answer.status} {answer.read().decode(errors='replace')}")
                return 0
        except urllib.error.HTTPError as exc:
            print(f"{exc.code} {exc.read().decode(errors='replace')}", file=sys.stderr)
            return 1
        except OSError as exc:
            if time.monotonic() > deadline:  # not listening yet: the App may be starting
                print(f"deliver: {args.to}: {exc}", file=sys.stderr)
                return 1
            time.sleep(0.5)


if __name__ == "__main__":
    sys.exit(main())
