"""An open pull request's tests run against mutants of its fix, through the App's handler and
the fake GitHub: with weak tests a survivor is reported in the comment (a line of fact and the
wrong fix's diff) and reaches the test-adequacy prompt; with a strong test, none. Off unless the
operator and the repository both ask; once per head commit."""

from __future__ import annotations

import json
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from app.handlers.deps import HandlerDeps
from app.handlers.dispatch import handle_delivery
from app.handlers.outcome import HandlerOutcome
from spice_engine.validate.bubblewrap import Bubblewrap
from tests.fakes.github_fixtures import (
    REPO,
    fake_github_fixture,  # noqa: F401
    make_deps,
    payload,
    scripted,
    user_text,
)
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI, Reply, request_schema
from tests.strength_support import FIX, STRONG, WEAK, calc_instance
from tests.validation_support import hunks, sandbox_fixture  # noqa: F401

PR = 10


@pytest.fixture(name="world", scope="module")
def world_fixture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The App's data directory and the mirror it clones from, shared by the module's tests:
    one environment for all (every instance has the same base commit)."""
    return tmp_path_factory.mktemp("world")


def _open_pull(gh: FakeGitHub, world: Path, test: str, head: str, ask: bool = True) -> None:
    """The calc project as REPO (a mirror the App clones), with an open PR at `head`: the fix
    and `test`."""
    repo, row = calc_instance(Path(tempfile.mkdtemp(dir=world)), test, FIX)
    bare = world / "mirror" / f"{REPO}.git"
    if not bare.exists():
        bare.parent.mkdir(parents=True)
        subprocess.run(["git", "clone", "-q", "--bare", str(repo), str(bare)], check=True)
    if ask:
        gh.put_file(REPO, ".github/spice.yml", "execute_tests: true\n")
    files = hunks(row["patch"]) | hunks(row["test_patch"])
    gh.add_pull(
        REPO,
        PR,
        "Fix add",
        "add() returned b",
        files=[{"filename": path, "patch": hunk} for path, hunk in files.items()],
        base_sha=row["base_commit"],
        head_sha=head * 40,
    )


def _deliver(
    gh: FakeGitHub,
    model: FakeOpenAI,
    world: Path,
    responder: Callable[[dict[str, Any]], Reply] | None = None,
    **settings: object,
) -> HandlerOutcome:
    deps: HandlerDeps = make_deps(
        gh,
        model,
        data_dir=world / "data",
        git_base_url=f"file://{world / 'mirror'}",
        votes=1,
        **settings,
    )
    model.responder = responder or scripted([2])
    event = payload(gh, "pull_request", "opened", REPO, PR)
    out = handle_delivery("pull_request", event, f"pr-{len(gh.writes)}", deps)
    assert out.ok, out.failure
    return out


def _tests_prompt(model: FakeOpenAI) -> str:
    return next(user_text(r) for r in model.requests if "test adequacy" in user_text(r))


def test_weak_tests_show_a_surviving_wrong_fix_in_the_comment_and_the_prompt(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, world: Path, sandbox: Bubblewrap
) -> None:
    _open_pull(fake_github, world, WEAK, "1")
    _deliver(fake_github, fake_openai, world, execute_pull_requests=True)
    body = fake_github.issue_comments(REPO, PR)[0]["body"]
    assert "**Tests run against mutants of the fix:** The tests fail without the fix; " in body
    assert "1 of 2 mutants of the fix survive — e.g. `+ → -` in `add()`" in body
    assert "<summary>A wrong fix these tests accept</summary>" in body
    assert "```diff\n--- a/calc.py\n+++ b/calc.py\n" in body and "+    return a - b\n" in body
    prompt = _tests_prompt(fake_openai)
    assert "<mutants>" in prompt and "+    return a - b" in prompt
    kept = list((world / "data" / "pr-strength").rglob(f"{'1' * 40}.json"))
    assert len(kept) == 1  # one run per head commit, reused by the next event on it


def test_a_strong_test_leaves_no_survivor(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, world: Path, sandbox: Bubblewrap
) -> None:
    _open_pull(fake_github, world, STRONG, "2")
    _deliver(fake_github, fake_openai, world, execute_pull_requests=True)
    body = fake_github.issue_comments(REPO, PR)[0]["body"]
    assert "The tests fail without the fix; all 2 mutants of the fix are caught (as the PR" in body
    assert "own tests report it" in body  # not presented as fact: the tests could forge it
    assert "A wrong fix these tests accept" not in body
    assert "<mutants>" not in _tests_prompt(fake_openai)


def test_nothing_runs_unless_both_the_operator_and_the_repository_ask(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    _open_pull(fake_github, tmp_path, WEAK, "3")  # the repository asks; the operator did not
    _deliver(fake_github, fake_openai, tmp_path)
    body = fake_github.issue_comments(REPO, PR)[0]["body"]
    assert "mutants of the fix" not in body
    assert not (tmp_path / "data" / "pr-strength").exists()
    assert not (tmp_path / "data" / "envs").exists()


CATCHES = "from calc import add\n\n\ndef test_adds():\n    assert add(2, 3) == 5\n"


def _writes(test: str) -> Callable[[dict[str, Any]], Reply]:
    """The PR pipeline's votes as scripted; asked for a catching test, `test`."""
    votes = scripted([2])

    def respond(request: dict[str, Any]) -> Reply:
        if "test_code" not in (request_schema(request) or {}).get("properties", {}):
            return votes(request)
        answer = json.dumps({"test_code": test, "explanation": "2 + 3 tells them apart"})
        return Reply(texts=[answer] * int(request.get("n") or 1))

    return respond


def test_a_written_test_that_catches_the_survivor_is_shown_under_it(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, world: Path, sandbox: Bubblewrap
) -> None:
    _open_pull(fake_github, world, WEAK, "4")
    _deliver(fake_github, fake_openai, world, _writes(CATCHES), execute_pull_requests=True)
    body = fake_github.issue_comments(REPO, PR)[0]["body"]
    assert "e.g. `+ → -` in `add()`, a line the tests execute but do not check" in body
    assert "<summary>A test that would catch it (passes on the fix, fails on this wrong fix" in body
    assert "```python\n" + CATCHES in body
