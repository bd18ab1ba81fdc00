"""The real `multi-swe-bench` package as referee of our Multi-SWE-bench records: its own
`Dataset` class loads each line, and its own `Report` splits the loaded runs into f2p, p2p,
s2p and n2p again (in a venv of its own, as tests/swebench_referee.py makes swebench's)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.swebench_referee import referee_venv

MSB = "multi-swe-bench==1.1.2"
LOAD = """
import json, sys
from multi_swe_bench.harness.dataset import Dataset
from multi_swe_bench.harness.report import Report

out = {}
for line in open(sys.argv[1]):
    if not line.strip():
        continue
    data = Dataset.from_json(line)
    again = Report(
        org=data.org, repo=data.repo, number=data.number, run_result=data.run_result,
        test_patch_result=data.test_patch_result, fix_patch_result=data.fix_patch_result,
    )
    groups = ("fixed_tests", "f2p_tests", "p2p_tests", "s2p_tests", "n2p_tests")
    out[json.loads(line)["instance_id"]] = {
        "id": data.id,
        "lang": data.lang,
        "loaded": {g: sorted(getattr(data, g)) for g in groups},
        "recomputed": {g: sorted(getattr(again, g)) for g in groups},
        "valid": again.valid,
        "fix_passed": data.fix_patch_result.passed_count,
    }
print(json.dumps(out))
"""


@pytest.fixture(scope="session", name="msb_referee")
def msb_referee_fixture() -> Path:
    return referee_venv(MSB)


def load_records(referee: Path, records: Path) -> dict[str, dict[str, Any]]:
    """What multi-swe-bench makes of each record, by our instance id."""
    done = subprocess.run(
        [str(referee), "-c", LOAD, str(records)], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    loaded: dict[str, dict[str, Any]] = json.loads(done.stdout.strip().splitlines()[-1])
    return loaded
