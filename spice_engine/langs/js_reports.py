"""The JSON reports of jest, vitest and mocha, and our `node --test` reporter's lines, as the
JavaScript test command prints them: each run after a line naming its number (`RUN_MARK`)
and, for mocha's, its file (`FILE_MARK`)."""

from __future__ import annotations

import json
import posixpath
import re
from typing import Any
from urllib.parse import quote

from spice_engine.langs.base import TESTBED
from spice_engine.validate.outcomes import Outcomes, TestStatus

FILE_MARK = "spiceTestFile"
"""The key of the line naming the file of the mocha report that follows."""
RUN_MARK = "spiceRun"
"""The key of the marker line's number of the run whose report follows (with `FILE_MARK`)."""
NODE_MARK = "spiceNodeTest"
"""The key of each line our `node --test` reporter writes (a test's own output never reaches
the reporter's stream: the runner hands it to reporters as events, which ours drops)."""

_STATUS = {
    "passed": TestStatus.PASSED,
    "failed": TestStatus.FAILED,
    "pending": TestStatus.SKIPPED,
    "skipped": TestStatus.SKIPPED,
    "todo": TestStatus.SKIPPED,
    "disabled": TestStatus.SKIPPED,
}
_RANK = {
    TestStatus.SKIPPED: 0,
    TestStatus.XFAIL: 0,
    TestStatus.PASSED: 1,
    TestStatus.FAILED: 2,
    TestStatus.ERROR: 2,
}


def _last_reports(channel: str) -> dict[tuple[object, str], dict[str, Any]]:
    """The last report of each run (and file, for mocha's; our `node --test` reporter's lines
    gathered under `NODE_MARK`): a test can print a look-alike document while it runs, not
    after its runner's own report."""
    reports: dict[tuple[object, str], dict[str, Any]] = {}
    current: tuple[object, str] = (None, "")
    for report in _json_documents(channel):
        if isinstance(report.get(FILE_MARK), str):
            current = (report.get(RUN_MARK), report[FILE_MARK])
        elif isinstance(report.get(NODE_MARK), dict):
            node = reports.setdefault((current[0], NODE_MARK), {"tests": []})
            node["tests"].append(report[NODE_MARK])
        elif isinstance(report.get("testResults"), list) or isinstance(report.get("tests"), list):
            reports[current] = report
    return reports


def read_reports(channel: str) -> Outcomes:
    """Each test's status, named `file::full name` (a jest or vitest file's own by the file)."""
    found: Outcomes = {}
    for (_, file), report in _last_reports(channel).items():
        if file == NODE_MARK:
            one = _node(report["tests"])
        elif isinstance(report.get("testResults"), list):  # jest and vitest
            one = _jest(report)
        else:  # mocha
            one = _mocha(report, file)
        for test, status in one.items():
            # A test run more than once (under each time zone the project's script
            # names) passes only if it passes every time.
            if test not in found or _RANK[status] > _RANK[found[test]]:
                found[test] = status
    return found


def failure_texts(channel: str) -> dict[str, str]:
    """What each failed test's runner says of its failure, by the ids `read_reports` gives:
    jest's and vitest's `failureMessages` (a file's own `message` when it failed as a whole),
    mocha's error message and stack, our `node --test` reporter's error."""
    texts: dict[str, list[str]] = {}
    for (_, file), report in _last_reports(channel).items():
        if file == NODE_MARK:
            for test in report["tests"]:
                if test.get("status") == "failed" and test.get("error"):
                    texts.setdefault(_node_id(test), []).append(str(test["error"]))
        elif isinstance(report.get("testResults"), list):
            for suite in report["testResults"]:
                name = _relative(str(suite.get("name") or suite.get("testFilePath") or ""))
                if suite.get("status") == "failed" and suite.get("message"):
                    texts.setdefault(name, []).append(str(suite["message"]))
                for case in suite.get("assertionResults") or []:
                    for message in case.get("failureMessages") or []:
                        texts.setdefault(f"{name}::{_jest_title(case)}", []).append(str(message))
        else:
            for test in report.get("failures") or []:
                err = test.get("err") if isinstance(test.get("err"), dict) else {}
                said = [str(err.get(k)) for k in ("message", "stack") if err.get(k)]
                texts.setdefault(_mocha_id(test, file), []).extend(said)
    return {t: "\n".join(parts) for t, parts in texts.items() if parts}


def _jest(report: dict[str, Any]) -> Outcomes:
    found: Outcomes = {}
    for suite in report["testResults"]:
        name = _relative(str(suite.get("name") or suite.get("testFilePath") or ""))
        for case in suite.get("assertionResults") or []:
            status = _STATUS.get(str(case.get("status")))
            if status is not None:
                found[f"{name}::{_jest_title(case)}"] = status
        # The file as a whole, as the runner judges it: a file whose only failure was no
        # test's (an exception in a `describe` body, a file that would not load) passes or
        # fails by its name alone.
        whole = _STATUS.get(str(suite.get("status")))
        if name and whole in (TestStatus.PASSED, TestStatus.FAILED):
            found[name] = whole
    return found


def _node(tests: list[Any]) -> Outcomes:
    found: Outcomes = {}
    for test in tests:
        status = _STATUS.get(str(test.get("status")))
        if status is not None and test.get("file"):
            found[_node_id(test)] = status
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


def _jest_title(case: dict[str, Any]) -> str:
    """A jest or vitest test's full name (its suites' titles and its own)."""
    return str(
        case.get("fullName")
        or " ".join([*case.get("ancestorTitles", []), str(case.get("title", ""))])
    )


def _node_id(test: dict[str, Any]) -> str:
    """`file::name` of a line of our `node --test` reporter's."""
    file = _relative(str(test.get("file") or ""))
    name = _relative(str(test.get("name") or ""))  # a file that fails to load is named so
    return f"{file}::{name}"


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


# Each test's name after its suites' (jest's `fullName`), known from the `test:start` events:
# a file's tests start in order, each after its parents (files may run side by side, so
# each keeps its own). Suites are no tests of their own.
_NODE_REPORTER = (
    "export default async function* (source) { const started = {};"
    " for await (const event of source) { const data = event.data || {};"
    " const names = started[data.file] || (started[data.file] = []);"
    ' if (event.type === "test:start") { names[data.nesting] = data.name; continue; }'
    ' if (event.type !== "test:pass" && event.type !== "test:fail") continue;'
    ' if (data.details && data.details.type === "suite") continue;'
    ' const status = event.type === "test:fail" ? "failed" : data.skip || data.todo'
    ' ? "skipped" : "passed";'
    ' const name = [...names.slice(0, data.nesting), data.name].join(" ");'
    " const failure = data.details && data.details.error; const cause = failure"
    " && failure.cause; const error = failure ? String((cause && (cause.stack || cause))"
    " || failure.message || failure) : undefined;"
    f' yield "\\n" + JSON.stringify({{{NODE_MARK}: {{file: data.file, name, status, error}}}})'
    ' + "\\n";'
    " } }"
)
NODE_REPORTER = "data:text/javascript," + quote(_NODE_REPORTER)
"""A module URL, so the reporter needs no file in the tree or the environment."""
