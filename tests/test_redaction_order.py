"""Text is redacted before it is cut. A secret split by a cut is no longer what the redactor
looks for: a probe saw 6 characters of a token reach a log. Here each secret is placed so that
the cuts go through it (an excerpt's, an earlier cut's in the engine, a log format's, an
invisible character's), and nothing of it (4 characters or more) may come out; and errors and
logs are cut only by `redacted_excerpt`."""

from __future__ import annotations

import logging
import re
from pathlib import Path

from app.github.untrusted_text import code_block, code_span, neutralise
from app.redaction import RedactingFilter, redact, redacted_excerpt, secret_values
from app.settings import Settings
from spice_engine.langs.python_envbuild import excerpt
from tests.redaction_support import API_KEY, PIECE, STRANGER, TOKEN, leaked


def configured(tmp_path: Path) -> tuple[str, ...]:
    return secret_values(Settings(data_dir=tmp_path, api_key=API_KEY, github_token=TOKEN))


def test_an_excerpt_keeps_no_piece_of_a_secret_wherever_it_cuts(tmp_path: Path) -> None:
    secrets = configured(tmp_path)
    for secret in (API_KEY, TOKEN, STRANGER):
        text = f"fatal: could not read from {secret} (exit 128)"
        start = text.index(secret)
        for at in range(start + 1, start + len(secret)):
            cuts = {
                "head": redacted_excerpt(text, head=at, secrets=secrets),
                "tail": redacted_excerpt(text, tail=len(text) - at, secrets=secrets),
                "both": redacted_excerpt(text, head=at, tail=len(text) - at - 1, secrets=secrets),
            }
            for how, out in cuts.items():
                assert not leaked(out, secret), (secret, how, at, out)


def test_a_cut_made_before_redaction_loses_what_it_left_of_a_configured_secret(
    tmp_path: Path,
) -> None:
    """The engine's old cuts (`[:n]`, `[-n:]`, its `excerpt`, the sandbox's capped output),
    redacted afterwards as the App redacts the details it keeps."""
    secrets = configured(tmp_path)
    for secret in (API_KEY, TOKEN):
        text = "x" * 3000 + f" near {secret} in " + "y" * 3000
        start = text.index(secret)
        for at in range(start + 1, start + len(secret)):
            head, tail = text[:at], text[at:]
            cuts = {
                "[:n]": head,
                "[-n:]": tail,
                "excerpt head": excerpt(text, head=at, tail=100),
                "excerpt tail": excerpt(text, head=100, tail=len(text) - at),
                "sandbox": f"{head}\n[... 4096 bytes of output cut ...]\n{tail}",
            }
            for how, cut in cuts.items():
                out = redact(cut, secrets, cut_edges=True)
                assert not leaked(out, secret), (secret, how, at, out)
    # Nobody's token: its start cut short is still a key's start, wherever the cut is.
    text = f"token {STRANGER} refused"
    for at in range(text.index(STRANGER) + PIECE, text.index(STRANGER) + len(STRANGER)):
        assert not leaked(redact(text[:at]), STRANGER), at


def test_the_rest_of_a_key_at_a_cut_goes_and_ordinary_words_stay() -> None:
    """Where only the shape tells a key, its end after a cut is known by looking like key
    material; the words a detail begins with are not."""
    body = STRANGER.removeprefix("ghp_")
    for at in (4, 11, 20, 30):
        assert redact(body[at:] + " refused", cut_edges=True) == "[redacted] refused"
        assert redact(f"[... 80 characters ...]\n{body[at:]} refused") == (
            "[... 80 characters ...]\n[redacted] refused"
        )
    for detail in (
        "base_commit 'abc' not in repo",
        "ModuleNotFoundError: No module named 'six'",
        "HTTPError: 500",
        "uv pip install failed (exit 1)",
        "2025 runs",
    ):
        assert redact(detail, cut_edges=True) == detail
    # Without a cut at the text's start, its first word is the author's, whatever it looks like.
    assert redact("py311 not found") == "py311 not found"
    # A configured PEM key's dashes are no piece of it: pytest's separators stay.
    pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx3b\n-----END RSA PRIVATE KEY-----"
    line = "----- Captured stdout call -----"
    assert redact(line, (pem,), cut_edges=True) == line


def test_a_log_line_cut_by_its_format_keeps_no_piece_of_a_secret(tmp_path: Path) -> None:
    """`%.40s` cuts an argument before the log's redaction sees the line."""
    secrets = configured(tmp_path)
    for secret in (API_KEY, TOKEN):
        for width in range(PIECE, len(secret)):
            record = logging.LogRecord(
                "spice", logging.WARNING, __file__, 1, f"refused key=%.{width}s", (secret,), None
            )
            RedactingFilter(secrets).filter(record)
            assert not leaked(record.getMessage(), secret), (secret, width)


def test_a_character_hidden_inside_a_key_does_not_hide_it_from_a_comment() -> None:
    """Invisible characters are removed before redaction: removed after, they would have kept
    the key from matching, then joined it up again in the comment."""
    hidden = STRANGER[:12] + "\u200b" + STRANGER[12:]
    for shown in (
        neutralise(f"token {hidden} refused", 60),
        code_block(f"token = '{hidden}'", limit=30),
        code_span(f"token = '{hidden}'", limit=30),
    ):
        assert not leaked(shown, STRANGER), shown


RAW_CUT = re.compile(
    r"(?:exc\)|detail|log|stderr|stdout|error|message)[\]'\"]*\s*\[\s*-?[\w.]*\s*:\s*-?[\w.]*\s*\]"
)
"""Slicing an error, a detail or a log: a cut that could split a secret."""
PENDING: set[str] = set()
"""Files another change rewrites, still cutting their details before redacting (the App
redacts those details' ends where it keeps them): drop each one once it calls
`redacted_excerpt`."""
LOOKS_ONLY = {"spice_engine/validate/bubblewrap.py": "_LOOPBACK_RACE in done.log[:300]"}
"""Slices that are searched, never kept."""


def test_errors_and_logs_are_cut_only_by_redacted_excerpt() -> None:
    root = Path(__file__).resolve().parents[1]
    found = [
        f"{path.relative_to(root)}:{n}: {line.strip()}"
        for folder in ("app", "spice_engine")
        for path in sorted((root / folder).rglob("*.py"))
        if str(path.relative_to(root)) not in PENDING
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if RAW_CUT.search(line) and LOOKS_ONLY.get(str(path.relative_to(root)), "\0") not in line
    ]
    assert found == []
