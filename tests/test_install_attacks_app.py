"""The App, as root under its umask 077: an opted-in pull request whose files carry a
`.pnpmfile.cjs` is run first; a clean pull request of the same repository, with the same data
folder, must get the evidence it gets alone (issue 46). Before installs saw only their
inputs, pnpm ran the file at install and it made the repository's npm cache unreadable: the
clean pull request's environment could not be built."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

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
from tests.fakes.sample_project import pull_files
from tests.install_attack_support import EVIL_JS, MARK, every_attack
from tests.lang_projects import project_instance, registry_problem
from tests.validation_support import sandbox_fixture  # noqa: F401

DATA = Path(__file__).parent / "data"
HOSTILE = {
    ".pnpmfile.cjs": EVIL_JS + "module.exports = { hooks: {} };\n",
    "pnpm-lock.yaml": "lockfileVersion: '9.0'\n",
}
EVIDENCE = re.compile(r"^\*\*Tests run against mutants of the fix:\*\*.*$", re.M)


@contextmanager
def _umask(mask: int) -> Iterator[None]:
    before = os.umask(mask)
    try:
        yield
    finally:
        os.umask(before)


def _added(path: str, text: str) -> dict[str, str]:
    lines = text.splitlines()
    hunk = f"@@ -0,0 +1,{len(lines)} @@\n" + "".join(f"+{line}\n" for line in lines)
    return {"filename": path, "patch": hunk, "status": "added"}


def _pull(gh: FakeGitHub, row: dict[str, Any], number: int, more: dict[str, str]) -> None:
    gh.add_pull(
        REPO,
        number,
        "Make add add",
        "add() subtracted",
        files=pull_files(row) + [_added(p, t) for p, t in more.items()],
        base_sha=row["base_commit"],
        head_sha=f"{number:x}" * 40,  # one head a pull request
    )


def _evidence(gh: FakeGitHub, fake_openai: FakeOpenAI, data: Path, mirror: Path, pr: int) -> str:
    deps = make_deps(
        gh,
        fake_openai,
        data_dir=data,
        git_base_url=f"file://{mirror}",
        votes=1,
        execute_pull_requests=True,
    )
    fake_openai.responder = scripted([2])
    with _umask(0o077):
        out = handle_delivery(
            "pull_request", payload(gh, "pull_request", "opened", REPO, pr), f"pr-{pr}", deps
        )
    assert out.ok, out.failure
    body = gh.issue_comments(REPO, pr)[-1]["body"]
    found = EVIDENCE.search(body)
    return found.group(0) if found else body


@pytest.mark.timeout(900)
def test_a_hostile_pull_request_does_not_decide_the_next_ones_evidence(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, tmp_path: Path, sandbox: Bubblewrap
) -> None:
    every_attack()
    if os.geteuid() != 0:
        pytest.skip("the App's worker runs as root here (a non-root worker: tests/test_toolchains)")
    if why := registry_problem("registry.npmjs.org"):
        pytest.skip(f"cannot run here: {why}")
    row = project_instance(DATA / "lang_js" / "calc", tmp_path / "src")
    mirror = tmp_path / "mirror"
    (mirror / f"{REPO}.git").parent.mkdir(parents=True)
    subprocess.run(
        ["git", "clone", "-q", "--bare", str(tmp_path / "src"), str(mirror / f"{REPO}.git")],
        check=True,
    )
    fake_github.put_file(REPO, ".github/spice.yml", "execute_tests: true\n")
    _pull(fake_github, row, 12, {})
    _pull(fake_github, row, 13, HOSTILE)
    _pull(fake_github, row, 14, {})
    alone = _evidence(fake_github, fake_openai, tmp_path / "alone", mirror, 12)
    assert alone.startswith("**Tests run against mutants of the fix:** The tests fail without")
    shared = tmp_path / "shared"
    _evidence(fake_github, fake_openai, shared, mirror, 13)
    assert [p for p in shared.rglob(MARK)] == []
    assert _evidence(fake_github, fake_openai, shared, mirror, 14) == alone
