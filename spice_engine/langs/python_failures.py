"""What pytest reports of each failed test: its `-rA` summary line's message (`FAILED id -
message`) and its section of the failures (or errors) report, headed `____ Class.test ____`.

The log is what the tests printed too: this only ever tells why a test failed, never whether.
"""

from __future__ import annotations

import re

from spice_engine.validate.offline import sole_holders

_SUMMARY = re.compile(r"^(?:FAILED|ERROR) (\S+)(?: - (.*))?$")
_HEADLINE = re.compile(r"^_{3,} (.+?) _{3,}$")
_BANNER = re.compile(r"^={3,} .* ={3,}$")
_PHASE = re.compile(r"^ERROR at (?:setup|teardown|call) of ")


def _headline(test: str) -> str:
    """How pytest heads a test's section: its id past the file, `::` as `.`."""
    return ".".join(test.split("::")[1:]) if "::" in test else test


def _sections(log: str) -> dict[str, list[str]]:
    """Headline (its phase left out) -> the lines of each section so headed."""
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in log.splitlines():
        if head := _HEADLINE.match(line):
            current = found.setdefault(_PHASE.sub("", head.group(1)), [])
        elif _BANNER.match(line):
            current = None
        elif current is not None:
            current.append(line)
    return found


def failure_texts(log: str, failed: list[str]) -> dict[str, str]:
    """Each of `failed` (ids as the log parser read them) -> its message and its section. A
    section goes to the one failed test with its headline (the same name in two files: to
    neither)."""
    messages: dict[str, list[str]] = {}
    for line in log.splitlines():
        if (found := _SUMMARY.match(line)) and found.group(2):
            messages.setdefault(found.group(1), []).append(found.group(2))
    sections = _sections(log)
    sole = sole_holders(failed, _headline)
    texts = {}
    for test in failed:
        said = list(messages.get(test, []))
        head = _headline(test)
        if sole.get(head) == test:
            said += sections.get(head, [])
        texts[test] = "\n".join(said)
    return texts
