"""Surefire's XML reports, as the Java test command prints them to the channel, read into outcomes."""

from __future__ import annotations

import posixpath
from xml.etree import ElementTree

from spice_engine.validate.outcomes import Outcomes, TestStatus

_VERDICTS = {"failure": TestStatus.FAILED, "error": TestStatus.ERROR, "skipped": TestStatus.SKIPPED}


def test_id(module: str, classname: str, method: str) -> str:
    """The test's source file (Surefire names classes, Java keeps one top class a file) and
    the framework's own names: the same on every machine."""
    outer = classname.split("$", 1)[0].replace(".", "/")
    source = posixpath.join(module, "src/test/java", f"{outer}.java")
    return f"{source}::{classname}#{method}"


def read_report(module: str, xml: str) -> Outcomes:
    """One `TEST-<class>.xml`'s testcases; nothing when it does not parse (a run cut short).

    The XML comes from the tree (the code under test could have written it): ElementTree
    resolves no external entity, and expat refuses exponential entity expansion."""
    try:
        suite = ElementTree.fromstring(xml)
    except ElementTree.ParseError:
        return {}
    found: Outcomes = {}
    for case in suite.iter("testcase"):
        classname = case.get("classname") or suite.get("name") or ""
        method = case.get("name") or ""
        if not classname or not method:
            continue
        status = TestStatus.PASSED
        for child in case:
            status = _VERDICTS.get(child.tag, status)
            if status != TestStatus.PASSED:
                break
        found[test_id(module, classname, method)] = status
    return found


def read_reports(channel: str, marker: str) -> Outcomes:
    """Every report the channel holds, each after a `<marker><path>` line; the module is the
    path's folder above `target/surefire-reports`."""
    found: Outcomes = {}
    parts = channel.split(f"\n{marker}")
    for part in parts[1:]:
        path, _, xml = part.partition("\n")
        module = path.split("target/surefire-reports/", 1)[0].removeprefix("./").strip("/")
        found |= read_report(module, xml.strip())
    return found
