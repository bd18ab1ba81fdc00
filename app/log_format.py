"""How every process formats its log lines: text for people, JSON lines for log pipelines."""

from __future__ import annotations

import logging
from typing import Literal

from pythonjsonlogger.json import JsonFormatter

LogFormat = Literal["text", "json"]
TEXT = "%(asctime)s %(levelname)s %(name)s %(message)s"


def log_formatter(kind: str) -> logging.Formatter:
    """`json`: one object per line (`time`, `level`, `logger`, `message`, and `exc_info` when
    there is one); anything else: the text line."""
    if kind == "json":
        return JsonFormatter(
            "%(asctime)s %(levelname)s %(name)s %(message)s",
            rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
        )
    return logging.Formatter(TEXT)
