"""Settings for service tests: everything under one temporary data directory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.settings import Settings
from tests.service.deliveries import SECRET


def service_settings(data_dir: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "data_dir": data_dir,
        "webhook_secret": SECRET.decode(),
        "job_retry_delay_s": 0.2,
    }
    return Settings(**(values | overrides))
