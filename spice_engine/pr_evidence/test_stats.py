"""Shape of a test patch: tests added, existing tests modified, parametrised cases added."""

from __future__ import annotations

import re

from spice_engine.pr_evidence.introduced import image_symbols
from spice_engine.pr_evidence.models import TestStats
from spice_engine.pr_evidence.patch_parse import FileDiff

_TEST_DEF = re.compile(r"\bdef (test\w*)")
_CASE_TABLE = re.compile(r"parametrize|subTest|cases\s*=|params\s*=")
# An added line that is one entry of a case table: a tuple, list, literal or pytest.param.
_CASE_LINE = re.compile(r"^\s*(\(|\[|['\"\d-]|pytest\.param\()")


def test_stats(tests: list[FileDiff]) -> TestStats:
    stats = TestStats(test_files=len(tests))
    for diff in tests:
        added_lines = {line.number for line in diff.added}
        added_tests = {
            s.name
            for s in image_symbols(diff.post_hunks).names
            if s.kind == "def" and s.name.startswith("test") and s.line in added_lines
        }
        stats.tests_added += len(added_tests)
        modified: set[str] = set()
        for hunk, section in zip(diff.post_hunks, diff.sections, strict=True):
            if not any(line.changed for line in hunk):
                continue
            # A changed line belongs to the nearest test def above it, or the header's test.
            header = _TEST_DEF.search(section)
            current = header.group(1) if header else ""
            for line in hunk:
                if match := _TEST_DEF.search(line.text):
                    current = match.group(1)
                elif line.changed and line.text.strip() and current and current not in added_tests:
                    modified.add(current)
            if _CASE_TABLE.search("\n".join(line.text for line in hunk)):
                stats.parametrized_cases += sum(
                    1 for line in hunk if line.changed and _CASE_LINE.match(line.text)
                )
        stats.tests_modified += len(modified)
    return stats
