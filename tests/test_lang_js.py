"""JavaScript and TypeScript results through the language seam: read from jest's, mocha's and
`node --test`'s reports (captured from real runs of dayjs and express), file by file."""

from __future__ import annotations

import json
from pathlib import Path

from spice_engine.langs.javascript import JavaScript
from spice_engine.langs.js_reports import FILE_MARK
from spice_engine.validate.outcomes import TestStatus

DATA = Path(__file__).parent / "data"


def test_jest_results_are_named_by_file_and_full_name() -> None:
    found = JavaScript().outcomes((DATA / "lang_js" / "jest_before.json").read_text(), "")
    assert len(found) == 30
    assert found["test/display.test.js::Format no formatStr"] == TestStatus.PASSED
    assert sum(s == TestStatus.FAILED for s in found.values()) == 4
    assert found["test/display.test.js"] == TestStatus.FAILED  # the file as jest judged it


def test_mocha_results_are_named_by_the_file_each_report_follows() -> None:
    report = (DATA / "lang_js" / "mocha_before.json").read_text()
    printed = '{"stats": {"tests": 1}, "tests": [{"fullTitle": "a test printed this"}]'
    channel = f"{json.dumps({FILE_MARK: 'test/req.hostname.js'})}\n{printed}\n{report}"
    found = JavaScript().outcomes(channel, "")
    failed = [t for t, s in found.items() if s == TestStatus.FAILED]
    assert len(found) == 12 and all(
        t.startswith("test/req.hostname.js::req .hostname") for t in found
    )
    assert failed == [
        'test/req.hostname.js::req .hostname when "trust proxy" is enabled when multiple '
        "X-Forwarded-Host should use the first value",
        'test/req.hostname.js::req .hostname when "trust proxy" is enabled when multiple '
        "X-Forwarded-Host should remove OWS around comma",
    ]


def test_garbage_in_the_channel_is_no_result() -> None:
    assert JavaScript().outcomes("npm ERR! something\n{not json\n[1]\n", "") == {}


def test_each_files_report_keeps_its_own_tests() -> None:
    report = (DATA / "lang_js" / "mocha_before.json").read_text().rstrip("\n")
    empty = '{"stats": {"tests": 0}, "tests": [], "pending": [], "failures": [], "passes": []}'
    # As the command prints them: a marker on a line of its own before each run's report
    # (mocha ends its report without a newline).
    channel = "".join(
        f"\n{json.dumps({FILE_MARK: name})}\n{text}"
        for name, text in (("test/req.hostname.js", report), ("test/support/utils.js", empty))
    )
    found = JavaScript().outcomes(channel, "")
    assert len(found) == 12 and all(t.startswith("test/req.hostname.js::") for t in found)


def test_node_test_results_are_named_by_file_and_suites() -> None:
    # Captured from `node --test` with our reporter in bubblewrap (the tree at /testbed).
    channel = (DATA / "lang_js" / "node_test_before.txt").read_text()
    found = JavaScript().outcomes(f"a test's print\n{channel}", "")
    assert found == {
        "test/slug.test.js::slug joins words with dashes": TestStatus.PASSED,
        "test/slug.test.js::slug case lowers capitals": TestStatus.FAILED,
        "test/slug.test.js::slug case keeps accents": TestStatus.SKIPPED,
        "test/words.test.js::words counts": TestStatus.PASSED,
    }


def test_a_file_failing_outside_its_tests_passes_by_its_name_once_fixed() -> None:
    # dayjs-2369 (captured): the test patch's `describe` body calls the fix's code, so before
    # the fix jest fails the file with a test of its own making, which the fix makes vanish.
    js = JavaScript()
    before, after = (
        js.outcomes((DATA / "lang_js" / f"jest_declaration_{run}.txt").read_text(), "")
        for run in ("before", "after")
    )
    file = "test/plugin/duration.test.js"
    assert before[file] == TestStatus.FAILED and after[file] == TestStatus.PASSED
    vanished = f"{file}::Add to a dayjs() encountered a declaration exception"
    assert before[vanished] == TestStatus.FAILED and vanished not in after
    assert [t for t in after if before.get(t) != after[t]] == [file]
