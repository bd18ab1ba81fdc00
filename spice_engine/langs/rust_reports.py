"""What a Rust run's channel says: each test's status (libtest's `test NAME ... ok` lines) and
what each failed test printed (libtest's `---- NAME stdout ----` sections), each test named
`<target's source file>::<libtest name>` from cargo's JSON artifact messages."""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Iterator

from spice_engine.langs.base import TESTBED
from spice_engine.validate.outcomes import Outcomes, TestStatus

_RUNNING = re.compile(r"^\s*Running (?:unittests )?(.+?) \((.+)\)\s*$")
_RESULT = re.compile(r"^test (.+?)(?: - should panic)? \.\.\. (ok|FAILED|ignored)\b")
_STATUS = {"ok": TestStatus.PASSED, "FAILED": TestStatus.FAILED, "ignored": TestStatus.SKIPPED}
_SECTION = re.compile(r"^---- (.+?) std(?:out|err) ----$")
_SECTION_END = re.compile(r"^(?:failures:|test result: |successes:)")


def _artifact(line: str) -> dict[str, str]:
    """A test binary's file name -> its target's source file (relative to the tree)."""
    try:
        message = json.loads(line)
    except ValueError:
        return {}
    if not isinstance(message, dict) or not message.get("executable"):
        return {}
    source = str((message.get("target") or {}).get("src_path", ""))
    source = source.removeprefix(TESTBED + "/")
    return {posixpath.basename(str(message["executable"])): source}


def _by_target(channel: str) -> Iterator[tuple[str, str]]:
    """(the running binary's target, line) for each line of libtest's output."""
    sources: dict[str, str] = {}
    target = ""
    for line in channel.splitlines():
        if line.startswith("{"):
            sources.update(_artifact(line))
        elif running := _RUNNING.match(line):
            target = sources.get(posixpath.basename(running.group(2)), running.group(1))
        else:
            yield target, line


def outcomes(channel: str) -> Outcomes:
    """Each test that ended, with its status."""
    found: Outcomes = {}
    for target, line in _by_target(channel):
        if result := _RESULT.match(line):
            found[f"{target}::{result.group(1)}"] = _STATUS[result.group(2)]
    return found


def failure_texts(channel: str) -> dict[str, str]:
    """What each failed test printed (its panic message among it), as libtest shows it after
    the binary's tests ended."""
    failed = {t for t, s in outcomes(channel).items() if s == TestStatus.FAILED}
    printed: dict[str, list[str]] = {}
    current: str | None = None
    for target, line in _by_target(channel):
        if section := _SECTION.match(line):
            current = f"{target}::{section.group(1)}"
        elif _SECTION_END.match(line):
            current = None
        elif current is not None:
            printed.setdefault(current, []).append(line)
    return {t: "\n".join(printed[t]).strip() for t in failed if t in printed}
