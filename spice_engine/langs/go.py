"""Go: modules, `go test -json`, the machine's own Go (it builds old code: no other is fetched)."""

from __future__ import annotations

import json
import posixpath
import re
import shlex
from collections.abc import Iterator
from pathlib import Path

from spice_engine.langs import go_code, go_trace, line_probes, written_tests
from spice_engine.langs.base import (
    CACHE,
    JOB,
    Files,
    Phase,
    Plan,
    Seed,
    Toolchain,
    ToolchainMissing,
    with_fix_files,
)
from spice_engine.langs.manifests import named, owner, texts
from spice_engine.validate.outcomes import Outcomes, TestStatus

GOROOT = Path("/usr/local/go")
_DIRECTIVE = re.compile(r"^go\s+(\d+)\.(\d+)", re.M)
_MODULE = re.compile(r"^module\s+(\S+)", re.M)
_SEEDED = [
    "bufio",
    "bytes",
    "context",
    "crypto/sha256",
    "encoding/base64",
    "encoding/hex",
    "encoding/json",
    "errors",
    "flag",
    "fmt",
    "io",
    "log",
    "math",
    "math/rand",
    "net",
    "net/http",
    "net/http/httptest",
    "net/url",
    "os",
    "os/exec",
    "os/signal",
    "path/filepath",
    "reflect",
    "regexp",
    "runtime/debug",
    "sort",
    "strconv",
    "strings",
    "sync",
    "sync/atomic",
    "time",
    "unicode/utf8",
]
"""The standard packages a seed compiles: `testing` and what tests most often import."""
SEED = Seed(
    folder="gocache",
    files={
        "go.mod": "module spice.invalid/seed\n\ngo 1.16\n",
        "seed_test.go": "package seed\n\nimport (\n"
        + "".join(f'\t_ "{p}"\n' for p in _SEEDED)
        + '\t"testing"\n)\n\nfunc TestSeed(t *testing.T) {}\n',
    },
    # Every job's own flags (-vet=off, the cgo setting of the plan): the compiled packages
    # are found only under the keys the jobs ask for.
    phase=Phase(
        argv=("go", "test", "-vet=off", "-count=1", "."),
        env={"GOFLAGS": "-mod=mod", "GOMODCACHE": f"{JOB}/gomod", "GOPROXY": "off"},
    ),
)
_ACTIONS = {"pass": TestStatus.PASSED, "fail": TestStatus.FAILED, "skip": TestStatus.SKIPPED}


def machine_go(goroot: Path = GOROOT) -> tuple[str, tuple[int, int]]:
    """This machine's Go: its name (`go1.26.8`) and (major, minor)."""
    try:
        name = (goroot / "VERSION").read_text().split()[0]
    except (OSError, IndexError) as exc:
        raise ToolchainMissing("no Go toolchain this worker's user can run") from exc
    found = re.match(r"go(\d+)\.(\d+)", name)
    return name, (int(found.group(1)), int(found.group(2))) if found else (0, 0)


class Go:
    call_tracer = staticmethod(go_trace.traced)
    """Its functions' calls written down (spice_engine.langs.capabilities.CallTraces)."""
    call_callers = staticmethod(go_trace.callers)

    name = "go"
    compiled_to = "machine code"

    def __init__(self, goroot: Path = GOROOT) -> None:
        self.goroot = goroot

    def detect(self, files: Files) -> int:
        mods = named(files, "go.mod")
        return 10 if "go.mod" in mods else 5 if mods else 0

    def is_test_path(self, path: str) -> bool:
        return path.endswith("_test.go") or "/testdata/" in f"/{path}"

    def mutable(self, path: str) -> bool:
        return path.endswith(".go") and not self.is_test_path(path)

    def grammar(self, path: str) -> str | None:
        return "go" if path.endswith(".go") else None

    def written_test(
        self, files: Files, path: str, test_files: list[str]
    ) -> written_tests.WrittenPlace | None:
        return written_tests.go_place(files, path)

    def plan(self, files: Files, date: str | None) -> Plan:
        version, have = machine_go(self.goroot)
        mods = named(files, "go.mod")
        for mod in mods:
            want = _DIRECTIVE.search(files.text(mod) or "")
            if want and (int(want.group(1)), int(want.group(2))) > have:
                raise ToolchainMissing(
                    f"{mod} asks for go {want.group(1)}.{want.group(2)}; this machine has "
                    f"{version} and fetches no other Go"
                )
        roots = sorted({posixpath.dirname(m) for m in mods})
        vendored = any(p.endswith("vendor/modules.txt") for p in files.paths())
        download = "; ".join(
            f"(cd {shlex.quote(r or '.')} && go mod download -x 2>&1 | tail -n 20)" for r in roots
        )
        install = () if vendored else (Phase(argv=("sh", "-ec", download), network=True),)
        # The modules' files and the workspace's: `go mod download` reads nothing else (its
        # settings come from the environment below, GOENV off).
        read = [*mods, *named(files, "go.sum"), "go.work", "go.work.sum"]
        return Plan(
            language=self.name,
            toolchain=Toolchain(name=version, path=(str(self.goroot / "bin"),)),
            key=(),
            inputs={} if vendored else texts(files, read),
            install=install,
            registries=("proxy.golang.org:443", "sum.golang.org:443"),
            caches=("gomod",),
            seed=SEED,
            env={
                "GOTOOLCHAIN": "local",
                "GOENV": "off",
                # `go mod download` runs none of the repository's code and checks every module
                # against go.sum: one module cache serves all the repository's environments.
                "GOMODCACHE": f"{CACHE}/gomod",
                "GOPATH": f"{JOB}/gopath",
                "GOCACHE": f"{JOB}/gocache",
                "GOFLAGS": "-mod=vendor" if vendored else "-mod=mod",
                "GOPROXY": "https://proxy.golang.org",
                "GOSUMDB": "sum.golang.org",
                "CGO_ENABLED": "1",
            },
        )

    def targets(self, test_files: list[str], fix_files: list[str]) -> list[str]:
        return with_fix_files(test_files, fix_files)

    def test_command(self, files: Files, test_files: list[str], plan: Plan) -> Phase:
        roots = sorted({posixpath.dirname(m) for m in named(files, "go.mod")})
        # Each changed package's tests (the fix's packages too), where a Go file remains.
        folders = {posixpath.dirname(p) for p in files.paths() if p.endswith(".go")}
        by_root: dict[str, set[str]] = {}
        for path in test_files:
            folder = posixpath.dirname(path)
            if not path.endswith(".go") or self.is_test_path(path) != path.endswith("_test.go"):
                continue  # not Go, or a file under testdata/
            root = owner(path, roots)
            if root is None or folder not in folders:
                continue
            rel = posixpath.relpath(folder or ".", root or ".")
            by_root.setdefault(root, set()).add("./" + rel if rel != "." else ".")
        steps = [
            # -vet=off: a newer toolchain's vet rejects test code that built in its day, and
            # its findings are not test results (a build failure of every test of the package).
            f"(cd {shlex.quote(root or '.')} && go test -json -vet=off -count=1 -p 2 -timeout 30m "
            + " ".join(shlex.quote(p) for p in sorted(pkgs))
            + ")"
            for root, pkgs in sorted(by_root.items())
        ]
        script = "; ".join(steps) or "true"
        # Tests see no network: the module cache is all there is, and the sums were checked
        # when it was filled.
        env = {"GOPROXY": "off", "GOSUMDB": "off"}
        return Phase(argv=("sh", "-c", script), env=env, channel=True)

    def code_command(self, files: Files, path: str, plan: Plan) -> Phase | None:
        return go_code.code_command(files, path, plan)

    def line_probe(self, path: str, source: str, at: int) -> str | None:
        return line_probes.probe(self.grammar(path), source, at)

    def code_misses(self, source: str, line: int) -> str | None:
        return go_code.code_misses(source, line)

    def outcomes(self, channel: str, log: str, plan: Plan | None = None) -> Outcomes:
        """`import/path::TestName[/subtest]` for each test that ended."""
        found: Outcomes = {}
        for test, action, _ in _events(channel):
            if action in _ACTIONS:
                found[test] = _ACTIONS[action]
        return found

    def failure_texts(self, channel: str, log: str, plan: Plan | None = None) -> dict[str, str]:
        """What each failed test printed (`go test -json`'s output events: its log lines and
        the failure's message)."""
        printed: dict[str, list[str]] = {}
        failed = set()
        for test, action, output in _events(channel):
            if action == "output":
                printed.setdefault(test, []).append(output)
            elif action == "fail":
                failed.add(test)
        return {t: "".join(printed.get(t, [])) for t in failed}


def _events(channel: str) -> Iterator[tuple[str, str, str]]:
    """(test id, action, output) of each `go test -json` event naming a test."""
    for line in channel.splitlines():
        if not line.startswith("{"):
            continue
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if not isinstance(event, dict) or not event.get("Test"):
            continue
        # The import path, not a folder of this machine: the same id everywhere.
        test = f"{event.get('Package', '')}::{event['Test']}"
        yield test, str(event.get("Action")), str(event.get("Output") or "")
