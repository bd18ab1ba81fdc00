"""The key that signs dashboard sign-ins: its own secret, never derived from another one.

`SPICE_DASHBOARD_SESSION_KEY` when set; otherwise a random key made once in the data
directory (mode 0600), which every web worker of this host reads. Changing the setting, or
deleting the file, signs everyone out.
"""

from __future__ import annotations

import secrets
from pathlib import Path

from app.settings import ConfigError, Settings
from app.store.private_files import read_or_create

KEY_FILE = "dashboard-session.key"
KEY_BYTES = 32
MIN_KEY_CHARS = 32


def key_file(settings: Settings) -> Path:
    return settings.data_dir / KEY_FILE


def _new_key() -> bytes:
    return (secrets.token_hex(KEY_BYTES) + "\n").encode()


def session_key(settings: Settings) -> bytes:
    """The signing key. Read on every use, not cached: a deleted file ends the sessions of
    every worker at once, not of each only when it restarts."""
    if settings.dashboard_session_key is not None:
        return settings.dashboard_session_key.get_secret_value().encode()
    path = key_file(settings)
    key = read_or_create(path, _new_key).strip()
    if len(key) < MIN_KEY_CHARS:
        raise ConfigError(f"{path} holds no usable key: delete it and a new one is made")
    return key
