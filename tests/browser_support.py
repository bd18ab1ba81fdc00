"""Debian's Chromium, headless, driven by Playwright: found, launched and signed in to the
dashboard the same way by every browser test and by scripts/dashboard_screenshots.py."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

WIDTHS = {"desktop": (1280, 900), "phone": (390, 844)}
NO_CHROMIUM = (
    "no Chromium on this machine: `./dev install` installs Debian's chromium where it can "
    "(root and apt-get), or point SPICE_CHROMIUM at one"
)


def chromium_path() -> str | None:
    return (
        os.environ.get("SPICE_CHROMIUM")
        or shutil.which("chromium")
        or shutil.which("chromium-browser")
    )


@contextmanager
def chromium(path: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        # --no-sandbox: Chromium's sandbox refuses to start as root (containers, CI).
        launched = playwright.chromium.launch(executable_path=path, args=["--no-sandbox"])
        try:
            yield launched
        finally:
            launched.close()


def sign_in_with_token(page: Any, url: str, token: str) -> None:
    """The operator's sign-in form, as a person fills it."""
    page.goto(f"{url}/dashboard")
    page.fill("#token", token)
    page.click("form[action='/dashboard/login'] button")
    page.wait_for_selector("[data-testid=repositories]")
