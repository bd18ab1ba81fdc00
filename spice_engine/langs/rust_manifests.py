"""What cargo reads of a Rust tree's manifests: their tables, and the target files it looks
for before it will fetch anything."""

from __future__ import annotations

import posixpath
import tomllib

from spice_engine.langs.base import Files

_TARGET_DIRS = {"bin": "src/bin", "test": "tests", "example": "examples", "bench": "benches"}


def toml(files: Files, path: str) -> dict[str, object]:
    try:
        return tomllib.loads(files.text(path) or "")
    except tomllib.TOMLDecodeError:
        return {}


def table(data: dict[str, object], *keys: str) -> dict[str, object]:
    for key in keys:
        value = data.get(key)
        data = value if isinstance(value, dict) else {}
    return data


def target_files(files: Files, manifests: list[str]) -> list[str]:
    """The tracked files of each package's targets (its library, binaries, tests, examples,
    benches, build script) that cargo looks for when it reads the manifest; a package whose
    only targets cargo finds by looking in folders (examples alone) gets an empty library:
    cargo wants a target to read the manifest, and which one is nothing to a fetch."""
    present = set(files.paths())
    found = []
    for manifest in manifests:
        folder, data = posixpath.dirname(manifest), toml(files, manifest)
        wanted = ["src/lib.rs", "src/main.rs", str(table(data, "lib").get("path", ""))]
        for kind, where in _TARGET_DIRS.items():
            declared = data.get(kind)
            for target in declared if isinstance(declared, list) else []:
                if not isinstance(target, dict):
                    continue
                name = str(target.get("name", ""))
                wanted += [
                    str(target.get("path", "")),
                    f"{where}/{name}.rs",
                    f"{where}/{name}/main.rs",
                ]
        built = table(data, "package").get("build")
        paths = [posixpath.normpath(posixpath.join(folder, r)) for r in wanted if r]
        targets = [p for p in paths if p in present]
        if not targets and "package" in data:
            targets = [posixpath.join(folder, "src/lib.rs")]
        scripts = [built if isinstance(built, str) else "", "build.rs"]
        found += targets + [
            p
            for p in (posixpath.normpath(posixpath.join(folder, b)) for b in scripts if b)
            if p in present
        ]
    return found
