"""Text is redacted before it is cut, on every path an error or a log excerpt takes out of a
process. A secret split by a cut is no longer what the redactor looks for: a probe saw 6
characters of a token reach a log. Here each secret is placed so that the cuts go through it,
and nothing of it (4 characters or more) may come out: not in a stored row, a log, a comment,
nor the CLI's output.

Some engine code still cuts before anyone redacts (see the engine's `redaction` module): what
such a cut leaves of a configured secret at the text's ends is redacted where the App keeps or
shows the text. Those paths run here as they are."""

from __future__ import annotations

import codecs
import json
import logging
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.github.untrusted_text import code_block, code_span, neutralise
from app.handlers.dispatch import handle_delivery
from app.harvest.build import Built, SweInstance
from app.harvest.store import HarvestStore
from app.harvest.validation_task import run_validation
from app.logging_setup import configure_logging
from app.redaction import RedactingFilter, redact, redacted_excerpt, secret_values
from app.settings import Settings
from spice_engine.langs.python_envbuild import excerpt
from spice_engine.validate.bubblewrap import Bubblewrap
from tests.fakes.github_fixtures import (  # noqa: F401
    REPO,
    fake_github_fixture,
    make_deps,
    payload,
    scripted,
)
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.fakes.sample_project import CALC_FIX, instance_of
from tests.harvest_support import sqlite_store
from tests.sandbox_attack import SPICE
from tests.service.deliveries import SECRET
from tests.service.github_worker_handler import make_handler
from tests.service.stack import build_stack, run_ready_tasks
from tests.validation_support import calc_repo_fixture, hunks, sandbox_fixture  # noqa: F401

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


def configured(tmp_path: Path) -> tuple[str, ...]:
    return secret_values(Settings(data_dir=tmp_path, api_key=API_KEY, github_token=TOKEN))


@pytest.fixture
def restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


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


@pytest.mark.parametrize("shift", [0, 1])
def test_a_provider_error_cut_through_the_key_it_echoes_leaks_none_of_it(
    shift: int,
    tmp_path: Path,
    fake_github: FakeGitHub,
    fake_openai: FakeOpenAI,
    capsys: pytest.CaptureFixture[str],
    restore_logging: None,
) -> None:
    """The probe's path: the model client keeps 300 characters of a provider's error. The echo
    is the key over and over, so the cut goes through one copy (one of the two shifts at least:
    a cut between two copies in one is inside a copy in the other)."""
    config = Settings(
        data_dir=tmp_path,
        webhook_secret=SECRET.decode(),
        model="openai/fake",
        api_base=fake_openai.api_base,
        api_key=API_KEY,
        output_mode="json_object",
        max_attempts=1,
        github_api_url=fake_github.base_url,
        github_token=fake_github.bot_token,
        bot_login=fake_github.bot_login,
    )
    echo = "k" * shift + API_KEY * 30
    fake_openai.responder = lambda _request: Reply(status=401, error=f"Incorrect key: {echo}")
    configure_logging("INFO", "text", secret_values(config))
    fake_github.add_issue(REPO, 4, "Crash on empty input", "`parse('')` raises KeyError.")
    stack = build_stack(config, runner_handler=make_handler(config))
    stack.deliver(payload(fake_github, "issues", "opened", REPO, 4), delivery_id="r1")
    run_ready_tasks(stack.queue)

    job = stack.job(f"{REPO}#4")
    assert job.error is not None and "[redacted]" in job.error
    assert not leaked(job.error, API_KEY), job.error
    logged = capsys.readouterr().err
    assert "job error" in logged and not leaked(logged, API_KEY)
    for comment in fake_github.issue_comments(REPO, 4):
        assert not leaked(comment["body"], API_KEY)


def failing_conftest() -> str:
    """A conftest whose error ends the test log: the token over and over, then the key over and
    over, so that the engine's cut 4000 characters from the end goes through a copy of the
    token and the App's 300 from the end through one of the key. The conftest spells them in
    rot13: the instance's own fields (its test patch) hold none of them."""
    message = "x" * 40 + TOKEN * 120 + API_KEY * 40
    assert (4000 - 1 - len(API_KEY) * 40) % len(TOKEN) and (300 - 1) % len(API_KEY)
    hidden = codecs.encode(message, "rot13")
    return f"import codecs\n\nraise RuntimeError(codecs.decode({hidden!r}, 'rot13'))\n"


def assert_clean(text: str, where: str) -> None:
    for secret in (API_KEY, TOKEN):
        assert not leaked(text, secret), (where, secret, leaked(text, secret))


@pytest.fixture(name="failing_instance")
def failing_instance_fixture(calc_repo: tuple[Path, dict[str, str]]) -> dict[str, str]:
    repo, _ = calc_repo
    test = ("tests/conftest.py", failing_conftest())
    row = instance_of(repo, "octo/calc", fix=CALC_FIX, test=test, problem="add() subtracts")
    assert_clean(json.dumps(row), "the instance itself")
    return row


def test_spice_validate_writes_and_says_no_piece_of_a_secret_cut_by_the_engine(
    tmp_path: Path,
    calc_repo: tuple[Path, dict[str, str]],
    failing_instance: dict[str, str],
    sandbox: Bubblewrap,
) -> None:
    rows, out = tmp_path / "rows.jsonl", tmp_path / "out.jsonl"
    rows.write_text(json.dumps(failing_instance) + "\n")
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "PYENV_ROOT": str(Path.home() / ".pyenv"),
        "SPICE_DATA_DIR": str(tmp_path / "data"),
        "SPICE_API_KEY": API_KEY,
        "SPICE_GITHUB_TOKEN": TOKEN,
    }
    args = ["validate", str(rows), "--out", str(out), "--repo", f"octo/calc={calc_repo[0]}"]
    done = subprocess.run(
        [SPICE, *args], env=env, capture_output=True, text=True, timeout=600, check=False
    )
    [row] = [json.loads(line) for line in out.read_text().splitlines()]
    validation = row["spice"]["validation"]
    assert validation["status"] == "tests_did_not_run", validation
    # The engine cut the log where tokens stand (redacted first, so its marker leads).
    assert validation["detail"].startswith("[... ") and "[redacted]" in validation["detail"]
    assert_clean(out.read_text(), "the JSONL row")
    assert_clean(done.stdout + done.stderr, "the CLI's output")


def test_the_apps_store_keeps_no_piece_of_a_secret_cut_by_the_engine(
    tmp_path: Path,
    calc_repo: tuple[Path, dict[str, str]],
    failing_instance: dict[str, str],
    sandbox: Bubblewrap,
    caplog: pytest.LogCaptureFixture,
) -> None:
    mirror = tmp_path / "mirror" / "octo" / "calc.git"
    mirror.parent.mkdir(parents=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(calc_repo[0]), str(mirror)], check=True)
    settings = Settings(
        data_dir=tmp_path / "data",
        git_base_url=f"file://{tmp_path / 'mirror'}",
        api_key=API_KEY,
        github_token=TOKEN,
    )
    store: HarvestStore = sqlite_store(tmp_path)
    fields = {k: v for k, v in failing_instance.items() if k in SweInstance.model_fields}
    store.save(Built(instance=SweInstance(**fields), issues=[], pr_number=1), None)

    with caplog.at_level(logging.INFO):
        status = run_validation(settings, store, failing_instance["instance_id"])
    assert status == "tests_did_not_run"
    [stored] = store.instances()
    detail = stored.labels["validation"]["detail"]
    assert detail.startswith("[... ") and "[redacted]" in detail
    assert_clean(json.dumps(stored.labels), "the stored row")
    assert_clean(caplog.text, "the log")


def test_a_pull_requests_comment_shows_no_piece_of_a_secret_cut_on_its_way(
    tmp_path: Path,
    calc_repo: tuple[Path, dict[str, str]],
    failing_instance: dict[str, str],
    fake_github: FakeGitHub,
    fake_openai: FakeOpenAI,
    sandbox: Bubblewrap,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A pull request whose tests cannot run: the engine cuts the log (4000 from the end), the
    App keeps its last 300 characters for the comment's note, the comment cuts the note."""
    mirror = tmp_path / "mirror" / f"{REPO}.git"
    mirror.parent.mkdir(parents=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(calc_repo[0]), str(mirror)], check=True)
    fake_github.tokens[TOKEN] = (fake_github.bot_login, float("inf"))
    fake_github.put_file(REPO, ".github/spice.yml", "execute_tests: true\n")
    files = hunks(failing_instance["patch"]) | hunks(failing_instance["test_patch"])
    fake_github.add_pull(
        REPO,
        10,
        "Fix add",
        "add() returned a - b",
        files=[
            {
                "filename": path,
                "patch": hunk,
                "status": "added" if "conftest" in path else "modified",
            }
            for path, hunk in files.items()
        ],
        base_sha=failing_instance["base_commit"],
        head_sha="5" * 40,
    )
    deps = make_deps(
        fake_github,
        fake_openai,
        data_dir=tmp_path / "data",
        git_base_url=f"file://{tmp_path / 'mirror'}",
        votes=1,
        execute_pull_requests=True,
        api_key=API_KEY,
        github_token=TOKEN,
    )
    fake_openai.responder = scripted([2])
    event = payload(fake_github, "pull_request", "opened", REPO, 10)
    with caplog.at_level(logging.INFO):
        out = handle_delivery("pull_request", event, "pr-1", deps)
    assert out.ok, out.failure
    [comment] = fake_github.issue_comments(REPO, 10)
    assert (
        "tests executed but not measured: error validation: tests\\_did\\_not\\_run"
        in (comment["body"])
    )
    assert_clean(comment["body"], "the comment")
    assert_clean(caplog.text, "the log")
    assert_clean(out.failure.message if out.failure else "", "the outcome")


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
