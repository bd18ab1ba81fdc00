"""The PyGithub-backed client against the fake: reads, idempotent writes, the assembled diff."""

from __future__ import annotations

from unidiff import PatchSet

from app.github.client import PullFile, pull_diff
from app.github.sessions import session_factory
from tests.fakes.github_fixtures import (
    FAST_RETRIES,
    REPO,
    fake_github_fixture,  # noqa: F401
    settings_for,
)
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI


def test_pull_diff_parses_as_a_unified_diff() -> None:
    files = [
        PullFile(filename="a.py", status="modified", patch="@@ -1 +1 @@\n-x = 1\n+x = 2"),
        PullFile(filename="new.py", status="added", patch="@@ -0,0 +1 @@\n+y = 1"),
        PullFile(filename="old.py", status="removed", patch="@@ -1 +0,0 @@\n-z = 1"),
        PullFile(
            filename="b.py", status="renamed", previous_filename="c.py", patch="@@ -1 +1 @@\n-q\n+r"
        ),
        PullFile(filename="logo.png", status="added", patch=None),
    ]
    patch = PatchSet(pull_diff(files))
    assert [f.path for f in patch] == ["a.py", "new.py", "old.py", "b.py"]
    assert patch[1].is_added_file and patch[2].is_removed_file
    assert patch[3].source_file == "a/c.py" and patch[3].target_file == "b/b.py"


def test_client_reads_and_idempotent_writes(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI
) -> None:
    gh = fake_github
    gh.add_pull(REPO, 4, "PR", "body", commits=["fix: closes #2"], closing=[(REPO, 2)])
    gh.put_file(REPO, "docs/x.md", "hello")
    repo = session_factory(settings_for(gh, fake_openai), FAST_RETRIES)(None).repo(REPO)
    assert repo.default_branch == "main"
    assert repo.read_default_branch_file("docs/x.md") == "hello"
    assert repo.read_default_branch_file("missing.yml") is None
    assert repo.closing_issue_refs(4) == [(REPO, 2)]
    assert [c.message for c in repo.pull_commits(4)] == ["fix: closes #2"]
    assert repo.get_pull(4).is_pull_request and repo.get_issue(4).is_pull_request
    repo.create_label("x", "ffffff", "d")
    repo.create_label("x", "ffffff", "d")  # created meanwhile elsewhere: tolerated
    repo.remove_label(4, "not-there")  # already absent: the goal state holds
    assert repo.permission("nobody") == "read"
    assert len(gh.writes_to("POST", "/labels")) == 1
