"""The JSON reports of jest, vitest and mocha, as the JavaScript test command prints them: each
mocha run after a line naming its file (`FILE_MARK`), jest's and vitest's whole."""

from __future__ import annotations

import json
import posixpath
import re
from typing import Any

from spice_engine.langs.base import TESTBED
from spice_engine.validate.outcomes import Outcomes, TestStatus

FILE_MARK = "spiceTestFile"
"""The key of the line naming the file of the mocha report that follows."""

_STATUS = {
    "passed": TestStatus.PASSED,
    "failed": TestStatus.FAILED,
    "pending": TestStatus.SKIPPED,
    "skipped": TestStatus.SKIPPED,
    "todo": TestStatus.SKIPPED,
    "disabled": TestStatus.SKIPPED,
}


def read_reports(channel: str) -> Outcomes:
    """Each test's status, named `file::full name`. The last report of each run counts: a test
    can print a look-alike document while it runs, not after its runner's own report."""
    reports: dict[str, dict[str, Any]] = {}
    current = ""
    for report in _json_documents(channel):
        if isinstance(report.get(FILE_MARK), str):
            current = report[FILE_MARK]
        elif isinstance(report.get("testResults"), list) or isinstance(report.get("tests"), list):
            reports[current] = report
    found: Outcomes = {}
    for file, report in reports.items():
        if isinstance(report.get("testResults"), list):  # jest and vitest
            found |= _jest(report)
        else:  # mocha
            found |= _mocha(report, file)
    return found


def _jest(report: dict[str, Any]) -> Outcomes:
    found: Outcomes = {}
    for suite in report["testResults"]:
        name = _relative(str(suite.get("name") or suite.get("testFilePath") or ""))
        for case in suite.get("assertionResults") or []:
            status = _STATUS.get(str(case.get("status")))
            title = case.get("fullName") or " ".join(
                [*case.get("ancestorTitles", []), str(case.get("title", ""))]
            )
            if status is not None:
                found[f"{name}::{title}"] = status
    return found


def _mocha(report: dict[str, Any], file: str) -> Outcomes:
    found: Outcomes = {}
    failed = {_mocha_id(t, file) for t in report.get("failures") or []}
    skipped = {_mocha_id(t, file) for t in report.get("pending") or []}
    for test in report["tests"]:
        test_id = _mocha_id(test, file)
        found[test_id] = (
            TestStatus.FAILED
            if test_id in failed
            else TestStatus.SKIPPED
            if test_id in skipped
            else TestStatus.PASSED
        )
    for test in report.get("failures") or []:  # a hook's failure is in no test's place
        found.setdefault(_mocha_id(test, file), TestStatus.FAILED)
    return found


def _relative(path: str) -> str:
    return posixpath.relpath(path, TESTBED) if path.startswith(TESTBED + "/") else path


def _mocha_id(test: dict[str, Any], file: str) -> str:
    title = str(test.get("fullTitle") or test.get("title") or "")
    named = _relative(str(test.get("file") or "")) or file
    return f"{named}::{title}" if named else title


def _json_documents(channel: str) -> list[dict[str, Any]]:
    """Every JSON object in the channel that starts a line, in order (mocha writes the tests'
    own prints to the same stream, around its report)."""
    decoder = json.JSONDecoder()
    found: list[dict[str, Any]] = []
    position = 0
    for match in re.finditer(r"(?m)^\{", channel):
        if match.start() < position:
            continue  # inside the document just read
        try:
            value, end = decoder.raw_decode(channel, match.start())
        except ValueError:
            continue
        if isinstance(value, dict):
            found.append(value)
            position = end
    return found
