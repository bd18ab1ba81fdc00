"""Log lines as text or JSON, the same in CLI commands and in the served app's processes."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

from app.log_format import log_formatter

ROOT = Path(__file__).resolve().parents[1]


def _record(message: str, exc: bool = False) -> logging.LogRecord:
    exc_info = None
    if exc:
        try:
            raise ValueError("boom")
        except ValueError:
            exc_info = sys.exc_info()
    return logging.LogRecord("app.web", logging.WARNING, __file__, 1, message, None, exc_info)


def test_json_lines_carry_time_level_logger_message_and_the_traceback() -> None:
    line = log_formatter("json").format(_record('refused delivery=d1 reason="bad" "quoted"', True))
    entry = json.loads(line)
    assert entry["level"] == "WARNING" and entry["logger"] == "app.web"
    assert entry["message"] == 'refused delivery=d1 reason="bad" "quoted"'
    assert entry["time"] and "ValueError: boom" in entry["exc_info"]
    assert "\n" not in line
    text = log_formatter("text").format(_record("plain"))
    assert text.endswith("WARNING app.web plain")


def test_the_served_apps_and_gunicorns_loggers_follow_spice_log_format() -> None:
    code = (
        "import logging\n"
        "from gunicorn.glogging import Logger\n"
        "from gunicorn.config import Config\n"
        "Logger(Config())\n"  # gunicorn's own handlers, as its arbiter makes them
        "from app.web.gunicorn_conf import on_starting\n"
        "on_starting(None)\n"
        "logging.getLogger('app.web').info('up key=sk-abcdefghijklmnopqrstuvwx')\n"
        "logging.getLogger('gunicorn.error').info('Booting worker with pid: 1')\n"
    )
    env = {**os.environ, "SPICE_LOG_FORMAT": "json", "SPICE_LOG_LEVEL": "INFO"}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    ours, theirs = (json.loads(line) for line in done.stderr.strip().splitlines()[-2:])
    assert ours["message"] == "up key=[redacted]" and ours["logger"] == "app.web"
    assert theirs["logger"] == "gunicorn.error" and "Booting worker" in theirs["message"]
