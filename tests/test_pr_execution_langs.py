"""An opted-in pull request in a TypeScript repository: its tests run in the sandbox against
mutants of its fix, and the comment carries the test evidence, as for a Python one."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from app.handlers.dispatch import handle_delivery
from spice_engine.validate.bubblewrap import Bubblewrap
from tests.fakes.github_fixtures import (
    REPO,
    fake_github_fixture,  # noqa: F401
    make_deps,
    payload,
    scripted,
)
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.sample_project import hunks
from tests.lang_projects import project_instance, registry_problem
from tests.validation_support import sandbox_fixture  # noqa: F401

DATA = Path(__file__).parent / "data"
PR = 12


@pytest.mark.heavy  # an npm install and a TypeScript build in the sandbox: about half a minute
def test_a_typescript_pull_request_gets_the_test_evidence(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, tmp_path: Path, sandbox: Bubblewrap
) -> None:
    if why := registry_problem("registry.npmjs.org"):
        pytest.skip(f"cannot run here: {why}")
    row = project_instance(DATA / "lang_ts" / "calc", tmp_path / "src")
    bare = tmp_path / "mirror" / f"{REPO}.git"
    bare.parent.mkdir(parents=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(tmp_path / "src"), str(bare)], check=True)
    fake_github.put_file(REPO, ".github/spice.yml", "execute_tests: true\n")
    added = set(re.findall(r"^\+\+\+ b/(\S+)", row["test_patch"], re.M))
    files = hunks(row["patch"]) | hunks(row["test_patch"])
    fake_github.add_pull(
        REPO,
        PR,
        "Clamp at hi too",
        "clamp() let values above hi through",
        files=[
            {"filename": p, "patch": h, "status": "added" if p in added else "modified"}
            for p, h in files.items()
        ],
        base_sha=row["base_commit"],
        head_sha="7" * 40,
    )
    deps = make_deps(
        fake_github,
        fake_openai,
        data_dir=tmp_path / "data",
        git_base_url=f"file://{tmp_path / 'mirror'}",
        votes=1,
        execute_pull_requests=True,
    )
    fake_openai.responder = scripted([2])
    event = payload(fake_github, "pull_request", "opened", REPO, PR)
    out = handle_delivery("pull_request", event, "pr-ts", deps)
    assert out.ok, out.failure
    body = fake_github.issue_comments(REPO, PR)[0]["body"]
    assert "**Tests run against mutants of the fix:** The tests fail without the fix; " in body
    assert "own tests report it" in body
    # The fix's one mutable operator; `x >= hi` returns hi too (an equivalent mutant: telling
    # those apart is test strength's own work), so it survives and is shown as a diff.
    assert "1 of 1 mutants of the fix survive — e.g. `> hi → >= hi` in `clamp()`" in body
    assert "+  if (x >= hi) {" in body
