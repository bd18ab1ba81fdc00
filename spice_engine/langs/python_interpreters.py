"""Python interpreters already on the machine: pyenv's versions, then `pythonX.Y` on PATH."""

from __future__ import annotations

import os
import re
import shutil
from contextlib import suppress
from pathlib import Path

_MINOR = re.compile(r"^(3\.\d+)\.\d+$")


class MissingPython(LookupError):
    """No interpreter of the version a recipe needs."""


def _pyenv_root() -> Path:
    return Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv")


def find_pythons() -> dict[str, Path]:
    """`3.X` -> an interpreter of that minor version (pyenv's newest patch release first)."""
    found = _pyenv_pythons(_pyenv_root() / "versions")
    for minor in range(6, 20):
        version = f"3.{minor}"
        if version not in found and (path := shutil.which(f"python{version}")):
            # The interpreter itself, not a link to it: a virtualenv's on PATH (the App's own,
            # in its image) is not in the sandbox, the base interpreter it links to is.
            found[version] = Path(path).resolve()
    return found


def _pyenv_pythons(versions: Path) -> dict[str, Path]:
    found: dict[str, Path] = {}
    # A pyenv this user may not enter (root's, under a 0700 /root, seen from the App's user)
    # holds no interpreter it could run: PATH's remain.
    with suppress(PermissionError):
        if versions.is_dir():
            for entry in sorted(versions.iterdir(), key=lambda p: _patch_key(p.name), reverse=True):
                m = _MINOR.match(entry.name)
                exe = entry / "bin" / f"python{m.group(1)}" if m else None
                if m and exe and exe.is_file() and os.access(exe, os.X_OK):
                    found.setdefault(m.group(1), exe)
    return found


def _patch_key(name: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", name)[:3])


def python_for(version: str, pythons: dict[str, Path] | None = None) -> Path:
    pythons = find_pythons() if pythons is None else pythons
    if version not in pythons:
        have = ", ".join(sorted(pythons, key=_patch_key)) or "none"
        raise MissingPython(
            f"Python {version} is needed but not installed (found: {have}); "
            f"install it, e.g. `pyenv install {version}`"
        )
    return pythons[version]
