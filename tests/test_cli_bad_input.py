"""The `spice` entry point: a missing file, non-UTF-8 text or a bad value is one line, exit 1."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPICE = str(ROOT / ".venv" / "bin" / "spice")


def _spice(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "SPICE_DATA_DIR": str(tmp_path)}
    return subprocess.run(
        [SPICE, *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )


def test_bad_input_is_one_clear_line_never_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "bin.txt").write_bytes(b"\xff\xfe\x00bad")
    cases = {
        ("label-instance", "nope.jsonl", "--dry-run"): "nope.jsonl: No such file or directory",
        ("eval", "--gold", "bin.txt", "--predictions", "bin.txt"): "not UTF-8",
        (
            "label-issue",
            "--title",
            "x",
            "--body-file",
            "bin.txt",
            "--output-mode",
            "bogus",
        ): "output_mode",
        ("label-issue", "--title", "x", "--api-base", "not-a-url"): "not an http(s) URL",
    }
    for args, expected in cases.items():
        done = _spice(tmp_path, *args)
        assert done.returncode == 1, (args, done.stderr)
        assert "Traceback" not in done.stderr and expected in done.stderr, (args, done.stderr)
        assert done.stderr.strip().count("\n") == 0, done.stderr


def test_the_docs_placeholder_token_fails_at_once_saying_so(tmp_path: Path) -> None:
    env = {**os.environ, "SPICE_DATA_DIR": str(tmp_path), "SPICE_GITHUB_TOKEN": "ghp_..."}
    env["SPICE_GITHUB_API_URL"] = "https://api.github.invalid"  # never reached
    done = subprocess.run(
        [SPICE, "harvest", "OWNER/NAME", "--max", "50", "--no-label"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and "placeholder" in done.stderr, done.stderr
    assert done.stderr.strip().count("\n") == 0 and "retry" not in done.stderr
