"""What the default suite copies from ../shared stays identical to it."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OURS = ROOT / "tests" / "data" / "webhooks"
SHARED = ROOT.parent / "shared" / "data" / "webhooks"


def test_webhook_examples_match_the_shared_data() -> None:
    if not SHARED.is_dir():
        pytest.skip(f"no {SHARED} to compare the excerpt with (a plain clone)")
    copied = [p for p in OURS.rglob("*.json")]
    assert len(copied) >= 15
    for path in copied:
        original = SHARED / path.relative_to(OURS)
        assert original.read_bytes() == path.read_bytes(), path
