"""Secrets for the redaction tests, each placed so that cuts go through it, and the pieces of
one (4 characters or more) found in a text."""

from __future__ import annotations

API_KEY = "Wq7Zmx2Pv9kLt4rHd8nCy3bFj6sK"
"""A configured secret shaped like no known key: only the configured values find it."""
TOKEN = "ghp_Xb7Rk2Qm9Lw4Tz8Nc5Vh3Jd6Fs1Gp0Ya2Ue"
"""The App's GitHub token, configured and shaped like one."""
STRANGER = "ghp_Hk4Wd9Pz2Mq7Rt5Lx8Cv3Nb6Gj1Fs0Ye4Ta"
"""Nobody's token we know of: only its shape gives it away."""
PIECE = 4


def leaked(text: str, secret: str) -> list[str]:
    """Every piece of `secret` (PIECE characters) found in `text`."""
    pieces = {secret[i : i + PIECE] for i in range(len(secret) - PIECE + 1)}
    return sorted(p for p in pieces if p in text)
