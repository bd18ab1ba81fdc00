"""What GitHub gives for a PR's files, its `.diff`, its commits and a file's contents."""

from __future__ import annotations

import base64
from datetime import UTC, datetime
from typing import Any

Json = dict[str, Any]


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def file_entry(spec: Json) -> Json:
    """The files API's entry; `too_large: True` leaves `patch` out, as GitHub does for a
    file whose diff is too big to show (the PR's .diff still has it)."""
    patch = spec.get("patch", "")
    adds = sum(1 for line in patch.splitlines() if line.startswith("+"))
    dels = sum(1 for line in patch.splitlines() if line.startswith("-"))
    entry = {
        "sha": "c" * 40,
        "filename": spec["filename"],
        "status": spec.get("status", "modified"),
        "additions": adds,
        "deletions": dels,
        "changes": adds + dels,
        "patch": patch,
        "blob_url": "",
        "raw_url": "",
        "contents_url": "",
    }
    if spec.get("too_large"):
        del entry["patch"]
    return entry


def diff_text(specs: list[Json]) -> str:
    """The PR as `application/vnd.github.diff`, in git's own format.

    A spec may carry `git_diff`, the exact text `git diff` printed for the file (tests make
    it with real git); otherwise the header is written as git writes it for the status:
    `new file mode`, `deleted file mode`, `rename from/to`, and binary files as
    `Binary files ... differ`, as GitHub's .diff shows them.
    """
    return "".join(spec.get("git_diff") or git_file_diff(spec) for spec in specs)


def commit_entry(base_url: str, number: int, message: str) -> Json:
    sha = f"{number:040x}"
    person = {"name": "dev", "email": "dev@example.com", "date": _now()}
    tree = {"sha": "e" * 40, "url": f"{base_url}/git/trees/{'e' * 40}"}
    return {
        "sha": sha,
        "node_id": f"C_{sha[-8:]}",
        "url": f"{base_url}/commits/{sha}",
        "html_url": "",
        "comments_url": f"{base_url}/commits/{sha}/comments",
        "commit": {
            "message": message,
            "author": person,
            "committer": person,
            "comment_count": 0,
            "tree": tree,
            "url": f"{base_url}/git/commits/{sha}",
        },
        "author": None,
        "committer": None,
        "parents": [],
    }


def git_file_diff(spec: Json) -> str:
    name, status = spec["filename"], spec.get("status", "modified")
    old = spec.get("previous_filename") or name
    head = f"diff --git a/{old} b/{name}\n"
    if status == "added":
        head += "new file mode 100644\n"
    elif status == "removed":
        head += "deleted file mode 100644\n"
    elif old != name:
        head += f"similarity index 90%\nrename from {old}\nrename to {name}\n"
    a = "/dev/null" if status == "added" else f"a/{old}"
    b = "/dev/null" if status == "removed" else f"b/{name}"
    if spec.get("binary"):
        return head + f"Binary files {a} and {b} differ\n"
    patch = spec.get("patch", "")
    if not patch:
        return head
    return head + f"--- {a}\n+++ {b}\n" + (patch if patch.endswith("\n") else patch + "\n")


def content_entry(fake: Any, repo: str, path: str, text: str) -> Json:
    """The contents API's answer for one file."""
    encoded = base64.b64encode(text.encode()).decode()
    return {
        "type": "file",
        "encoding": "base64",
        "size": len(text.encode()),
        "name": path.rsplit("/", 1)[-1],
        "path": path,
        "content": encoded,
        "sha": "d" * 40,
        "url": f"{fake.base_url}/repos/{repo}/contents/{path}",
        "git_url": None,
        "html_url": None,
        "download_url": None,
        "_links": {
            "self": f"{fake.base_url}/repos/{repo}/contents/{path}",
            "git": None,
            "html": None,
        },
    }
