"""C and C++ results, as the test command prints them to the channel after the build and tests
end: ctest's JUnit, googletest's XML, automake's `.trs` files, and a bare test target's exit
status when nothing more is written.

Each report follows a line `@@spice-<kind> <name>`; the reports are files the tests could have
overwritten (as with Surefire's, spice_engine.langs.java_reports): ElementTree resolves no
external entity and expat refuses exponential expansion.
"""

from __future__ import annotations

from xml.etree import ElementTree

from spice_engine.validate.outcomes import Outcomes, TestStatus

MARK = "@@spice-"
"""Starts a channel line naming the report that follows it."""
_TRS = {
    "PASS": TestStatus.PASSED,
    "XFAIL": TestStatus.PASSED,  # failing is what the test is declared to do
    "FAIL": TestStatus.FAILED,
    "XPASS": TestStatus.FAILED,
    "ERROR": TestStatus.ERROR,
    "SKIP": TestStatus.SKIPPED,
}
_WORST = (TestStatus.ERROR, TestStatus.FAILED, TestStatus.PASSED, TestStatus.SKIPPED)


def _parse(xml: str) -> ElementTree.Element | None:
    try:
        return ElementTree.fromstring(xml)
    except ElementTree.ParseError:
        return None  # a run cut short, or no report at all


def read_ctest(xml: str) -> Outcomes:
    """ctest's `--output-junit`: one id per ctest test (its name, as `ctest -N` lists it)."""
    root = _parse(xml)
    if root is None:
        return {}
    found: Outcomes = {}
    for case in root.iter("testcase"):
        name, status = case.get("name") or "", case.get("status") or ""
        if not name:
            continue
        if status == "run" and case.find("failure") is None:
            found[name] = TestStatus.PASSED
        elif status == "disabled" or (status == "notrun" and _skipped_on_purpose(case)):
            found[name] = TestStatus.SKIPPED
        elif status == "notrun":
            found[name] = TestStatus.ERROR  # its executable was not there: it did not build
        else:
            found[name] = TestStatus.FAILED
    return found


def _skipped_on_purpose(case: ElementTree.Element) -> bool:
    """A test that returned its SKIP_RETURN_CODE or was excluded by a fixture's failure."""
    skipped = case.find("skipped")
    message = (skipped.get("message") or "") if skipped is not None else ""
    return "skip" in message.lower() and "unable to find" not in message.lower()


def read_gtest(binary: str, xml: str) -> Outcomes:
    """googletest's XML (`GTEST_OUTPUT=xml:DIR/`): `binary::Suite.Test` for each test run."""
    root = _parse(xml)
    if root is None:
        return {}
    found: Outcomes = {}
    for case in root.iter("testcase"):
        suite, name = case.get("classname") or "", case.get("name") or ""
        if not suite or not name:
            continue
        if case.get("status") == "notrun" or case.get("result") in ("skipped", "suppressed"):
            status = TestStatus.SKIPPED
        elif case.find("failure") is not None or case.find("error") is not None:
            status = TestStatus.FAILED
        elif case.find("skipped") is not None:
            status = TestStatus.SKIPPED
        else:
            status = TestStatus.PASSED
        found[f"{binary}::{suite}.{name}"] = status
    return found


def read_junit(xml: str) -> Outcomes:
    """A JUnit report of named tests (Meson's `testlog.junit.xml`): one id per test name."""
    root = _parse(xml)
    if root is None:
        return {}
    found: Outcomes = {}
    for case in root.iter("testcase"):
        name = case.get("name") or ""
        if not name:
            continue
        if case.find("failure") is not None or case.find("error") is not None:
            found[name] = TestStatus.FAILED
        elif case.find("skipped") is not None:
            found[name] = TestStatus.SKIPPED
        else:
            found[name] = TestStatus.PASSED
    return found


def read_trs(text: str) -> TestStatus | None:
    """An automake `.trs` file's verdict: its global result, else the worst of its results."""
    seen = []
    for line in text.splitlines():
        field, _, word = line.partition(": ")
        if field == ":global-test-result" and word.strip() in _TRS:
            return _TRS[word.strip()]
        if field == ":test-result" and word.split(" ", 1)[0] in _TRS:
            seen.append(_TRS[word.split(" ", 1)[0]])
    return next((s for s in _WORST if s in seen), None)


def read_channel(channel: str) -> Outcomes:
    """Every report the channel holds, by its marker line."""
    found: Outcomes = {}
    for part in f"\n{channel}".split(f"\n{MARK}")[1:]:
        head, _, body = part.partition("\n")
        kind, _, name = head.partition(" ")
        name = name.strip()
        if kind == "ctest":
            found |= read_ctest(body.strip())
        elif kind == "junit":
            found |= read_junit(body.strip())
        elif kind == "gtest" and name:
            found |= read_gtest(name, body.strip())
        elif kind == "trs" and name and (status := read_trs(body)) is not None:
            found[name] = status
        elif kind == "target" and name:
            # `<dir>::<target> <exit status>`: a test target that reported nothing finer.
            target, _, code = name.rpartition(" ")
            if target and code.isdigit():
                found[target] = TestStatus.PASSED if code == "0" else TestStatus.FAILED
    return found
