"""The docs: the configuration page is the settings object's, and the site builds with every
internal link resolved (mkdocs --strict)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from app.config_reference import reference

ROOT = Path(__file__).resolve().parents[1]


def test_the_configuration_page_is_up_to_date() -> None:
    page = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert page == reference(), "run: python -m app.config_reference > docs/configuration.md"


def test_every_setting_is_explained() -> None:
    undocumented = [line for line in reference().splitlines() if line.endswith("|  |")]
    assert undocumented == []


def test_the_readme_stays_short() -> None:
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 150


def test_the_docs_site_builds_with_no_broken_link(tmp_path: Path) -> None:
    mkdocs = Path(sys.executable).parent / "mkdocs"
    if not mkdocs.exists() and shutil.which("mkdocs") is None:
        pytest.skip("mkdocs is not installed (pip install -e '.[docs]')")
    done = subprocess.run(
        [str(mkdocs), "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]


def test_every_relative_link_in_the_readme_exists() -> None:
    from markdown_it import MarkdownIt

    tokens = MarkdownIt().parse((ROOT / "README.md").read_text(encoding="utf-8"))
    links = [
        child.attrs["href"]
        for token in tokens
        if token.children
        for child in token.children
        if child.type == "link_open"
    ]
    local = [str(href).split("#")[0] for href in links if "://" not in str(href)]
    assert local and all((ROOT / href).exists() for href in local), local
