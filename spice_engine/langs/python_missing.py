"""What a job's own commit requires that its shared environment lacks.

An environment is built at its version's own commit (SWE-bench's `environment_setup_commit`);
an instance at an older or newer commit may declare a dependency that commit did not (SWE-bench
covers this by installing each instance's project with its dependencies). Read from the
project's installed metadata (`Requires-Dist`, as text: the sandboxed build wrote it), against
the distributions the shared environment and the job's venv hold.
"""

from __future__ import annotations

from email.parser import HeaderParser
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from spice_engine.validate import door

MAX_METADATA_BYTES = 1_000_000


def installed(site: Path) -> dict[str, Version | None]:
    """Canonical name -> version of each distribution in `site` (None: unreadable version)."""
    found: dict[str, Version | None] = {}
    for info in site.glob("*.dist-info"):
        name, _, version = info.name.removesuffix(".dist-info").partition("-")
        try:
            found[canonicalize_name(name)] = Version(version)
        except InvalidVersion:
            found[canonicalize_name(name)] = None
    return found


def from_index(pinned: str, site: Path) -> list[str]:
    """The lines of a pinned requirements file (its text) to install from the package index into the
    environment at `site`: not the project itself, nor anything it names by path or URL (that
    would be its code again), nor what the environment already holds (its build tools and
    theirs: an installer resolving against it would keep them, and the project's build needs
    them as they are)."""
    have = set(installed(site))
    kept = []
    for raw in pinned.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line or line.startswith("-") or "://" in line or " @ " in line:
            continue
        try:
            name: str = canonicalize_name(Requirement(line).name)
        except InvalidRequirement:
            name = ""  # the installer says what is wrong with it
        if name not in have:
            kept.append(line)
    return kept


def _requires(root: Path, metadata: Path) -> list[str]:
    try:
        text = door.read_text(root, metadata.relative_to(root), MAX_METADATA_BYTES)
    except (door.DoorRefused, OSError):
        return []
    return HeaderParser().parsestr(text).get_all("Requires-Dist") or []


def missing(
    root: Path,
    project_site: Path,
    shared_site: Path,
    dist_infos: list[Path],
    extras: list[str],
    python: str,
) -> list[str]:
    """Requirements of the project (its `dist_infos` in `project_site`, under the job's scratch
    `root`, read through the door) with the recipe's extras that neither site satisfies, as
    requirement strings without markers."""
    have = installed(shared_site) | installed(project_site)
    environment = {"python_version": python, "python_full_version": f"{python}.0"}
    wanted: list[str] = []
    for info in dist_infos:
        for line in _requires(root, info / "METADATA"):
            try:
                req = Requirement(line)
            except InvalidRequirement:
                continue
            applies = req.marker is None or any(
                req.marker.evaluate(environment | {"extra": extra}) for extra in ["", *extras]
            )
            if not applies:
                continue
            name = canonicalize_name(req.name)
            version = have.get(name)
            if name not in have or (
                version is not None
                and req.specifier
                and not req.specifier.contains(version, prereleases=True)
            ):
                req.marker = None
                wanted.append(str(req))
    return sorted(set(wanted))
