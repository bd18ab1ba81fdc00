"""Merged pull requests read from local history (a clone, mirror or bundle), for harvesting
without GitHub: the same `HarvestSource` the GitHub reader is (app.harvest.source).

A pull request is found on the default branch's first-parent line: a merge commit that names
it (`Merge pull request #12 from ...`) or whose second parent is a `refs/pull/12/head`, or a
squash commit ending in `(#12)`. Its base is where its branch left the line (the merge base,
as GitHub's diff takes it); its diff is git's own; its commits are the branch's. Local history
holds no issues: an issue the messages name (`Fixes #7`) has no text offline, and the instance
says so in its problem statement.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel

from app.github.client import PullFile
from app.github.graphql import ClosingRefs
from app.harvest.source import CommentInfo, CommitInfo, IssueInfo, PullSummary
from spice_engine.validate.gitwork import GitError, git

UNKNOWN_ISSUE = (
    "(The issue's text is unknown: this instance was harvested offline from local history, "
    "which holds no issues.)"
)
_MERGE = re.compile(r"^Merge pull request #(\d+)\b")
_SQUASH = re.compile(r"\(#(\d+)\)\s*$")
_RECORD, _FIELD = "\x1e", "\x00"
# The same separators as git's format placeholders (an argument cannot hold a NUL).
_RS, _FS = "%x1e", "%x00"


class LocalPull(BaseModel):
    """A merged pull as the main line shows it; its base and dates are read when asked."""

    number: int
    head: str
    line: str
    """The main line's commit before it (a merge's first parent, a squash's parent)."""
    squash: bool
    title: str
    body: str
    merged_at: str
    authored: str


class LocalHistorySource:
    """`HarvestSource` over a git directory; `closed_pulls` lists merged pulls by number."""

    def __init__(self, git_dir: Path) -> None:
        self.git_dir = git_dir
        self._lock = threading.Lock()
        self._found: dict[int, LocalPull] | None = None
        self._pull_refs: dict[str, int] | None = None
        self._summaries: dict[int, PullSummary] = {}

    def pulls(self) -> dict[int, LocalPull]:
        with self._lock:
            if self._found is None:
                self._found = self._read_pulls()
            return self._found

    def closed_pulls(self, repo: str, start_page: int = 1) -> Iterator[PullSummary]:
        # Summaries are made as the listing reaches them: a resumed or capped harvest of a
        # long history asks git about the pulls it handles only.
        for number in sorted(self.pulls()):
            yield self.summary(number)

    def summary(self, number: int) -> PullSummary:
        if (known := self._summaries.get(number)) is not None:
            return known
        pull = self.pulls()[number]
        # A merge's base is where its branch left the line (GitHub's diff is from there).
        base = pull.line if pull.squash else self._git("merge-base", pull.line, pull.head).strip()
        opened = self._git("log", "--format=%aI", f"{base}..{pull.head}").split()
        found = PullSummary(
            number=number,
            title=pull.title,
            body=pull.body,
            created_at=opened[-1] if opened else pull.authored,
            merged_at=pull.merged_at,
            base_sha=base,
        )
        self._summaries[number] = found
        return found

    def pull_commits(self, repo: str, number: int) -> list[CommitInfo]:
        pull, base = self.pulls()[number], self.summary(number).base_sha
        out = self._git("log", f"--format=%H{_FS}%aI{_FS}%B{_RS}", f"{base}..{pull.head}")
        commits = []
        for record in filter(str.strip, out.split(_RECORD)):
            sha, date, message = record.strip("\n").split(_FIELD, 2)
            commits.append(CommitInfo(sha=sha, message=message, date=date))
        return commits

    def pull_files(self, repo: str, number: int) -> list[PullFile]:
        return []  # never asked: the full diff below is always given (app.github.diffs)

    def pull_full_diff(self, repo: str, number: int) -> str:
        pull, base = self.pulls()[number], self.summary(number).base_sha
        # The repository's own diff drivers and text conversions are not ours to run.
        return self._git(
            "diff",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "-M",
            base,
            pull.head,
        )

    def closing_refs(self, repo: str, number: int) -> ClosingRefs:
        return ClosingRefs(refs=[], complete=True)  # the messages are all there is

    def issue(self, repo: str, number: int) -> IssueInfo | None:
        # A number that is a pull request here is not an issue; any other may be one.
        is_pull = number in self.pulls() or number in self._refs().values()
        return IssueInfo(
            number=number, title=f"#{number}", body=UNKNOWN_ISSUE, is_pull_request=is_pull
        )

    def issue_comments(self, repo: str, number: int) -> list[CommentInfo]:
        return []

    def _git(self, *args: str) -> str:
        return git(self.git_dir, *args)

    def _refs(self) -> dict[str, int]:
        """Head commit -> pull number, from `refs/pull/N/head`."""
        if self._pull_refs is None:
            out = self._git("for-each-ref", "--format=%(objectname) %(refname)", "refs/pull/")
            found = (line.split(" ", 1) for line in out.splitlines() if line.endswith("/head"))
            self._pull_refs = {
                sha: int(ref.split("/")[2]) for sha, ref in found if ref.split("/")[2].isdigit()
            }
        return self._pull_refs

    def _default_branch(self) -> str:
        try:
            return self._git("symbolic-ref", "--quiet", "HEAD").strip()
        except GitError:
            heads = self._git("for-each-ref", "--format=%(refname)", "refs/heads/").split()
            if not heads:
                raise
            return next((h for h in heads if h.endswith(("/main", "/master"))), heads[0])

    def _read_pulls(self) -> dict[int, LocalPull]:
        refs = self._refs()
        log = self._git(
            "log",
            "--first-parent",
            f"--format=%H{_FS}%P{_FS}%cI{_FS}%aI{_FS}%B{_RS}",
            self._default_branch(),
        )
        found: dict[int, LocalPull] = {}
        for record in filter(str.strip, log.split(_RECORD)):
            sha, parents, committed, authored, message = record.strip("\n").split(_FIELD, 4)
            first, *more = parents.split() or [""]
            subject, _, rest = message.partition("\n")
            if len(more) == 1 and ((hit := _MERGE.match(subject)) or more[0] in refs):
                number, head, squash = int(hit.group(1)) if hit else refs[more[0]], more[0], False
                # GitHub's merge message: the subject, a blank line, then the pull's title.
                title, _, body = rest.strip("\n").partition("\n")
            elif not more and first and (hit := _SQUASH.search(subject)):
                number, head, squash = int(hit.group(1)), sha, True
                title, body = subject[: hit.start()], rest
            else:
                continue
            # The newest merge of a number wins (the log is newest first).
            found.setdefault(
                number,
                LocalPull(
                    number=number,
                    head=head,
                    line=first,
                    squash=squash,
                    title=title.strip(),
                    body=body.strip(),
                    merged_at=committed,
                    authored=authored,
                ),
            )
        return found


def open_local(path: Path, cache: Path) -> LocalHistorySource:
    """The source for a repository folder or a bundle (cloned bare under `cache`, with the
    bundle's `refs/pull/*/head` too: a bare clone takes only branches and tags)."""
    from spice_engine.validate.gitwork import open_repository

    git_dir = open_repository(path, cache)
    if path.is_file():
        # A bundle without pull refs is fine: merges are found by their messages.
        with contextlib.suppress(GitError):
            git(git_dir, "fetch", "--quiet", str(path.resolve()), "+refs/pull/*:refs/pull/*")
    return LocalHistorySource(git_dir)
