"""What C and C++ runners report of each failed test: googletest's and ctest's XML failures,
and the test's stretch of the log between its runner's start and end lines (googletest's
`[ RUN      ]` to `[  FAILED  ]`, ctest's `Start N:` to `Test #N:`), where the test's own output
and the sandbox's notes of its name lookups are (spice_engine.validate.lookup_witness).

Like the reports (spice_engine.langs.c_reports), all of it is text the tests could have
written; it only ever tells why a test failed, never whether it did.
"""

from __future__ import annotations

import re
from xml.etree import ElementTree

from spice_engine.langs.c_reports import MARK, read_channel
from spice_engine.validate.offline import sole_holders
from spice_engine.validate.outcomes import FAILING

_GTEST_START = re.compile(r"^\[ RUN      \] (\S+)")
_GTEST_END = re.compile(r"^\[ +(?:FAILED|OK|SKIPPED) +\] (\S+)")
_CTEST_START = re.compile(r"^\s*Start\s+(\d+): (.+?)\s*$")
_CTEST_END = re.compile(r"^\s*\d+/\d+ Test\s+#(\d+): ")


def _cases(xml: str) -> list[ElementTree.Element]:
    try:
        return list(ElementTree.fromstring(xml).iter("testcase"))
    except ElementTree.ParseError:
        return []


def _said(case: ElementTree.Element) -> str:
    """A testcase's failure and error messages and bodies, and its recorded output."""
    parts = []
    for child in case:
        if child.tag in ("failure", "error"):
            parts += [child.get("message") or "", child.text or ""]
        elif child.tag in ("system-out", "system-err"):
            parts.append(child.text or "")
    return "\n".join(p for p in parts if p)


def _reports(channel: str) -> dict[str, str]:
    """Test id (as `read_channel` names it) -> what its report says of it."""
    found: dict[str, str] = {}
    for part in f"\n{channel}".split(f"\n{MARK}")[1:]:
        head, _, body = part.partition("\n")
        kind, _, name = head.partition(" ")
        for case in _cases(body.strip()) if kind in ("gtest", "ctest", "junit") else []:
            suite, test = case.get("classname") or "", case.get("name") or ""
            key = f"{name.strip()}::{suite}.{test}" if kind == "gtest" else test
            found[key] = _said(case)
    return found


def _sections(log: str) -> tuple[dict[str, str], dict[str, str]]:
    """googletest's `Suite.Test` and ctest's test names -> their stretch of the log."""
    gtest: dict[str, list[str]] = {}
    ctest: dict[str, list[str]] = {}
    open_gtest: str | None = None
    open_ctest: tuple[str, str] | None = None
    for line in log.splitlines():
        if found := _GTEST_START.match(line):
            open_gtest = found.group(1)
            gtest[open_gtest] = []
            continue
        if found := _CTEST_START.match(line):
            open_ctest = (found.group(1), found.group(2))
            ctest[found.group(2)] = []
            continue
        if open_gtest is not None:
            gtest[open_gtest].append(line)
            if (found := _GTEST_END.match(line)) and found.group(1) == open_gtest:
                open_gtest = None
        if open_ctest is not None:
            ctest[open_ctest[1]].append(line)
            if (found := _CTEST_END.match(line)) and found.group(1) == open_ctest[0]:
                open_ctest = None
    return (
        {k: "\n".join(v) for k, v in gtest.items()},
        {k: "\n".join(v) for k, v in ctest.items()},
    )


def failure_texts(channel: str, log: str) -> dict[str, str]:
    """Failed test id -> its report's failure and its stretch of the log. A googletest
    stretch goes to the one failed test of that `Suite.Test` (two binaries with the same
    name: to neither)."""
    failed = [t for t, s in read_channel(channel).items() if s in FAILING]
    reports = _reports(channel)
    gtest, ctest = _sections(log)
    sole = sole_holders(failed, lambda test: test.rpartition("::")[2])
    texts = {}
    for test in failed:
        short = test.rpartition("::")[2]
        stretch = gtest.get(short, "") if sole.get(short) == test else ""
        stretch = stretch or ctest.get(test, "")
        texts[test] = "\n".join(t for t in (reports.get(test, ""), stretch) if t)
    return texts
