"""How a JavaScript project is installed: its package manager and lockfile, its workspace's
members, and the install command (npm, yarn 1 or 2+, pnpm) that runs none of its code."""

from __future__ import annotations

import fnmatch
import json
import posixpath
import re
import shlex
import subprocess
from functools import cache
from typing import Any

from semantic_version import NpmSpec, Version  # type: ignore[import-untyped]

from spice_engine.langs.base import CACHE, Files
from spice_engine.langs.js_inputs import LOCKFILES

DEPENDENCIES = ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies")
NOT_CODE = {"dist", "build", "docs", "doc", "examples", "example", "benchmark", "benchmarks"}
NPM_OPTIONS = "--ignore-scripts --no-audit --no-fund --prefer-offline --loglevel=error"
TEST_DIRS = {
    *("test", "tests", "__tests__", "spec", "specs", "e2e", "__mocks__", "fixtures"),
    "__snapshots__",
}


def package_json(files: Files, path: str = "package.json") -> dict[str, Any]:
    try:
        found = json.loads(files.text(path) or "{}")
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def install_command(files: Files, folder: str, date: str | None) -> str:
    """The install of the project in `folder` ("" the top), as its lockfile says."""
    paths = set(files.paths())
    lock = next((f for f in LOCKFILES if posixpath.join(folder, f) in paths), None)
    package = package_json(files, posixpath.join(folder, "package.json"))
    if not any(package.get(k) for k in DEPENDENCIES) and not workspaces(files):
        return "true"  # nothing to install (npm would make no node_modules, need no registry)
    common = NPM_OPTIONS
    if lock in ("package-lock.json", "npm-shrinkwrap.json"):
        # `npm ci` only when the lockfile matches package.json; else resolve again.
        return _either(f"npm ci {common}", f"npm install {common}")
    if lock is not None:
        text = files.text(posixpath.join(folder, lock)) or ""
        manager = package.get("packageManager")
        if lock == "yarn.lock":
            return _yarn(text, _manager(manager, "yarn"))
        return _pnpm(text, _manager(manager, "pnpm"))
    plain = f"npm install {common} --no-package-lock"
    # As the registry stood that day; a registry (or mirror) whose publication times are not
    # the originals' has no version that old: then the newest the ranges allow.
    dated = f"npm install --before={shlex.quote(date or '')} {common} --no-package-lock"
    return _either(dated, plain) if date else _either(plain)


def projects(files: Files) -> list[str]:
    """The top-most folders holding a package.json, when the tree has none at its top (not
    inside node_modules, tests, fixtures, examples or documentation)."""
    if "package.json" in files.paths():
        return []
    found: list[str] = []
    for path in sorted(files.paths(), key=lambda p: p.count("/")):
        parts = path.split("/")
        if parts[-1] != "package.json" or any(
            p in NOT_CODE or p in TEST_DIRS or p == "node_modules" for p in parts[:-1]
        ):
            continue
        folder = "/".join(parts[:-1])
        if not any(folder.startswith(f + "/") for f in found):
            found.append(folder)
    return found


def _manager(declared: object, name: str) -> str | None:
    """The version of `name` package.json's `packageManager` names (`yarn@3.6.1+sha...`)."""
    found = re.fullmatch(rf"{name}@(\d+[\w.\-]*)(\+.*)?", str(declared))
    return found.group(1) if found else None


NPM_REGISTRY = "https://registry.npmjs.org"
"""The one npm registry the sandbox reaches (yarn's own, registry.yarnpkg.com, is a name for
the same; the index proxy knows only this one)."""
NPM_HOSTS = ("registry.npmjs.org:443",)
"""`NPM_REGISTRY`'s host: what a JavaScript install reaches."""


SYSTEM_CA = "/etc/ssl/certs/ca-certificates.crt"


def _yarn(lock: str, version: str | None) -> str:
    berry = re.search(r"(?m)^__metadata:\s*\n\s+version:\s*(\d+)", lock)
    if berry is None and not (version and int(version.split(".")[0]) >= 2):
        # Yarn 1 fetches what the lockfile names, at yarn's registry host: named at npm's.
        yarn = (
            f"npx --yes yarn@{version or 1} install --ignore-scripts --non-interactive "
            f"--registry {NPM_REGISTRY}"
        )
        rename = f"s#https://registry.yarnpkg.com/#{NPM_REGISTRY}/#g"
        return (
            f"cp yarn.lock $TMPDIR/yarn.lock; sed -i {shlex.quote(rename)} yarn.lock; "
            f"{{ {yarn} --frozen-lockfile || {yarn}; }}; cp $TMPDIR/yarn.lock yarn.lock"
        )
    if version is None:  # the lockfile's format says which yarn wrote it
        format_ = int(berry.group(1)) if berry else 8
        version = "2" if format_ <= 4 else "3" if format_ <= 6 else "4"
    # Yarn 2 and later as npm publishes them, never the repository's own copy (yarnPath):
    # node_modules (not Plug'n'Play) as the tests expect, no install scripts, npm's registry
    # through the sandbox's proxy (yarn reads its own settings, not the usual variables).
    env = (
        "YARN_IGNORE_PATH=1 YARN_NODE_LINKER=node-modules YARN_ENABLE_SCRIPTS=false "
        f"YARN_ENABLE_GLOBAL_CACHE=false YARN_CACHE_FOLDER={CACHE}/yarn "
        f"YARN_NPM_REGISTRY_SERVER={NPM_REGISTRY} YARN_ENABLE_TELEMETRY=0 "
        'YARN_HTTPS_PROXY="$HTTPS_PROXY" YARN_HTTP_PROXY="$HTTP_PROXY"'  # no proxy of its own
    )
    yarn = f"{env} npx --yes @yarnpkg/cli-dist@{version} install"
    # The system's certificates, as npm (the system's Node.js) trusts them; yarn's own
    # bundle lacks a local authority of the machine's.
    setting = "YARN_HTTPS_CA_FILE_PATH" if int(version.split(".")[0]) >= 4 else "YARN_CA_FILE_PATH"
    system_ca = f"if [ -r {SYSTEM_CA} ]; then export {setting}={SYSTEM_CA}; fi; "
    return f"{system_ca}{yarn} --immutable || YARN_ENABLE_IMMUTABLE_INSTALLS=false {yarn}"


def _pnpm(lock: str, version: str | None) -> str:
    if version is None:  # the newest pnpm that writes the lockfile's format
        found = re.search(r"(?m)^lockfileVersion:\s*'?(\d+)(?:\.(\d+))?", lock)
        major, minor = (int(found.group(1)), int(found.group(2) or 0)) if found else (9, 0)
        version = (
            "6" if (major, minor) < (5, 4) else "7" if major < 6 else "8" if major < 9 else "9"
        )
    pnpm = (
        f"npx --yes pnpm@{version} install --ignore-scripts --ignore-pnpmfile "
        f"--store-dir {CACHE}/pnpm"
    )
    return f"{pnpm} --frozen-lockfile || {pnpm} --no-frozen-lockfile"


def _either(*commands: str) -> str:
    """The first of `commands` that succeeds, each tried as written, then with the peer
    dependencies npm 6 ignored (projects of its time conflict with npm 7's strict peers)."""
    tries = [c for command in commands for c in (command, f"{command} --legacy-peer-deps")]
    return " || ".join(tries)


def workspaces(files: Files) -> list[str]:
    """The folders of the workspace's members (package.json's `workspaces`, or pnpm's
    pnpm-workspace.yaml), each with a package.json; or, with no package.json at the top, the
    projects in folders of their own."""
    if "package.json" not in files.paths():
        return projects(files)
    declared = package_json(files).get("workspaces")
    if isinstance(declared, dict):  # yarn 1's {"packages": [...], "nohoist": [...]}
        declared = declared.get("packages")
    patterns = [str(p) for p in declared] if isinstance(declared, list) else []
    pnpm = files.text("pnpm-workspace.yaml") or ""
    block = re.search(r"(?m)^packages:[ \t]*\n((?:[ \t]+-.*(?:\n|$))+)", pnpm)
    if block:
        patterns += re.findall(r"-\s*['\"]?([^'\"\n#]+?)['\"]?\s*(?:#.*)?$", block.group(1), re.M)
    members = []
    for path in files.paths():
        folder = posixpath.dirname(path)
        if posixpath.basename(path) != "package.json" or not folder or "node_modules" in path:
            continue
        hit = [p for p in patterns if fnmatch.fnmatch(folder, p.removeprefix("./").rstrip("/"))]
        if hit and not any(p.startswith("!") for p in hit):
            members.append(folder)
    return sorted(members)


@cache
def machine_node() -> str:
    try:
        done = subprocess.run(["node", "--version"], capture_output=True, text=True, timeout=30)
    except OSError:
        return "node (none)"
    return f"node {done.stdout.strip()}"


def wanted_node(files: Files, package: dict[str, Any]) -> str | None:
    """The Node.js versions the project asks for (`engines.node`, `.nvmrc`, `.node-version`)
    as an npm range, when this machine's Node.js is not one of them."""
    engines = package.get("engines") if isinstance(package.get("engines"), dict) else {}
    want = str((engines or {}).get("node") or "").strip()
    if not want:
        for name in (".nvmrc", ".node-version"):
            text = (files.text(name) or "").strip().removeprefix("v")
            if re.fullmatch(r"\d+(\.\d+){0,2}", text):
                want = text if text.count(".") == 2 else f"{text}.x"
                break
    have = machine_node().removeprefix("node v")
    try:
        if not want or NpmSpec(want).match(Version(have)):
            return None
    except ValueError:
        return None  # a range npm itself would not read (`lts/*`): the machine's
    return want
