"""Where a repository answers now. GitHub redirects a renamed repository's old name (followed
here, and the new name learned for the process), but an organisation's old name answers a bare
404 after the organisation is renamed: the repository is then found again by its id."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from github import Github, GithubException

from app.github.models import MAX_REDIRECTS, is_redirect

log = logging.getLogger(__name__)


class Renames:
    """Repositories' current names, learned from GitHub's answers and shared by a process's
    sessions: a renamed repository's old name would cost a redirect on every call."""

    def __init__(self) -> None:
        self._names: dict[str, str] = {}
        self._lock = threading.Lock()

    def current(self, name: str) -> str:
        with self._lock:
            return self._names.get(name.lower(), name)

    def learn(self, asked: str, current: str) -> None:
        if asked.lower() != current.lower():
            log.info("%s is now %s: calls go to the new name", asked, current)
            with self._lock:
                self._names[asked.lower()] = current


class RepoLocation:
    """One repository's current name and API path; `asked` is the name the job was given."""

    def __init__(
        self, gh: Github, asked: str, renames: Renames, repo_id: int | None = None
    ) -> None:
        self._gh, self.asked, self._renames = gh, asked, renames
        self.id = repo_id
        """GitHub's id of the repository (from the delivery, or learned from its answers)."""
        self._sought = False
        self.at(renames.current(asked))

    def at(self, name: str) -> None:
        self.repo = self._gh.get_repo(name, lazy=True)
        self.path = f"/repos/{name}"

    @property
    def name(self) -> str:
        return self.path.removeprefix("/repos/")

    def request(self, verb: str, url: str, body: Any = None) -> Any:
        """A REST call. A renamed or transferred repository answers writes with 307 and a
        `Location` (PyGithub would take the redirect's body as the answer): follow it."""
        for _ in range(MAX_REDIRECTS + 1):
            headers, data = self._gh.requester.requestJsonAndCheck(verb, url, input=body)
            location = {k.lower(): v for k, v in headers.items()}.get("location")
            if location is None or not is_redirect(data):
                return data
            log.info("%s %s moved to %s: following", verb, url, location)
            url = location
        raise GithubException(310, data, headers, f"{verb} {url}: too many redirects")

    def learn(self, data: dict[str, Any]) -> None:
        """The repository as GitHub described it: its id, and its name when it changed."""
        if isinstance(data.get("id"), int):
            self.id = data["id"]
        current = str(data.get("full_name") or self.name)
        if current.lower() != self.name.lower():
            self._renames.learn(self.asked, current)
            self.at(current)

    def found_again(self, fetch: Callable[[str], Any]) -> bool:
        """After a 404: whether the repository, asked for by id (`fetch` of the URL), now
        answers under another name (which then becomes current). Asked once per job: a 404
        that stands (a missing issue, a label already gone) is not asked about again."""
        if self.id is None or self._sought:
            return False
        self._sought = True
        try:
            data = fetch(f"/repositories/{self.id}")
        except GithubException as exc:
            if exc.status in (403, 404):  # gone, or no longer ours to see: the 404 stands
                return False
            raise
        before = self.name
        self.learn(data if isinstance(data, dict) else {})
        if self.name == before:
            return False
        log.info("%s answered 404; repository %d is now %s", before, self.id, self.name)
        return True

    def elsewhere(
        self, number: int, home: tuple[str, int] | None, fetch: Callable[[str], Any]
    ) -> tuple[str, int] | None:
        """`home` (where GitHub served issue `number` from) when it is another repository's
        issue: GitHub followed a transfer. The same repository under a new name (a rename
        not learned yet) is not a move."""
        here = (self.name.lower(), number)
        if home is None or (self._renames.current(home[0]).lower(), home[1]) == here:
            return None
        if home[1] == number:
            if self.id is None:
                self.learn(fetch(self.path))  # our id and current name
            data = fetch(f"/repos/{home[0]}")
            if self.id is not None and data.get("id") == self.id:
                return None
        return home
