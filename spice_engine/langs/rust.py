"""Rust: cargo workspaces, libtest's text results, the machine's own stable toolchain."""

from __future__ import annotations

import posixpath
import re
import shlex
import subprocess
from fnmatch import fnmatch
from functools import cache
from pathlib import Path

from spice_engine.langs import line_probes, rust_code, rust_reports, rust_trace, written_tests
from spice_engine.langs.base import (
    BASE_INPUTS,
    ENV,
    JOB,
    Files,
    Phase,
    Plan,
    Toolchain,
    ToolchainMissing,
    with_fix_files,
)
from spice_engine.langs.manifests import named, owner, texts
from spice_engine.langs.programs import ProgramBuild, rust_programs
from spice_engine.langs.rust_manifests import table as _table
from spice_engine.langs.rust_manifests import target_files
from spice_engine.langs.rust_manifests import toml as _toml
from spice_engine.validate.outcomes import Outcomes

RUSTUP = Path("/root/.cargo/bin/rustup")
CRATES_IO = ("index.crates.io:443", "static.crates.io:443", "crates.io:443")
"""crates.io's sparse index, its downloads and its API: what a Rust install reaches."""
EDITIONS = {"2015": (1, 0), "2018": (1, 31), "2021": (1, 56), "2024": (1, 85)}
_TEST_DIRS = {"tests", "testdata", "test-data", "test_data"}
_TEST_FILES = {"tests.rs", "test.rs"}
# How far past the commit's date the lockfile's cut-off moves, in months, when the registry
# no longer resolves at the date itself: versions yanked since then are gone for good.
_LATER = (0, 1, 2, 3, 6, 12, 24, 48)


@cache
def machine_rust(rustup: Path = RUSTUP) -> tuple[Path, tuple[int, int]]:
    """The default (stable) toolchain's folder and (major, minor), asked from `/` so that no
    project's `rust-toolchain` file is in the way, and never through rustup's proxies after
    this: they would download whatever toolchain a tree's file names."""
    try:
        where = subprocess.run(
            [str(rustup), "which", "cargo"], cwd="/", capture_output=True, text=True, check=True
        ).stdout.strip()
        folder = Path(where).parent.parent
        version = subprocess.run(
            [str(folder / "bin" / "rustc"), "-V"], capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        raise ToolchainMissing("no Rust toolchain this worker's user can run") from exc
    found = re.search(r"(\d+)\.(\d+)", version)
    return folder, (int(found.group(1)), int(found.group(2))) if found else (0, 0)


def _roots(files: Files) -> list[str]:
    """Folders of the outermost manifests: where cargo is run (a workspace or a lone crate)."""
    dirs = sorted({posixpath.dirname(m) for m in named(files, "Cargo.toml")}, key=len)
    roots: list[str] = []
    for folder in dirs:
        if owner(folder + "/", roots) is None:
            roots.append(folder)
    return roots


def _locked(root: str) -> str:
    """Into `root`, its lockfile made usable offline: the environment's where the tree's names
    crates the environment lacks."""
    where = shlex.quote(root or ".")
    lock = shlex.quote(_at(f"{ENV}/lock", _at(root, "Cargo.lock")))
    return (
        f"cd {where} && {{ [ -e Cargo.lock ] || cp {lock} . 2>/dev/null || true; }}"
        f" && {{ cargo fetch --offline -q 2>/dev/null || cp -f {lock} . 2>/dev/null || true; }}"
    )


def _globs(data: dict[str, object], key: str) -> list[str]:
    found = _table(data, "workspace").get(key)
    return [str(g) for g in found] if isinstance(found, list) else []


def _at(root: str, name: str) -> str:
    return posixpath.join(root, name) if root else name


class Rust:
    call_tracer = staticmethod(rust_trace.traced)
    """Its functions' calls written down (spice_engine.langs.capabilities.CallTraces)."""
    call_callers = staticmethod(rust_trace.callers)

    name = "rust"
    compiled_to = "machine code"
    copying_calls = frozenset({"clone"})
    """`x.clone()` → `x` builds only where `x` is not used again: the same value, moved (a
    reference count aside), so never a wrong fix (ripgrep-2209's `range.clone()`)."""
    copying_calls |= {"as_path", "as_os_str", "as_str", "as_mut_str", "as_slice", "as_mut_slice"}
    """And the views of an owned value as what it derefs to (`PathBuf` → `Path`, `String` →
    `str`, `Vec` → slice, each printed alike): where `x.as_path()` → `x` still builds, auto-deref
    reaches the same method on the same value (ripgrep-2295's `self.0.dir.as_path()`)."""

    def __init__(self, rustup: Path = RUSTUP) -> None:
        self.rustup = rustup

    def detect(self, files: Files) -> int:
        manifests = named(files, "Cargo.toml")
        return 10 if "Cargo.toml" in manifests else 5 if manifests else 0

    def is_test_path(self, path: str) -> bool:
        # Benches are benchmarks that `cargo test` does not run: they go with the fix (whose
        # API they use). Inline `#[cfg(test)]` modules in src/ files are invisible here.
        parts = path.split("/")
        name = parts[-1]
        return (
            bool(_TEST_DIRS.intersection(parts[:-1]))
            or name in _TEST_FILES
            or name.endswith(("_test.rs", "_tests.rs"))
        )

    def mutable(self, path: str) -> bool:
        parts = path.split("/")
        return (
            path.endswith(".rs")
            and not self.is_test_path(path)
            and not {"examples", "benches", "target"}.intersection(parts[:-1])
            and parts[-1] != "build.rs"
        )

    def grammar(self, path: str) -> str | None:
        return "rust" if path.endswith(".rs") else None

    def written_test(
        self, files: Files, path: str, test_files: list[str]
    ) -> written_tests.WrittenPlace | None:
        return written_tests.rust_place(path)

    def _check_versions(self, files: Files, have: tuple[int, int]) -> None:
        for manifest in named(files, "Cargo.toml"):
            data = _toml(files, manifest)
            for table in (_table(data, "package"), _table(data, "workspace", "package")):
                edition, wanted = str(table.get("edition", "2015")), table.get("rust-version")
                if edition not in EDITIONS:
                    raise ToolchainMissing(f"{manifest} asks for edition {edition}")
                found = re.match(r"(\d+)\.(\d+)", str(wanted or ""))
                if found and (int(found.group(1)), int(found.group(2))) > have:
                    raise ToolchainMissing(
                        f"{manifest} asks for rust {wanted}; this machine has "
                        f"{have[0]}.{have[1]} and fetches no other Rust"
                    )

    def plan(self, files: Files, date: str | None) -> Plan:
        folder, have = machine_rust(self.rustup)
        self._check_versions(files, have)
        bins = folder / "bin"
        roots = _roots(files)
        # The commit's own crates too (the tree has the fix, which may change what the
        # manifests or the lockfile name): the run before the fix builds offline from them.
        # Moved out first: inside the workspace's folder cargo would take them for a member.
        base = " && ".join(f'(cd "$base"/{shlex.quote(r or ".")} && cargo fetch -q)' for r in roots)
        install = "\n".join(
            [
                f'base=$(mktemp -d) && if [ -d {BASE_INPUTS} ]; then mv {BASE_INPUTS}/* "$base"/; fi',
                "set -e",
                *(self._install(files, r, date) for r in roots),
                f"{{ {base}; }} || true",
            ]
        )
        locks = [_at(r, "Cargo.lock") for r in roots if files.text(_at(r, "Cargo.lock"))]
        manifests = [p for p in files.paths() if posixpath.basename(p) == "Cargo.toml"]
        return Plan(
            language=self.name,
            toolchain=Toolchain(
                name=f"rustc {have[0]}.{have[1]}",
                folders=(folder,),
                path=(str(bins),),
                # cargo runs these, not rustup's proxies (which would read rust-toolchain).
                env={"RUSTC": str(bins / "rustc"), "RUSTDOC": str(bins / "rustdoc")},
            ),
            key=(date or "", "base fetched"),
            # Manifests, lockfiles and each target's file, empty (cargo wants a target to
            # exist, never its source to fetch): no `.cargo/config.toml` of the tree's, whose
            # `rustc-wrapper` or `[target] runner` would be a program of its choosing.
            inputs={
                **{p: "" for p in target_files(files, manifests)},
                **texts(files, [*manifests, *locks]),
            },
            base_inputs=True,
            install=(
                Phase(
                    argv=("sh", "-c", install),
                    network=True,
                    env={"RUSTC_WRAPPER": "", "RUSTC_WORKSPACE_WRAPPER": ""},
                ),
            ),
            registries=CRATES_IO,
            env={
                "CARGO_HOME": f"{ENV}/cargo",
                "CARGO_TARGET_DIR": f"{JOB}/target",
                # Old code often says `#![deny(warnings)]`; a newer compiler's new lints must
                # not turn that into a build failure the fix has nothing to do with.
                "RUSTFLAGS": "--cap-lints=warn",
                "CARGO_TERM_COLOR": "never",
                "CARGO_PROFILE_DEV_DEBUG": "0",
                "CARGO_PROFILE_TEST_DEBUG": "0",
                "RUST_BACKTRACE": "0",
            },
        )

    def _install(self, files: Files, root: str, date: str | None) -> str:
        """Fetch every crate of `root`'s lockfile; without one, generate it as of the date
        (given, else the commit's), kept in the environment for the tests' trees."""
        where = shlex.quote(root or ".")
        keep = shlex.quote(_at(f"{ENV}/lock", root))
        if files.text(_at(root, "Cargo.lock")):
            return f"(cd {where} && cargo fetch && mkdir -p {keep} && cp Cargo.lock {keep}/)"
        when = f"$(date -u -d {shlex.quote(date)} +%s)" if date else "$(date -u +%s)"
        # `--publish-time` is unstable: RUSTC_BOOTSTRAP lets cargo's resolver take it, and
        # nothing is compiled by this command, so the project's code never sees it.
        steps = " ".join(str(m * 30 * 86400) for m in _LATER)
        return (
            f"(cd {where} && when={when} && for later in {steps}; do"
            ' at=$(date -u -d "@$((when + later))" +%Y-%m-%dT%H:%M:%SZ);'
            " RUSTC_BOOTSTRAP=1 cargo generate-lockfile -Zunstable-options"
            ' --publish-time "$at" 2>&1 | tail -n 3 && [ -e Cargo.lock ] && echo "resolved as of $at"'
            " && break; done; [ -e Cargo.lock ] || cargo generate-lockfile;"
            f" cargo fetch && mkdir -p {keep} && cp Cargo.lock {keep}/)"
        )

    def targets(self, test_files: list[str], fix_files: list[str]) -> list[str]:
        return with_fix_files(test_files, fix_files)

    def test_command(self, files: Files, test_files: list[str], plan: Plan) -> Phase:
        roots = _roots(files)
        owners: dict[str, set[str]] = {}
        packages = sorted({posixpath.dirname(m) for m in named(files, "Cargo.toml")})
        for path in test_files:
            root = owner(path, roots)
            if root is not None:
                owners.setdefault(root, set()).add(owner(path, packages) or "")
        steps = [self._run(files, root, found) for root, found in sorted(owners.items())]
        return Phase(
            argv=("sh", "-c", "; ".join(steps) or "true"),
            env={"CARGO_NET_OFFLINE": "true"},
            channel=True,
        )

    def _run(self, files: Files, root: str, folders: set[str]) -> str:
        """Build then run `root`'s tests: what a bare `cargo test` there runs (the root
        package, or every member of a virtual workspace) and each package holding a test
        file. Doc tests are left out: rustdoc names them by line number, which the fix moves."""
        data = _toml(files, _at(root, "Cargo.toml"))
        if "package" not in data:
            select = ["--workspace"]
        else:
            members, excluded = _globs(data, "members"), _globs(data, "exclude")
            names = {str(_table(data, "package").get("name", ""))}
            for folder in folders:
                rel = posixpath.relpath(folder or ".", root or ".")
                inside = any(fnmatch(rel, m.rstrip("/")) for m in members)
                if inside and not any(fnmatch(rel, e.rstrip("/")) for e in excluded):
                    member = _table(_toml(files, _at(folder, "Cargo.toml")), "package")
                    names.add(str(member.get("name", "")))
            select = [a for n in sorted(names - {""}) for a in ("-p", n)]
        args = " ".join(shlex.quote(a) for a in [*select, "--tests"])
        # The compiler's JSON on the channel says which source file each test binary is
        # built from; its rendered errors go to the log. The run's `Running <binary>` lines
        # are cargo's standard error: merged into the channel, they stand right before that
        # binary's libtest lines (one ordered stream), whatever a test prints to stderr.
        # The environment holds the crates of the lockfile it was built from (the tree with
        # the fix): where the tree's own lockfile names crates it lacks (the fix changed the
        # lockfile), that one stands in, and cargo moves it offline to what the manifests ask.
        return (
            f"({_locked(root)}"
            f" && cargo test --offline --no-run --message-format=json-render-diagnostics {args}"
            f" && cargo test --offline --no-fail-fast {args} 2>&1)"
        )

    def programs(self, files: Files) -> list[str]:
        return rust_programs(files)

    def program_build(self, files: Files, plan: Plan) -> ProgramBuild | None:
        """Every root's binaries, built as the tests build (the dev profile: the tests' own
        dependencies' builds are reused), into the job's target folder."""
        roots = _roots(files)
        if not roots:
            return None
        steps = [f"({_locked(root)} && cargo build --offline --bins >&2)" for root in roots]
        target = plan.env.get("CARGO_TARGET_DIR", f"{JOB}/target")
        return ProgramBuild(script=" && ".join(steps), folders=(f"{target}/debug",))

    def code_command(self, files: Files, path: str, plan: Plan) -> Phase | None:
        return rust_code.code_command(files, path, plan, _roots(files))

    def line_probe(self, path: str, source: str, at: int) -> str | None:
        return line_probes.probe(self.grammar(path), source, at)

    def code_misses(self, source: str, line: int) -> str | None:
        return rust_code.code_misses(source, line)

    def outcomes(self, channel: str, log: str, plan: Plan | None = None) -> Outcomes:
        """`<target's source file>::<libtest name>` for each test that ended."""
        return rust_reports.outcomes(channel)

    def failure_texts(self, channel: str, log: str, plan: Plan | None = None) -> dict[str, str]:
        """What each failed test printed (libtest's section for it: its panic message)."""
        return rust_reports.failure_texts(channel)
