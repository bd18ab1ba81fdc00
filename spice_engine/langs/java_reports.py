"""Surefire's XML reports, as the Java test command prints them to the channel, read into outcomes."""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from xml.etree import ElementTree

from spice_engine.validate.outcomes import Outcomes, TestStatus

_VERDICTS = {"failure": TestStatus.FAILED, "error": TestStatus.ERROR, "skipped": TestStatus.SKIPPED}


def test_id(module: str, classname: str, method: str) -> str:
    """The test's source file (Surefire names classes, Java keeps one top class a file) and
    the framework's own names: the same on every machine."""
    outer = classname.split("$", 1)[0].replace(".", "/")
    source = posixpath.join(module, "src/test/java", f"{outer}.java")
    return f"{source}::{classname}#{method}"


def _cases(module: str, xml: str) -> Iterator[tuple[str, ElementTree.Element]]:
    """Each testcase of one `TEST-<class>.xml` with its id; nothing when it does not parse (a
    run cut short).

    The XML comes from the tree (the code under test could have written it): ElementTree
    resolves no external entity, and expat refuses exponential entity expansion."""
    try:
        suite = ElementTree.fromstring(xml)
    except ElementTree.ParseError:
        return
    for case in suite.iter("testcase"):
        classname = case.get("classname") or suite.get("name") or ""
        method = case.get("name") or ""
        if classname and method:
            yield test_id(module, classname, method), case


def read_report(module: str, xml: str) -> Outcomes:
    """One `TEST-<class>.xml`'s testcases."""
    found: Outcomes = {}
    for test, case in _cases(module, xml):
        status = TestStatus.PASSED
        for child in case:
            status = _VERDICTS.get(child.tag, status)
            if status != TestStatus.PASSED:
                break
        found[test] = status
    return found


def _reports(channel: str, marker: str) -> Iterator[tuple[str, str]]:
    """(module, XML) of every report the channel holds, each after a `<marker><path>` line;
    the module is the path's folder above `target/surefire-reports`."""
    for part in channel.split(f"\n{marker}")[1:]:
        path, _, xml = part.partition("\n")
        module = path.split("target/surefire-reports/", 1)[0].removeprefix("./").strip("/")
        yield module, xml.strip()


def read_reports(channel: str, marker: str) -> Outcomes:
    found: Outcomes = {}
    for module, xml in _reports(channel, marker):
        found |= read_report(module, xml)
    return found


def failure_texts(channel: str, marker: str) -> dict[str, str]:
    """Failed test id -> its `<failure>`s and `<error>`s (type, message, stack trace) and the
    output Surefire kept of it; text the tests could have written, as the reports are."""
    texts: dict[str, str] = {}
    for module, xml in _reports(channel, marker):
        for test, case in _cases(module, xml):
            failed = [c for c in case if c.tag in ("failure", "error")]
            if not failed:
                continue
            said = [
                f"{c.get('type') or ''}: {c.get('message') or ''}\n{c.text or ''}" for c in failed
            ]
            said += [c.text or "" for c in case if c.tag in ("system-out", "system-err")]
            texts[test] = "\n".join(said)
    return texts
