"""On every path an error or a log excerpt takes out of a process, secrets cut on the way
leave no piece (4 characters or more): not in a stored row, a log, a comment, nor the CLI's
output.

Some engine code still cuts before anyone redacts (see the engine's `redaction` module): what
such a cut leaves of a configured secret at the text's ends is redacted where the App keeps or
shows the text. Those paths run here as they are."""

from __future__ import annotations

import codecs
import json
import logging
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.handlers.dispatch import handle_delivery
from app.harvest.build import Built, SweInstance
from app.harvest.store import HarvestStore
from app.harvest.validation_task import run_validation
from app.logging_setup import configure_logging
from app.redaction import secret_values
from app.settings import Settings
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
from tests.redaction_support import API_KEY, TOKEN, leaked
from tests.sandbox_attack import SPICE
from tests.service.deliveries import SECRET
from tests.service.github_worker_handler import make_handler
from tests.service.stack import build_stack, run_ready_tasks
from tests.validation_support import calc_repo_fixture, hunks, sandbox_fixture  # noqa: F401


@pytest.fixture
def restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


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
