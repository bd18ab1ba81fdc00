"""The dashboard in a real headless Chromium (Debian's, driven by Playwright), at desktop and
phone widths: sign-in, the key elements on screen, nothing wider than the screen, and the
screenshots themselves checked for the drawn charts.

Screenshots are written to SPICE_SCREENSHOT_DIR (default: the test's temporary directory);
docs/screenshots/ holds the ones scripts/dashboard_screenshots.py makes from the same store.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from pydantic import SecretStr

from app.web.app import create_app
from tests.browser_support import NO_CHROMIUM, WIDTHS, chromium, chromium_path
from tests.dashboard_support import HOSTILE_TITLE, OPERATOR_TOKEN
from tests.fakes.github_oauth import OAuthApp
from tests.fakes.github_server import FakeGitHub
from tests.live_app import serve
from tests.pipeline_store import AppPipeline

CLIENT_ID = "Iv1.browsertest"
CLIENT_SECRET = "browser-oauth-secret"
ACCENT = (0x09, 0x69, 0xDA)
"""The bars' colour (dashboard.css --accent)."""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    path = chromium_path()
    if path is None:
        pytest.skip(NO_CHROMIUM)
    with chromium(path) as launched:
        yield launched


@pytest.fixture(scope="module")
def site(dashboard_site: AppPipeline) -> Iterator[tuple[str, FakeGitHub]]:
    """The dashboard site served over HTTP, signing in through an OAuth app of its own."""
    secret = SecretStr(CLIENT_SECRET)
    oauth = {"github_oauth_client_id": CLIENT_ID, "github_oauth_client_secret": secret}
    settings = dashboard_site.settings.model_copy(update=oauth)
    with serve(create_app(settings)) as url:
        dashboard_site.github.web_flow.apps[CLIENT_ID] = OAuthApp(CLIENT_ID, CLIENT_SECRET, url)
        yield url, dashboard_site.github


def shots_dir(tmp_path: Path) -> Path:
    where = Path(os.environ.get("SPICE_SCREENSHOT_DIR") or tmp_path)
    where.mkdir(parents=True, exist_ok=True)
    return where


def columns_shown_or_scroll_cue(page: Any) -> None:
    """Every table shows all its columns, or scrolls inside its card with a shadow at the edge
    that hides some (a cue that appears only while there is more to scroll to)."""
    for box in page.locator(".scroll").all():
        fits = box.evaluate("e => e.scrollWidth <= e.clientWidth + 1")
        cue = box.evaluate("e => getComputedStyle(e).backgroundImage.includes('radial')")
        assert fits or cue


def accent_pixels(image: Image.Image, box: dict[str, float]) -> int:
    region = image.convert("RGB").crop(
        (int(box["x"]), int(box["y"]), int(box["x"] + box["width"]), int(box["y"] + box["height"]))
    )
    return sum(
        n
        for n, colour in region.getcolors(maxcolors=1 << 20) or []
        if all(abs(a - b) <= 12 for a, b in zip(colour, ACCENT, strict=True))
    )


@pytest.mark.parametrize("width", list(WIDTHS))
def test_repository_page_at_desktop_and_phone_width(
    browser: Any, site: tuple[str, FakeGitHub], width: str, tmp_path: Path
) -> None:
    url, _github = site
    w, h = WIDTHS[width]
    page = browser.new_page(viewport={"width": w, "height": h})
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(f"{url}/dashboard")
    assert page.url.endswith("/dashboard/login")
    page.fill("#token", OPERATOR_TOKEN)
    page.click("form[action='/dashboard/login'] button")
    columns_shown_or_scroll_cue(page)  # the index
    page.click("text=acme/widgets")
    page.wait_for_selector("[data-testid=repo-name]")

    for testid in ("summary", "calibration", "agreement-chart", "spend-chart", "disagreements"):
        assert page.get_by_test_id(testid).is_visible(), testid
    assert page.locator("[data-testid=agreement-chart] rect.bar").count() >= 3
    assert page.locator("[data-testid=spend-chart] rect.bar").count() == 30
    assert page.locator("[data-testid=correction]").count() >= 5
    assert page.locator("[data-testid=split]").count() >= 1
    assert page.locator("[data-testid=decision]").count() == 20
    assert page.locator("[data-testid=instance]").count() == 1
    assert page.get_by_test_id("export").is_visible()
    # Hostile issue text stays text: no script ran, no dialog opened.
    assert page.title() != "owned" and not dialogs
    assert HOSTILE_TITLE in page.content().replace("&lt;", "<").replace("&gt;", ">")
    # A real scale, and every value readable without hover; a measured 0% is not a week
    # without labels.
    agreement = page.get_by_test_id("agreement-chart")
    assert agreement.get_by_test_id("tick").all_inner_texts() == ["0%", "50%", "100%"]
    values = agreement.get_by_test_id("chart-values").locator("tr").nth(1)
    assert values.is_visible() and "100%" in values.inner_text()
    assert "0%" in values.all_inner_texts()[0] and "no labels" in values.inner_text()
    assert page.locator("[data-testid=agreement-chart] rect.bar.zero").count() >= 1
    columns_shown_or_scroll_cue(page)
    # Nothing is wider than the screen (tables scroll inside their own boxes).
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"page {overflow}px wider than a {w}px screen"
    for testid in ("summary", "agreement-chart", "spend-chart", "dataset"):
        box = page.get_by_test_id(testid).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= w + 1, testid

    shot = shots_dir(tmp_path) / f"dashboard-repo-{width}.png"
    page.screenshot(path=str(shot), full_page=True)
    image = Image.open(shot)
    assert image.width == w and image.height > h  # the whole page, longer than one screen
    for chart in ("agreement-chart", "spend-chart"):
        box = page.get_by_test_id(chart).bounding_box()
        assert box is not None
        assert accent_pixels(image, box) > 150, f"{chart}: no bars drawn in the screenshot"
    page.close()


def test_github_sign_in_in_the_browser_shows_only_writable_repositories(
    browser: Any, site: tuple[str, FakeGitHub], tmp_path: Path
) -> None:
    url, github = site
    github.web_flow.browser_user = "alice"
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{url}/dashboard")
    page.click("[data-testid=github-sign-in]")
    page.wait_for_selector("[data-testid=repositories]")
    assert page.get_by_test_id("viewer").inner_text() == "alice (GitHub)"
    listed = page.locator("[data-testid=repositories] tbody tr").all_inner_texts()
    assert len(listed) == 1 and listed[0].startswith("acme/widgets")
    page.screenshot(path=str(shots_dir(tmp_path) / "dashboard-index-desktop.png"))
    answer = page.goto(f"{url}/dashboard/repos/acme/secret-plans")
    assert answer is not None and answer.status == 404
    page.goto(f"{url}/dashboard")
    page.click("text=Sign out")
    assert page.url.endswith("/dashboard/login")
    page.goto(f"{url}/dashboard")  # the sign-in is over, not just hidden
    assert page.url.endswith("/dashboard/login")
    page.close()
