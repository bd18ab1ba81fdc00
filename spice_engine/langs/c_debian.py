"""The install of a C or C++ environment: Debian packages, fetched through the index proxy.

Only the machine's own Debian release is fetched from (its libraries are what the packages
were built against); the fetching script is `c_debian_fetch.py`, shown the machine's list of
installed packages and nothing of the tree.
"""

from __future__ import annotations

import platform
import subprocess
from functools import cache
from pathlib import Path

from spice_engine.langs.base import CACHE, ENV, Phase, ToolchainMissing
from spice_engine.langs.c_libraries import host_packages

MIRROR = "https://deb.debian.org/debian"
DEBIAN = "deb.debian.org:443"
"""The install's one registry: `MIRROR`'s host."""
ROOT = f"{ENV}/debian"
"""Where the packages are unpacked, with `env.sh` for the tests' shell beside them."""
CACHE_NAME = "debian"
HOST_LIST = ".spice-host-packages"
"""The install's one input: the machine's installed packages (not the tree's: the host's)."""
FETCH = Path(__file__).with_name("c_debian_fetch.py")
_ARCHES = {"x86_64": "amd64", "aarch64": "arm64"}


@cache
def machine_suite(os_release: Path = Path("/etc/os-release")) -> str | None:
    """This machine's Debian release (`bookworm`), None when it is not Debian."""
    try:
        lines = os_release.read_text().splitlines()
    except OSError:
        return None
    fields = dict(line.partition("=")[::2] for line in lines)
    if fields.get("ID", "").strip('"') != "debian":
        return None
    return fields.get("VERSION_CODENAME", "").strip('"') or None


@cache
def machine_arch() -> str:
    try:
        return subprocess.run(
            ["dpkg", "--print-architecture"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return _ARCHES.get(platform.machine(), platform.machine())


def install(packages: list[str]) -> tuple[Phase, dict[str, str], str]:
    """The phase fetching `packages` (and what they depend on that the machine lacks), its
    inputs, and the release they come from; ToolchainMissing when there is none to ask."""
    suite = machine_suite()
    if suite is None or not host_packages():
        raise ToolchainMissing(
            f"missing_dependency: {packages[0]} (this machine is not Debian: its packages "
            "cannot be fetched)"
        )
    args = [ROOT, f"{CACHE}/{CACHE_NAME}", MIRROR, suite, machine_arch(), HOST_LIST, *packages]
    phase = Phase(
        argv=("sh", "-c", 'exec python3 -I -S -c "$SPICE_DEBIAN_FETCH" "$@"', "fetch", *args),
        env={"SPICE_DEBIAN_FETCH": FETCH.read_text()},
        network=True,
    )
    return phase, {HOST_LIST: "\n".join(sorted(host_packages())) + "\n"}, suite
