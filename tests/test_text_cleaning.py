"""Issue text cleaning on real SWE-bench issues and every adversarial case."""

from __future__ import annotations

import re
from typing import Any

from markdown_it import MarkdownIt

from spice_engine.text_cleaning import clean_issue_text, strip_invisible, truncate_middle


def _fenced_lines(markdown: str) -> list[str]:
    lines: list[str] = []
    for tok in MarkdownIt("commonmark").parse(markdown):
        if tok.type in ("fence", "code_block"):
            lines += [ln.strip() for ln in tok.content.splitlines() if ln.strip()]
    return lines


def test_code_blocks_survive_on_real_issues(swebench_instances: list[dict[str, Any]]) -> None:
    checked = 0
    for inst in swebench_instances:
        raw = inst["problem_statement"]
        clean = clean_issue_text(raw, max_chars=10**7)
        assert not clean.truncated
        for line in _fenced_lines(strip_invisible(raw)):
            assert line.replace("```", "'''") in clean.text, inst["instance_id"]
            checked += 1
    assert checked > 1000


def test_images_and_raw_html_are_dropped() -> None:
    md = (
        "Broken ![screenshot](https://img.example/x.png) render.\n\n"
        "<details><summary>env</summary>\n\n3.11\n</details>\n\n"
        'Inline <span style="x">span</span> and <img src=x onerror=alert(1)>.\n\n'
        '```\nFile "a.py", line 1, in <module>\n```\n'
        "List<String> stays, so does `<module>`."
    )
    text = clean_issue_text(md).text
    assert "img.example" not in text and "screenshot" not in text
    assert "<details" not in text and "<span" not in text and "onerror" not in text
    assert 'File "a.py", line 1, in <module>' in text
    assert "List<String>" in text and "`<module>`" in text


def test_links_keep_their_target() -> None:
    text = clean_issue_text("See [the docs](https://docs.example/x) and https://raw.example/y").text
    assert "the docs (https://docs.example/x)" in text
    assert text.count("https://raw.example/y") == 1


def test_truncation_is_visible_and_keeps_head_and_tail() -> None:
    text, omitted = truncate_middle("A" * 1000 + "B" * 1000, 500)
    assert omitted == 1500
    assert text.startswith("A" * 300) and text.endswith("B" * 200)
    assert "characters omitted by SPICE" in text


def test_every_hostile_case_is_cleaned(hostile_cases: list[dict[str, Any]]) -> None:
    by_case = {c["case"]: clean_issue_text(c["body"]) for c in hostile_cases}
    assert len(by_case) == len(hostile_cases)
    huge = by_case["huge-body"]
    assert huge.truncated and "omitted by SPICE" in huge.text
    assert len(huge.text) < 17000
    assert huge.text.rstrip().endswith("ValueError: boom")
    assert by_case["empty"].text == ""
    controls = by_case["unicode-controls"].text
    assert not re.search("[\u202e\u200b\u200c\u200d\x00]", controls)
    assert "🐛" in controls
    html = by_case["html-injection"].text
    assert "<img" not in html and "<script" not in html
    assert "<!--" not in by_case["markdown-breakout"].text
    fences = by_case["nested-code-fences"].text
    assert "print('x')" in fences and fences.count("```") % 2 == 0
