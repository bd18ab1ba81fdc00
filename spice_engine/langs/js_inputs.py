"""What a JavaScript install sees of the tree: manifests, lockfiles, patches, and only those
settings of `.npmrc`, `.yarnrc.yml` and `pnpm-workspace.yaml` that shape the dependency tree.

Every other setting can choose what runs or where things go: `.npmrc`'s `git=` or
`script-shell=` run a program of the tree's, `.yarnrc`'s `yarn-path` and `.yarnrc.yml`'s
`yarnPath` and `plugins` run its JavaScript, `.pnpmfile.cjs` is code, a `store-dir` or
`cache` moves writes into a cache other environments read, a `noproxy`, `proxy` or
`registry` sends the install around the index proxy. Those files are not shown to the
install at all; the settings kept are written back, one per line, and keyed like the rest.
"""

from __future__ import annotations

import json
import posixpath
import re
from typing import Any

import yaml

from spice_engine.langs.base import Files

LOCKFILES = ("package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml")
NPMRC_KEPT = frozenset(
    {
        "legacy-peer-deps",
        "strict-peer-deps",
        "strict-peer-dependencies",
        "engine-strict",
        "auto-install-peers",
        "shamefully-hoist",
        "hoist",
        "hoist-pattern",
        "public-hoist-pattern",
        "node-linker",
        "dedupe-peer-dependents",
        "resolution-mode",
        "link-workspace-packages",
        "prefer-workspace-packages",
        "shared-workspace-lockfile",
        "include-workspace-root",
        "install-strategy",
        "install-links",
        "omit",
        "include",
        "package-lock",
        "lockfile",
        "dedupe-direct-deps",
        "resolve-peers-from-workspace-root",
        "peers-suffix-max-length",
        "save-workspace-protocol",
        "optional",
    }
)
"""`.npmrc` keys (npm's and pnpm's) that only shape which packages land where."""
YAML_KEPT = frozenset(
    {
        # pnpm-workspace.yaml
        "packages",
        "catalog",
        "catalogs",
        "overrides",
        "packageExtensions",
        "patchedDependencies",
        "peerDependencyRules",
        "allowedDeprecatedVersions",
        "shamefullyHoist",
        "hoist",
        "hoistPattern",
        "publicHoistPattern",
        "nodeLinker",
        "linkWorkspacePackages",
        "preferWorkspacePackages",
        "sharedWorkspaceLockfile",
        "autoInstallPeers",
        "strictPeerDependencies",
        "dedupePeerDependents",
        "resolutionMode",
        "includeWorkspaceRoot",
        # .yarnrc.yml
        "nmHoistingLimits",
        "nmSelfReferences",
        "checksumBehavior",
        "supportedArchitectures",
        "enableTransparentWorkspaces",
    }
)
"""Top-level keys of pnpm-workspace.yaml and .yarnrc.yml that only shape the dependency tree."""
PATCH_FOLDERS = (".yarn/patches/", "patches/")
"""Where yarn's `patch:` protocol and pnpm's `patchedDependencies` find their patches (data)."""
_LOCAL = re.compile(r"^(?:file|link|portal):(.+)$")


def npmrc(text: str) -> str:
    """The kept settings of an `.npmrc`, one `key=value` a line (no variable is expanded)."""
    kept = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in "#;" or "=" not in line:
            continue
        key, _, value = line.partition("=")
        key, value = key.strip().strip("'\"").lower(), value.strip()
        if key in NPMRC_KEPT and "${" not in value:
            kept.append(f"{key}={value}")
    return "".join(f"{line}\n" for line in kept)


def yaml_settings(text: str) -> str:
    """The kept top-level settings of a YAML configuration, written again (nothing when it
    does not parse as a mapping)."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return ""
    if not isinstance(data, dict):
        return ""
    kept = {k: v for k, v in data.items() if isinstance(k, str) and k in YAML_KEPT}
    return yaml.safe_dump(kept, sort_keys=True) if kept else ""


def install_inputs(files: Files, folders: list[str]) -> dict[str, str]:
    """What the install in `folders` ("" the top, then workspace members or projects) reads."""
    paths = set(files.paths())
    inputs: dict[str, str] = {}

    def take(path: str, make: Any = None) -> None:
        text = files.text(path) if path in paths else None
        if text is not None:
            inputs[path] = make(text) if make else text

    queue = list(folders)
    seen: set[str] = set()
    while queue:
        folder = queue.pop()
        if folder in seen:
            continue
        seen.add(folder)
        for name in ("package.json", *LOCKFILES):
            take(posixpath.join(folder, name))
        take(posixpath.join(folder, ".npmrc"), npmrc)
        take(posixpath.join(folder, ".yarnrc.yml"), yaml_settings)
        take(posixpath.join(folder, "pnpm-workspace.yaml"), yaml_settings)
        package = inputs.get(posixpath.join(folder, "package.json"))
        queue += _local_dependencies(package, folder, paths)
    for path in paths:
        if path.endswith(".patch") and any(f in f"/{path}" for f in PATCH_FOLDERS):
            take(path)
    return {path: text for path, text in inputs.items() if text}


def _local_dependencies(text: str | None, folder: str, paths: set[str]) -> list[str]:
    """Folders in the tree that package.json's `file:`/`link:`/`portal:` dependencies name."""
    try:
        package = json.loads(text or "{}")
    except ValueError:
        return []
    found = []
    for field in ("dependencies", "devDependencies", "optionalDependencies"):
        table = package.get(field) if isinstance(package, dict) else None
        for spec in (table or {}).values() if isinstance(table, dict) else ():
            local = _LOCAL.match(str(spec))
            if not local:
                continue
            target = posixpath.normpath(posixpath.join(folder, local.group(1)))
            if target.startswith("..") or posixpath.isabs(target):
                continue
            if posixpath.join(target, "package.json") in paths:
                found.append("" if target == "." else target)
    return found
