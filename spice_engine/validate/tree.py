"""A checked-out tree that sandboxed code may write, and the host's private record of it.

The host never runs git in the tree: what the tree should hold is kept in an index of the
host's own, outside every sandbox mount, over the repository's object store. A patch is applied
to that index (`git apply --cached`: no work tree read, so no attribute, filter or `.git` of the
tree's), and the files it changed are written into the tree through the door. Sources the host
needs (the fix's files, to mutate) come from that index, never from the tree.

The sandbox gets a git directory of its own at `.git` (HEAD at the commit, its objects borrowed
read-only from the repository), as a SWE-bench container has one; the host never uses it.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from cachetools import LRUCache

from spice_engine.validate import door
from spice_engine.validate.gitwork import GitError, git, git_bytes, git_dir_of, unsafe_patch

SANDBOX_GIT = ".git"
_Entries = dict[str, tuple[str, str]]
_KEPT_BLOB_BYTES = 1 << 20
"""Files up to this size are kept once read (manifests, sources); larger ones read each time."""
_BLOBS: LRUCache[tuple[Path, str], bytes] = LRUCache(maxsize=32 << 20, getsizeof=len)
"""Blobs by repository and hash, what every tree of the process read last (32 MiB)."""
_BLOBS_LOCK = threading.Lock()  # a session's before and after run in threads of their own


class PatchRefused(GitError):
    """A patch the host will not apply: it would make a link or touch a `.git`."""


class MissingObject(GitError):
    """The repository lacks a file's contents at the commit (a partial snapshot)."""


_UNREADABLE = re.compile(r"unable to read sha1 file of (.+?) \(([0-9a-f]{7,64})\)")


def _checkout_refused(exc: GitError, commit: str) -> GitError:
    """git's complaint about missing contents as one line naming the files; else as it is."""
    missing = _UNREADABLE.findall(str(exc))
    if not missing:
        return exc
    more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
    return MissingObject(
        f"commit {commit[:12]} cannot be checked out: the repository lacks the contents of "
        f"{missing[0][0]} (blob {missing[0][1][:12]}){more}"
    )


class Tree:
    """The files of one checkout: `path` is what the sandbox sees (at `/testbed`)."""

    def __init__(
        self, git_dir: Path, path: Path, index: Path, commit: str = "", files: bool = True
    ) -> None:
        self.git_dir, self.path, self._index, self.commit = git_dir, path, index, commit
        self.files = files
        """False: the host's record only, no file written out (what planning reads)."""
        self._known: _Entries | None = None
        """The host's record as last read: only `apply` changes it (each mutant's restore,
        each `tracked` asked of it, would otherwise run git again)."""
        self._listing = ""
        """git's listing `_known` was read from (what `digest` hashes)."""

    def date(self) -> str | None:
        """When the tree's commit was made (ISO 8601), as its repository records it."""
        if not self.commit:
            return None
        try:
            return git(self.git_dir, "show", "-s", "--format=%cI", self.commit).strip() or None
        except GitError:
            return None

    def _git(self, *args: str, stdin: str | None = None) -> str:
        return git(self.git_dir, *args, stdin=stdin, env={"GIT_INDEX_FILE": str(self._index)})

    def _entries(self) -> _Entries:
        if self._known is None:
            out = self._listing = self._git("ls-files", "-s", "-z")
            entries: _Entries = {}
            for record in out.split("\0"):
                if record:
                    meta, _, path = record.partition("\t")
                    mode, sha, _stage = meta.split()
                    entries[path] = (mode, sha)
            self._known = entries
        return dict(self._known)

    def apply(self, patch: str, reverse: bool = False) -> None:
        """`patch` applied (or taken back): to the host's index, then the changed files
        written into the tree. GitError when it does not apply (nothing changes then)."""
        if not patch.strip():
            return
        if why := unsafe_patch(self.git_dir, patch):
            raise PatchRefused(why)
        before = self._entries()
        self._known = None  # read again, even if the apply fails half-way
        self._git("apply", "--cached", *(["-R"] if reverse else []), "-", stdin=patch)
        if not self.files:
            return  # the record is read again when next asked
        after = self._entries()
        for path in before.keys() - after.keys():
            door.remove(self.path, path)
        for path, (mode, sha) in after.items():
            if before.get(path) != (mode, sha):
                self._write(path, mode, sha)

    def _write(self, path: str, mode: str, sha: str) -> None:
        assert self.files, "a record without files"
        if mode not in ("100644", "100755"):
            raise PatchRefused(f"{path}: the host writes regular files only (mode {mode})")
        blob = self._blob(sha)
        door.write_bytes(self.path, path, blob, 0o755 if mode == "100755" else 0o644)

    def source(self, path: str) -> str:
        """The text `path` should have now (the host's record, not the tree's file)."""
        known = self._entries().get(path)
        if known is None:
            raise GitError(f"git cat-file: {path} is not in the tree's record")
        if known[0] == "160000":
            return self._git("cat-file", "-p", f":{path}")  # a submodule: git's own answer
        return self._blob(known[1]).decode("utf-8", errors="replace")

    def _blob(self, sha: str) -> bytes:
        # By its hash, what it holds cannot change: planning reads a manifest many times, a
        # session's twin tree the same files, and each mutant's restore the same file again.
        key = (self.git_dir, sha)
        with _BLOBS_LOCK:
            blob = _BLOBS.get(key)
        if blob is None:
            blob = git_bytes(self.git_dir, "cat-file", "blob", sha)
            if len(blob) <= _KEPT_BLOB_BYTES:
                with _BLOBS_LOCK:
                    _BLOBS[key] = blob
        return blob

    def put(self, path: str, text: str) -> None:
        """`path` in the tree replaced by `text` (a mutant), whatever the tests left there."""
        assert self.files, "a record without files"
        door.write_text(self.path, path, text)

    def restore(self, path: str) -> None:
        """`path` in the tree as the host's record has it."""
        mode, sha = self._entries()[path]
        self._write(path, mode, sha)

    def tracked(self, path: str) -> bool:
        return path in self._entries()

    def paths(self) -> list[str]:
        """Every path the host's record holds (the `Files` a language reads)."""
        return sorted(self._entries())

    def text(self, path: str) -> str | None:
        """`path`'s text as the host's record has it; None when it is not tracked."""
        try:
            return self.source(path)
        except GitError:
            return None

    def changed(self) -> list[str]:
        """Paths the patches applied so far changed from the commit (the host's record)."""
        if not self.commit:
            return []
        out = self._git("diff-index", "--cached", "--name-only", "-z", self.commit)
        return sorted(p for p in out.split("\0") if p)

    def digest(self) -> str:
        """Every path, mode and blob of the host's record, hashed: what the tree is."""
        self._entries()
        return hashlib.sha256(self._listing.encode()).hexdigest()[:16]

    def untracked(self) -> list[str]:
        """Regular files in the tree the commit does not track (what an install wrote),
        found without following links; the sandbox's own `.git` and the submodules' files
        (spice_engine.validate.submodules) are not."""
        known = self._entries()
        links = tuple(f"{p}/" for p, (mode, _) in known.items() if mode == "160000")
        return [
            f
            for f in door.files(self.path)
            if f not in known and f.split("/", 1)[0] != SANDBOX_GIT and not f.startswith(links)
        ]


@contextmanager
def checkout(
    repo: Path, commit: str, scratch: Path, name: str = "tree", files: bool = True
) -> Iterator[Tree]:
    """A new tree of `commit` under a private directory of `scratch`, removed afterwards
    (`files=False`: the host's record of it alone, nothing written out).

    `scratch` must be the host's (never bound into a sandbox): the index lives beside the
    tree, and nothing a sandboxed command can write may take the tree's place.
    """
    git_dir = git_dir_of(repo).resolve()
    where = Path(tempfile.mkdtemp(dir=scratch.absolute(), prefix=f"{name}-"))
    index, path = where / "index", where / name
    try:
        env = {"GIT_INDEX_FILE": str(index)}
        git(git_dir, "read-tree", commit, env=env)
        if not files:
            yield Tree(git_dir, path, index, commit, files=False)
            return
        tree_dir(path)
        # Into an empty directory nothing has touched yet; attributes come from the index
        # (the commit's own), and no filter is configured for them.
        try:
            git(git_dir, f"--work-tree={path}", "checkout-index", "-a", "-f", "-u", env=env)
        except GitError as exc:
            raise _checkout_refused(exc, commit) from None
        _sandbox_git(git_dir, commit, path, index)
        yield Tree(git_dir, path, index, commit)
    finally:
        shutil.rmtree(where, ignore_errors=True)


def tree_dir(path: Path) -> None:
    """A new, empty tree directory the sandbox's user can enter whatever the worker's umask
    (077 in the App: bubblewrap, dropping its capabilities as root, must still chdir there)."""
    path.mkdir()
    path.chmod(0o755)


def _sandbox_git(git_dir: Path, commit: str, tree: Path, index: Path) -> None:
    """A git directory for the sandbox's own use: the commit checked out, its objects read
    from the repository (bound read-only into the sandbox at the same path)."""
    files = {
        "HEAD": f"{commit}\n",
        "config": "[core]\n\trepositoryformatversion = 0\n\tbare = false\n",
        "objects/info/alternates": f"{git_dir / 'objects'}\n",
        "refs/heads/.keep": "",
        "refs/tags/.keep": "",
        "index": "",
    }
    for rel, text in files.items():
        door.write_text(tree, f"{SANDBOX_GIT}/{rel}", text)
    door.write_bytes(tree, f"{SANDBOX_GIT}/index", door.read_bytes(index.parent, index.name))
