"""What the languages read off a tree alike: manifests found by name, and their digests."""

from __future__ import annotations

import hashlib
import posixpath

from spice_engine.langs.base import Files


def named(files: Files, *names: str) -> list[str]:
    """Tracked paths whose file name is one of `names` (vendored and fixture copies left out)."""
    skip = ("node_modules/", "vendor/", "testdata/", "target/", "fixtures/")
    return [
        p
        for p in files.paths()
        if posixpath.basename(p) in names and not any(f"/{s}" in f"/{p}" for s in skip)
    ]


def digests(files: Files, paths: list[str]) -> tuple[str, ...]:
    """`path:sha256` of each file, in path order: what an environment built from them is keyed by."""
    out = []
    for path in sorted(paths):
        text = files.text(path) or ""
        out.append(f"{path}:{hashlib.sha256(text.encode()).hexdigest()[:16]}")
    return tuple(out)


def owner(path: str, roots: list[str]) -> str | None:
    """The deepest of `roots` (folders, "" the top) holding `path`."""
    best: str | None = None
    for root in roots:
        inside = root == "" or path.startswith(root.rstrip("/") + "/")
        if inside and (best is None or len(root) > len(best)):
            best = root
    return best


def texts(files: Files, paths: list[str]) -> dict[str, str]:
    """Each of `paths` the tree tracks, with its text: an install's inputs."""
    found = {path: files.text(path) for path in paths}
    return {path: text for path, text in found.items() if text is not None}
