"""What a JavaScript project's `test` script runs: the runner, the variables and options it
gives it, read from package.json's scripts as npm's shell would read them (other scripts it
runs through `npm run`, `yarn` or `pnpm` read in their place).

Only options that change how tests load or behave are kept; reporters, coverage, watching,
bailing and paths are ours to choose.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import re
import shlex
from dataclasses import dataclass, field
from typing import Any

RUNNERS = ("jest", "vitest", "mocha")
NODE_TEST = "node --test"
SEPARATORS = {"&&", "||", ";", "|", "&"}
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=.*")
_ENV_TOOLS = {"cross-env", "cross-env-shell", "env"}
_LAUNCHERS = {"npx", "exec", "dlx"}  # `npx jest`, `pnpm exec vitest`, `yarn dlx`
_COVERAGE = {"nyc", "c8", "istanbul", "nyc-mocha"}
WRAPPERS = {"react-scripts", "craco", "react-app-rewired", "rescripts"}
"""Tools whose `test` command is jest with a configuration of their own making."""


def _options(text: str) -> set[str]:
    return set(text.split())


# Per runner: options kept with the value that follows them, and flags kept as they are.
_VALUES = {
    "jest": _options(
        "--config -c --rootDir --env --testEnvironment --preset --setupFiles"
        " --setupFilesAfterEnv --setupTestFrameworkScriptFile --testRunner --roots"
        " --testTimeout --projects --moduleDirectories"
    ),
    "vitest": _options("--config -c --root -r --dir --environment --pool --project --testTimeout"),
    "mocha": _options(
        "--require -r --ui -u --compilers --timeout -t --file --config --package"
        " --extension --import --loader"
    ),
    NODE_TEST: _options("--require -r --import --loader --experimental-loader --test-timeout"),
}
_FLAGS = {
    "jest": _options(
        "--forceExit --resetMocks --clearMocks --restoreMocks --resetModules --no-cache"
        " --silent --detectOpenHandles --injectGlobals"
    ),
    "vitest": _options("--dom --globals --no-isolate --isolate"),
    "mocha": _options(
        "--check-leaks --exit --recursive --full-trace --no-timeouts --async-only"
        " --allow-uncaught --delay"
    ),
    NODE_TEST: _options("--enable-source-maps --no-warnings --expose-gc"),
}
_FLAG_PREFIXES = {NODE_TEST: ("--experimental-", "--no-experimental-")}
_DROPPED_VALUES = _options(
    "--reporter -R --reporter-options -O --maxWorkers -w --coverageReporters"
    " --test-reporter --test-reporter-destination --outputFile --grep -g --fgrep -f"
    " --testNamePattern -t --slow -s --spec"
)
"""Options whose value is ours to choose (or a selection of tests), dropped with it."""


@dataclass
class Command:
    """The test script's command running `runner`."""

    runner: str
    env: dict[str, str] = field(default_factory=dict)
    """Variables it is given (`NAME=value` before it, or through cross-env)."""
    node: list[str] = field(default_factory=list)
    """Node.js's own options when it is run as `node [options] path/to/runner`."""
    options: list[str] = field(default_factory=list)
    """The runner's options that are kept."""
    wrapper: str | None = None
    """The tool (`react-scripts`) whose `test` command runs jest."""
    paths: list[str] = field(default_factory=list)
    """What it names to run (paths, globs or patterns): a part of the suite, not all of it."""

    @property
    def positional(self) -> bool:
        return bool(self.paths)

    def key(self) -> tuple[str, ...]:
        """What makes its runs differ (not the paths)."""
        env = [f"{k}={v}" for k, v in sorted(self.env.items())]
        return (self.runner, str(self.wrapper), *env, "|", *self.node, "|", *self.options)

    def names(self, path: str) -> bool:
        """Whether it runs the test file `path` (relative to the tree) among its paths."""
        for named in self.paths:
            if self.runner in ("jest", "vitest"):  # patterns, searched in the whole path
                try:
                    if re.search(named, f"/testbed/{path}"):
                        return True
                except re.error:
                    if named in path:
                        return True
            elif (
                path == named.removeprefix("./")
                or fnmatch.fnmatch(path, named.removeprefix("./").replace("**/", "*"))
                or path.startswith(named.removeprefix("./").rstrip("/") + "/")
            ):
                return True
        return False


def _scripts(package: dict[str, Any]) -> dict[str, Any]:
    scripts = package.get("scripts")
    return scripts if isinstance(scripts, dict) else {}


def test_script(package: dict[str, Any]) -> str:
    return str(_scripts(package).get("test") or "")


def words(script: str) -> list[str]:
    try:
        return shlex.split(script, posix=True)
    except ValueError:  # unbalanced quotes: npm's shell would refuse it too
        return script.split()


def segments(package: dict[str, Any], script: str | None = None, depth: int = 0) -> list[list[str]]:
    """The simple commands of the test script, in order, scripts it runs read in place
    (each with the variables of the command that ran it)."""
    scripts = _scripts(package)
    found: list[list[str]] = []
    current: list[str] = []
    for word in [*words(test_script(package) if script is None else script), ";"]:
        if word not in SEPARATORS:
            current.append(word)
            continue
        env, rest = _environment(current)
        name = _script_run(rest, scripts)
        if name is not None and depth < 4:
            prefix = [f"{k}={v}" for k, v in env.items()]
            found += [prefix + s for s in segments(package, str(scripts[name]), depth + 1)]
        elif current:
            found.append(current)
        current = []
    return found


def _script_run(rest: list[str], scripts: dict[str, Any]) -> str | None:
    """The name of the package.json script `rest` runs (`npm run lint`, `yarn test:unit`)."""
    if len(rest) >= 3 and rest[0] in ("npm", "yarn", "pnpm") and rest[1] in ("run", "run-script"):
        name = rest[2]
    elif len(rest) >= 2 and rest[0] in ("yarn", "pnpm"):
        name = rest[1]
    else:
        return None
    return name if isinstance(scripts.get(name), str) else None


def _environment(segment: list[str]) -> tuple[dict[str, str], list[str]]:
    env: dict[str, str] = {}
    i = 0
    while i < len(segment):
        word = segment[i]
        if _ASSIGNMENT.fullmatch(word):
            name, _, value = word.partition("=")
            env[name] = value
        elif word not in _ENV_TOOLS:
            break
        i += 1
    return env, segment[i:]


def _runner_word(word: str) -> str | None:
    base = word.rsplit("/", 1)[-1]
    base = re.sub(r"\.[cm]?js$", "", base).removesuffix("-cli")
    if base == "_mocha":
        return "mocha"
    return base if base in RUNNERS else None


def command_of(segment: list[str]) -> Command | None:
    """The runner `segment` runs, or None when it runs none of ours."""
    env, rest = _environment(segment)
    while rest and rest[0] in _LAUNCHERS | {"yarn", "pnpm"} and len(rest) > 1:
        rest = rest[1:]  # `npx jest`, `yarn jest`, `pnpm exec vitest`
        while len(rest) > 1 and rest[0].startswith("-"):
            rest = rest[1:]  # `npx --no-install jest`
    if rest and rest[0].rsplit("/", 1)[-1] in _COVERAGE:
        # `nyc --reporter=lcov mocha ...`: the runner and what follows it (coverage is not
        # ours to measure); `istanbul cover _mocha -- -R spec`: its options after `--`.
        at = next((i for i, w in enumerate(rest) if _runner_word(w)), None)
        rest = [w for w in rest[at:] if w != "--"] if at is not None else []
    if not rest:
        return None
    node: list[str] = []
    if rest[0] in ("node", "nodejs"):
        i = 1
        while i < len(rest) and rest[i].startswith("-"):
            value = rest[i] in _VALUES[NODE_TEST] and i + 1 < len(rest)
            node += rest[i : i + 1 + value]
            i += 1 + value
        if "--test" in node:
            node.remove("--test")
            return _command(NODE_TEST, env, node + rest[i:], [], None)
        rest = rest[i:]
        if not rest:
            return None
    if rest[0] in WRAPPERS and rest[1:2] == ["test"]:
        return _command("jest", env, rest[2:], node, rest[0])
    runner = _runner_word(rest[0])
    if runner is None:
        return None
    arguments = rest[1:]
    if runner == "vitest" and arguments[:1] in (["run"], ["watch"], ["dev"]):
        arguments = arguments[1:]
    return _command(runner, env, arguments, node, None)


def _command(
    runner: str, env: dict[str, str], arguments: list[str], node: list[str], wrapper: str | None
) -> Command:
    values, flags = _VALUES[runner], _FLAGS[runner]
    prefixes = _FLAG_PREFIXES.get(runner, ())
    kept: list[str] = []
    paths: list[str] = []
    i = 0
    while i < len(arguments):
        word = arguments[i]
        name = word.split("=", 1)[0]
        if word in values and i + 1 < len(arguments):
            kept += [word, arguments[i + 1]]
            i += 2
            continue
        if word in _DROPPED_VALUES:
            paths += arguments[i + 1 : i + 2] if word == "--spec" else []
            i += 2
            continue
        if name in values or word in flags or word.startswith(prefixes):
            kept.append(word)
        elif not word.startswith("-") and not re.fullmatch(r"\d+", word):
            paths.append(word)
        i += 1
    return Command(runner, env, node, kept, wrapper, paths)


def script_commands(package: dict[str, Any]) -> list[Command]:
    """The test script's commands running a runner of ours, in order."""
    return [c for c in map(command_of, segments(package)) if c is not None]


def script_command(package: dict[str, Any]) -> Command | None:
    """The test script's command running a runner of ours: the first that runs the whole
    suite (no paths of its own), else the first."""
    found = script_commands(package)
    return next((c for c in found if not c.positional), found[0] if found else None)


def runs_of(package: dict[str, Any], default: Command, files: list[str]) -> list[Command]:
    """The commands to run `files` with, each with the files it runs (as `paths`): a file
    the script runs by name (under a time zone, with a setup of its own) runs as each such
    command runs it, and as the whole suite runs it too."""
    named = [c for c in script_commands(package) if c.positional and c.runner == default.runner]
    runs: dict[tuple[str, ...], Command] = {}
    for file in files:
        own = [c for c in named if c.names(file)]
        for command in own + ([default] if not own or not default.positional else []):
            run = runs.setdefault(command.key(), dataclasses.replace(command, paths=[]))
            if file not in run.paths:
                run.paths.append(file)
    return list(runs.values())
