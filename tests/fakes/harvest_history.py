"""A realistic merged-PR history for the fake GitHub, with what a harvest must make of it.

Every PR follows one scenario (linked or not, with or without tests, multi-issue, cross-repo
references, keywords hidden in code, references to PRs or missing issues, closed unmerged...).
Each scenario states its intended outcome by hand (`kept`, `issues`) so that tests compare the
harvest with an expectation that does not come from the harvest's own code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from tests.fakes.github_server import FakeGitHub

START = datetime(2024, 1, 1, tzinfo=UTC)
OTHER_REPO = "acme/other-lib"


def stamp(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class SeededPR:
    number: int
    scenario: str
    kept: bool
    issues: list[int]
    """Same-repository issues it resolves (only meaningful when kept)."""
    created_at: str
    merged_at: str | None
    first_commit_at: str
    base_sha: str
    source_diff: str
    test_diff: str


@dataclass
class History:
    repo: str
    prs: list[SeededPR] = field(default_factory=list)
    issues: dict[int, tuple[str, str]] = field(default_factory=dict)
    comments: dict[int, list[tuple[str, str]]] = field(default_factory=dict)
    """Issue number -> (updated_at, body) of each comment, in order."""

    @property
    def kept(self) -> list[SeededPR]:
        return [p for p in self.prs if p.kept]


def _hunk(path: str, k: int) -> str:
    return f"@@ -1,3 +1,4 @@\n # {path}\n-VALUE = {k}\n+VALUE = {k + 1}\n+LIMIT = {k * 2}\n \n"


def _new_file(k: int) -> str:
    return f"@@ -0,0 +1,2 @@\n+def test_case_{k}():\n+    assert True\n"


def _git(path: str, patch: str, added: bool = False) -> str:
    """The file's part of the PR's diff as git writes it (an added file declares its mode)."""
    if added:
        return f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n{patch}"
    return f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n{patch}"


# scenario -> (kept, how many same-repo issues it resolves)
SCENARIOS: list[tuple[str, bool]] = [
    ("body_fixes", True),
    ("graphql_only", True),
    ("commit_closes", True),
    ("unlinked_with_tests", False),
    ("linked_no_tests", False),
    ("multi_issue", True),
    ("cross_repo_only", False),
    ("cross_and_same", True),
    ("closed_unmerged", False),
    ("tests_only", False),
    ("keyword_in_code", False),
    ("refs_a_pull", False),
    ("missing_issue", False),
    ("url_reference", True),
    ("mention_only", False),
    ("added_test_file", True),
]


class _Seeder:
    def __init__(self, fake: FakeGitHub, repo: str) -> None:
        self.fake, self.history = fake, History(repo)
        self.next_number = 1
        fake.add_repo(repo)
        fake.add_repo(OTHER_REPO)
        fake.add_issue(OTHER_REPO, 5, "Upstream bug", "Upstream body")

    @property
    def repo(self) -> str:
        return self.history.repo

    def issue(self, k: int, first_commit: datetime) -> int:
        number = self.next_number
        self.next_number += 1
        title, body = f"Bug {number}: widget {k} overflows", f"Steps for {number}.\r\nExpected: ok"
        self.fake.add_issue(self.repo, number, title, body)
        self.history.issues[number] = (title, body)
        notes = [
            (first_commit - timedelta(hours=5), f"I can reproduce #{number} too."),
            # Written before the first commit, edited after it: its text may carry the fix, so
            # SWE-bench's rule (last update before the first commit) leaves it out.
            (first_commit - timedelta(hours=2), f"Workaround for {number}: pin LIMIT (edited)"),
            (first_commit + timedelta(minutes=30), f"Fixed in the PR for {number}, thanks!"),
        ]
        for i, (when, text) in enumerate(notes):
            comment = self.fake.add_comment(self.repo, number, text, f"user{i}")
            comment["created_at"] = stamp(when)
            edited = when + timedelta(hours=4) if "(edited)" in text else when
            comment["updated_at"] = stamp(edited)
        self.history.comments[number] = [
            (stamp(w + timedelta(hours=4) if "(edited)" in t else w), t) for w, t in notes
        ]
        return number

    def pull(self, k: int, scenario: str, kept: bool) -> SeededPR:
        created = START + timedelta(days=k)
        first_commit = created - timedelta(hours=1)
        issues: list[int] = []
        title, body, commits = f"Widget change {k}", "Some change.", [f"Change widget {k}"]
        closing: list[tuple[str, int]] = []
        if scenario in ("body_fixes", "linked_no_tests", "closed_unmerged", "tests_only"):
            issues = [self.issue(k, first_commit)]
            body = f"This PR fixes #{issues[0]}.\n\nDetails follow."
        elif scenario in ("graphql_only", "added_test_file"):
            issues = [self.issue(k, first_commit)]
            closing = [(self.repo, issues[0])]
        elif scenario == "commit_closes":
            issues = [self.issue(k, first_commit)]
            commits.append(f"Guard the limit\n\nCloses #{issues[0]}")
        elif scenario == "multi_issue":
            issues = [self.issue(k, first_commit) for _ in range(3)]
            body = f"Fixes #{issues[0]}, resolves #{issues[1]}"
            closing = [(self.repo, issues[2]), (self.repo, issues[0])]
        elif scenario == "cross_repo_only":
            body = f"Fixes {OTHER_REPO}#5"
            closing = [(OTHER_REPO, 5)]
        elif scenario == "cross_and_same":
            issues = [self.issue(k, first_commit)]
            body = f"Fixes {OTHER_REPO}#5 and resolves #{issues[0]}"
        elif scenario == "keyword_in_code":
            self.issue(k, first_commit)
            body = f"The template says `fixes #{self.next_number - 1}` but this PR does not."
        elif scenario == "refs_a_pull":
            body = f"Fixes #{self.history.prs[-1].number}" if self.history.prs else "no refs"
        elif scenario == "missing_issue":
            body = "Fixes #99999"
        elif scenario == "url_reference":
            issues = [self.issue(k, first_commit)]
            body = f"Fixes https://github.com/{self.repo}/issues/{issues[0]}"
        elif scenario == "mention_only":
            self.issue(k, first_commit)
            body = f"Related to #{self.next_number - 1}, see there."
        number = self.next_number
        self.next_number += 1
        src, test = f"src/widgets/mod{k}.py", f"tests/test_mod{k}.py"
        files, source_diff, test_diff = [], "", ""
        if scenario != "tests_only":
            files.append({"filename": src, "patch": _hunk(src, k)})
            source_diff = _git(src, _hunk(src, k))
        if scenario not in ("linked_no_tests",):
            if scenario == "added_test_file":
                files.append({"filename": test, "patch": _new_file(k), "status": "added"})
                test_diff = _git(test, _new_file(k), added=True)
            else:
                files.append({"filename": test, "patch": _hunk(test, k)})
                test_diff = _git(test, _hunk(test, k))
        base_sha = f"{k:040x}"
        self.fake.add_pull(
            self.repo,
            number,
            title,
            body,
            files=files,
            commits=commits,
            base_sha=base_sha,
            closing=closing,
        )
        merged = None if scenario == "closed_unmerged" else stamp(created + timedelta(days=1))
        self.fake.edit_issue(self.repo, number, state="closed")
        pull = self.fake.repos[self.repo].pulls[number]
        pull.update(
            created_at=stamp(created),
            updated_at=stamp(created + timedelta(days=1)),
            closed_at=stamp(created + timedelta(days=1)),
            merged_at=merged,
            merged=merged is not None,
        )
        for i, commit in enumerate(self.fake.repos[self.repo].commits[number]):
            when = stamp(first_commit + timedelta(minutes=20 * i))
            # Authored before the PR was opened, committed (rebased) at merge time.
            author = {**commit["commit"]["author"], "date": when}
            committer = {
                **commit["commit"]["committer"],
                "date": stamp(created + timedelta(days=1)),
            }
            commit["commit"].update(author=author, committer=committer)
        seeded = SeededPR(
            number,
            scenario,
            kept,
            sorted(issues) if kept else [],
            stamp(created),
            merged,
            stamp(first_commit),
            base_sha,
            source_diff,
            test_diff,
        )
        self.history.prs.append(seeded)
        return seeded


def seed_history(fake: FakeGitHub, repo: str = "acme/widgets", n_prs: int = 64) -> History:
    """Seed `n_prs` closed PRs (cycling through the scenarios) and one still-open PR."""
    seeder = _Seeder(fake, repo)
    for k in range(n_prs):
        scenario, kept = SCENARIOS[k % len(SCENARIOS)]
        seeder.pull(k, scenario, kept)
    # An open PR that fixes an issue is not harvested (not merged, not even closed).
    open_issue = seeder.issue(n_prs, START)
    fake.add_pull(
        repo,
        seeder.next_number,
        "WIP",
        f"Fixes #{open_issue}",
        files=[{"filename": "tests/test_x.py", "patch": _hunk("tests/test_x.py", 0)}],
    )
    fake.repos[repo].pulls[seeder.next_number]["created_at"] = stamp(START + timedelta(days=999))
    return seeder.history


def expected_instance(history: History, pr: SeededPR) -> dict[str, str]:
    """The instance PRODUCT.md "Harvest" asks for, computed from the seed's own records."""
    owner, name = history.repo.split("/")
    statement = "".join(
        f"{history.issues[n][0]}\n{history.issues[n][1]}\n" for n in sorted(pr.issues)
    )
    hints = [
        body
        for n in sorted(pr.issues)
        for updated, body in history.comments[n]
        if updated < pr.first_commit_at
    ]
    return {
        "instance_id": f"{owner}__{name}-{pr.number}",
        "repo": history.repo,
        "base_commit": pr.base_sha,
        "patch": pr.source_diff,
        "test_patch": pr.test_diff,
        "problem_statement": statement,
        "hints_text": "\n".join(hints),
        "created_at": pr.created_at,
    }
