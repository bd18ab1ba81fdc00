"""Screenshots of the dashboard fed by the App's own pipeline, for docs/screenshots/.

    .venv/bin/python scripts/dashboard_screenshots.py [--out docs/screenshots]

The store is filled as the dashboard's tests fill it (tests/dashboard_support.py): signed
deliveries to the App, its worker's production handler, GitHub and the model faked on
127.0.0.1, so no network and no key. Needs Chromium (`chromium` on PATH or SPICE_CHROMIUM).
Writes the index and a repository page at desktop (1280 px) and phone (390 px) width, the
first decision's rationales and evidence opened.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CUT = {"desktop": 2600, "phone": 3600}
"""Where the repository page is cut: below the summary, charts, queues, dataset and the first
decisions (the whole page is 20 decisions long)."""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    out: Path = parser.parse_args().out
    sys.path.insert(0, str(ROOT))
    from app.web.app import create_app
    from tests.browser_support import (
        NO_CHROMIUM,
        WIDTHS,
        chromium,
        chromium_path,
        sign_in_with_token,
    )
    from tests.dashboard_support import OPERATOR_TOKEN, seed, seed_one
    from tests.live_app import serve
    from tests.pipeline_store import app_pipeline

    path = chromium_path()
    if path is None:
        print(f"dashboard_screenshots: {NO_CHROMIUM}", file=sys.stderr)
        return 1
    out.mkdir(parents=True, exist_ok=True)
    repos = ["acme/widgets", "acme/gadgets"]
    with (
        tempfile.TemporaryDirectory() as data,
        app_pipeline(Path(data), repos, dashboard_token=OPERATOR_TOKEN) as app,
    ):
        seed(app, "acme/widgets")
        seed_one(app, "acme/gadgets")
        with serve(create_app(app.settings)) as url, chromium(path) as browser:
            for name, (width, height) in WIDTHS.items():
                page = browser.new_page(viewport={"width": width, "height": height})
                sign_in_with_token(page, url, OPERATOR_TOKEN)
                page.screenshot(path=str(out / f"dashboard-index-{name}.png"))
                page.goto(f"{url}/dashboard/repos/acme/widgets")
                for summary in page.get_by_test_id("decision").first.locator("summary").all():
                    summary.click()
                shot = out / f"dashboard-repo-{name}.png"
                clip = {"x": 0, "y": 0, "width": width, "height": CUT[name]}
                page.screenshot(path=str(shot), full_page=True, clip=clip)
                print(shot)
                page.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
