"""The local executor: one shared venv per (repo, version, recipe), a thin venv per job, and
every command that runs repository code (the install, the tests) inside the `Sandbox`.

The shared venv holds the dependencies, resolved once and kept under the data dir. Each job
gets its own small venv that sees the shared one through a `.pth` file and holds only the
project itself, installed editable from the job's worktree: jobs of one environment run side
by side, and nothing of a job outlives its scratch directory.

What each phase sees (docs/security.md): the build of an environment gets the package index
(no host loopback), its own environment and its repository's package cache writable; a job's
commands get no network, the shared environment read-only, their job's scratch writable, and the
worktree at `/testbed`. The sandbox shows every path a command can name at a fixed place (the
worktree at `/testbed`, the job's scratch at `/spice/job`, the shared environment at
`/spice/env`), so no test id, log line or installed file names this machine's folders: a test
parametrised with a module's `__file__` has the same id on every machine and every run.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from spice_engine.validate import gitwork
from spice_engine.validate.editable import EditableInstall, capture, editable_dists, replay
from spice_engine.validate.executor import (
    RERUN_PLUGIN,
    EnvBuildError,
    Prepared,
    RunResult,
    SetupTree,
)
from spice_engine.validate.missing import from_index, missing
from spice_engine.validate.pythons import python_for
from spice_engine.validate.recipe import Recipe, build_requires
from spice_engine.validate.sandbox import Bind, Sandbox

INSTALL_TIMEOUT_S = 1800
_FILTERED = re.compile(r"`([A-Za-z0-9_.\-]+)` was filtered by `exclude-newer`")
_NO_CUTOFF = "2100-01-01T00:00:00Z"
EDITABLE = "spice-editable.json"
"""The project's editable install as captured at build time (spice_engine.validate.editable)."""
ENV_FORMAT = 3
"""Changes when environments are built differently: older ones are not reused."""
EDITABLE_TOOLS_SINCE = "2022-09-01T00:00:00Z"
"""setuptools 64 (August 2022) was the first to install editable by PEP 660, which uv needs."""
TESTBED = Path("/testbed")
"""Where a sandbox shows the job's worktree (SWE-bench's path too)."""
JOB = Path("/spice/job")
"""Where a sandbox shows the job's scratch (its venv, home, temporary files)."""
SHARED = Path("/spice/env")
"""Where a sandbox shows the shared environment."""
NETWORK_ENV = (
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "UV_NATIVE_TLS",
    "UV_INDEX_URL",
    "UV_EXTRA_INDEX_URL",
    "UV_DEFAULT_INDEX",
    "UV_INDEX",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
)
"""The worker's settings an install passes on to reach the package index; nothing else of the
worker's environment reaches repository code."""


def uv_binary() -> str:
    from uv import find_uv_bin

    return str(find_uv_bin())


def env_key(repo: str, version: str, recipe: Recipe) -> str:
    blob = json.dumps(
        [ENV_FORMAT, repo, version, recipe.model_dump(exclude={"source"})], sort_keys=True
    )
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", f"{repo}-{version}-py{recipe.python}")
    return f"{slug}-{hashlib.sha256(blob.encode()).hexdigest()[:10]}"


class _Where(NamedTuple):
    """Where a job's command runs: the base interpreter, the worktree, the job's scratch, and
    the shared environment (read-only but while it is built)."""

    python: Path
    tree: Path
    job: Path
    shared: Path


def base_env(job: Path) -> dict[str, str]:
    """The whole environment of a sandboxed command, but for the recipe's own variables."""
    return {
        "HOME": str(job / "home"),
        "TMPDIR": str(job / "tmp"),
        "PY_COLORS": "0",
        "COLUMNS": "240",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "UV_NO_PROGRESS": "1",
        "UV_PYTHON_DOWNLOADS": "never",
        "UV_LINK_MODE": "copy",
    }


class LocalExecutor:
    """`Executor` on this machine's interpreters, with uv for speed, inside `sandbox`."""

    def __init__(
        self, envs_dir: Path, sandbox: Sandbox, install_timeout_s: float = INSTALL_TIMEOUT_S
    ) -> None:
        self.envs_dir = envs_dir
        self.sandbox = sandbox
        self.install_timeout_s = install_timeout_s
        self.uv = uv_binary()
        self.moves = sandbox.name != "none"

    def seen_as(self, tree: Path) -> Path:
        """The worktree's path as sandboxed commands see it."""
        return TESTBED if self.moves else tree

    def inside(self, where: _Where) -> Callable[[str], str]:
        """This job's paths, in any text, as its sandboxed commands see them."""
        if not self.moves:
            return lambda text: text
        table = {str(where.tree): str(TESTBED), str(where.job): str(JOB)}
        table[str(where.shared)] = str(SHARED)
        # Longest first, whole path components only, in one pass (no path is moved twice).
        pattern = re.compile(
            "(" + "|".join(re.escape(k) for k in sorted(table, key=len, reverse=True)) + ")"
            r"(?![^/\s:=\"'\]\[,;])"
        )
        return lambda text: pattern.sub(lambda m: table[m.group(1)], text)

    def _binds(self, where: _Where, writable: list[Path]) -> list[Bind]:
        """What a command of this job sees: the interpreter, uv, the job's scratch (and the
        `writable` paths) writable, the worktree at `seen_as`, its git directory read-only;
        the job's own paths where `inside` puts them."""
        python, tree, job, shared = where
        at = self.inside(where)
        prefix = python.resolve().parent.parent
        paths = [Bind(source=Path(self.uv), target=Path(self.uv))]
        if not prefix.is_relative_to("/usr"):
            paths.append(Bind(source=prefix, target=prefix))
        paths += [Bind(source=p, target=Path(at(str(p))), writable=True) for p in [job, *writable]]
        if shared not in writable and shared.is_dir():
            paths.append(Bind(source=shared, target=Path(at(str(shared)))))
        dot_git = tree / ".git"
        gitdir = gitwork.common_dir(dot_git)
        if gitdir is not None:
            paths.append(Bind(source=gitdir, target=gitdir))
        if self.moves:
            paths.append(Bind(source=tree, target=TESTBED, writable=True))
            if dot_git.is_file():  # the sandbox may not point it elsewhere for our own git
                paths.append(Bind(source=dot_git, target=TESTBED / ".git"))
        return paths

    def _uv(
        self,
        args: list[str],
        where: _Where,
        env: dict[str, str],
        writable: list[Path],
        cache: Path | None = None,
    ) -> RunResult:
        """uv in the sandbox; with a `cache` (a repository's own: a build cannot poison
        another repository's packages), with the package index too."""
        full = base_env(where.job) | {"UV_NO_CACHE": "1"}
        if cache is not None:
            cache.mkdir(parents=True, exist_ok=True)
            self.sandbox.prepare_writable(cache)
            writable = [*writable, cache]
            # The system's certificate store (read-only in the sandbox): an operator's proxy or
            # mirror with its own CA works as it does for the machine's other tools.
            full = base_env(where.job) | {"UV_CACHE_DIR": str(cache), "UV_SYSTEM_CERTS": "1"}
            full |= {k: v for k, v in os.environ.items() if k in NETWORK_ENV}
        # --no-config: a repository's `[tool.uv]` must not choose the index or the cache.
        cmd = [self.uv, *args, "--no-config"]
        done = self._sandboxed(cmd, where, full | env, writable, network=cache is not None)
        if done.returncode != 0:
            why = done.killed or f"exit {done.returncode}"
            raise EnvBuildError(f"uv {args[0]} {args[1]} failed ({why}): {excerpt(done.log)}")
        return done

    def _resolve(self, recipe: Recipe, where: _Where) -> Path:
        """The project's dependencies, pinned, as of the recipe's date when it has one.

        Resolving builds the project's metadata (its build backend, `setup.py`: repository
        code), so it runs with the shared environment read-only and a throw-away package cache;
        what it gives is a list of names and versions, installed afterwards without it.
        """
        extras = f"[{','.join(recipe.extras)}]" if recipe.extras else ""
        lines = [f"-e {self.seen_as(where.tree)}{extras}"]
        lines += [f"-r {self.seen_as(where.tree) / r}" for r in recipe.requirement_files]
        wanted, pinned = where.job / "requirements.in", where.job / "requirements.txt"
        # An undated runner is already installed: resolving it again as of the date would
        # bring its old dependencies (`py` 1.4 over pytest 7's own shim).
        more = [p for p in recipe.extra_packages if p != recipe.runner]
        wanted.write_text("\n".join([*lines, *more]) + "\n")
        self.sandbox.prepare_writable(wanted)
        python = ["--python", str(where.shared / "bin" / "python")]
        exempt: list[str] = []
        for _ in range(6):
            dated: list[str] = []
            if recipe.resolve_before:
                dated = ["--exclude-newer", recipe.resolve_before]
                dated += [
                    a for p in exempt for a in ("--exclude-newer-package", f"{p}={_NO_CUTOFF}")
                ]
            args = ["pip", "compile", *python, "--no-build-isolation", *dated, "--no-header"]
            args += ["--no-annotate", "-o", str(pinned), str(wanted)]
            try:
                self._uv(args, where, recipe.env, [], where.job / "uv-cache")
                break
            except EnvBuildError as exc:
                # A package whose old releases were deleted from the index (it happens):
                # let only that one come from after the date, and resolve again.
                more = [p for p in _FILTERED.findall(str(exc)) if p not in exempt]
                if not more:
                    raise
                exempt += more
        else:
            raise EnvBuildError("dependencies could not be resolved as of the commit's date")
        keep = from_index(pinned, _site_packages(where.shared))
        deps = where.job / "dependencies.txt"
        deps.write_text("".join(f"{line}\n" for line in keep))
        self.sandbox.prepare_writable(deps)  # read by the install, as the sandbox's user
        return deps

    def _build(self, repo: str, venv: Path, recipe: Recipe, where: _Where) -> None:
        """The shared environment: written only by uv installing from the package index."""
        venv.mkdir(parents=True)
        self.sandbox.prepare_writable(venv)
        cache = self._cache_for(repo)
        python = str(where.python)
        self._uv(
            ["venv", "--quiet", "--allow-existing", "--python", python, str(venv)],
            where,
            {},
            [venv],
        )
        py = ["--python", str(venv / "bin" / "python"), *_compile_flags(recipe.python)]
        # The build tools as the index stood at the commit's date (reproducible, and an old
        # project keeps `pkg_resources`), but none older than the first setuptools that
        # installs editable the PEP 660 way; with whatever else the project builds with.
        tools = ["pip", "install", *py, *_tools_cutoff(recipe.resolve_before)]
        tools += ["setuptools", "wheel", "setuptools_scm", *build_requires(where.tree)]
        self._uv(tools, where, {}, [venv], cache)
        if recipe.runner:  # kept as it is by the dated resolution below (it is installed)
            self._uv(["pip", "install", *py, recipe.runner], where, {}, [venv], cache)
        deps = self._resolve(recipe, where)
        args = ["pip", "install", *py, "--no-build-isolation", "--no-deps", "-r", str(deps)]
        # Not the recipe's variables: a dependency built from source with setuptools_scm would
        # take the project's pretended version and fail its own metadata check.
        self._uv(args, where, {}, [venv], cache)
        if not _compile_flags(recipe.python):  # uv cannot compile for it: Python does
            self._run_python(where, [str(venv / "bin" / "python"), "-m", "compileall", "-q",
                             str(_site_packages(venv))], [venv])  # fmt: skip
        (venv / "spice-recipe.json").write_text(recipe.model_dump_json(indent=2))

    def prepare(
        self,
        repo: str,
        version: str,
        recipe: Recipe,
        tree: Path,
        job: Path,
        setup_tree: SetupTree | None = None,
    ) -> Prepared:
        started = time.monotonic()
        key = env_key(repo, version, recipe)
        shared = self.envs_dir / key
        self.envs_dir.mkdir(parents=True, exist_ok=True)
        for scratch in (job / "home", job / "tmp"):
            scratch.mkdir(parents=True, exist_ok=True)
        self.sandbox.prepare_writable(job)
        where = _Where(python_for(recipe.python), tree, job, shared)
        built = False
        with (self.envs_dir / f"{key}.lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # one builder per environment; others wait
            if not (shared / ".ready").exists():
                shutil.rmtree(shared, ignore_errors=True)  # a half-built one from a crash
                try:
                    if setup_tree is None:
                        self._build(repo, shared, recipe, where)
                    else:
                        # What the environment's own commit declares, not this job's.
                        with setup_tree() as own:
                            self.sandbox.prepare_writable(own)
                            self._build(repo, shared, recipe, where._replace(tree=own))
                except BaseException:
                    shutil.rmtree(shared, ignore_errors=True)
                    raise
                (shared / ".ready").touch()
                built = True
        venv = job / "venv"
        shared_python = shared / "bin" / "python"
        self._uv(["venv", "--quiet", "--python", str(shared_python), str(venv)], where, {}, [])
        purelib = _site_packages(venv)
        inside = self.inside(where)
        (purelib / "_spice_shared_env.pth").write_text(f"{inside(str(_site_packages(shared)))}\n")
        captured = shared / EDITABLE
        replayed = captured.is_file() and replay(
            EditableInstall.model_validate_json(captured.read_text()),
            purelib,
            tree,
            self.seen_as(tree),
        )
        self.sandbox.prepare_writable(job)
        if not replayed:
            args = ["pip", "install", "--python", str(venv / "bin" / "python"), "--no-deps"]
            self._uv([*args, "--no-build-isolation", "-e", "."], where, recipe.env, [])
            if built:
                # The first job's install, captured to be replayed into the next jobs' venvs.
                infos = editable_dists(purelib)
                done = capture(purelib, infos, tree, self.seen_as(tree)) if infos else None
                if done is not None:
                    captured.write_text(done.model_dump_json())
        self._add_missing(recipe, where, purelib)
        return Prepared(
            key=key,
            python=venv / "bin" / "python",
            built=built,
            seconds=round(time.monotonic() - started, 3),
        )

    def _sandboxed(
        self,
        cmd: list[str],
        where: _Where,
        env: dict[str, str],
        writable: list[Path],
        timeout_s: float | None = None,
        network: bool = False,
    ) -> RunResult:
        """`cmd` in the sandbox with this job's binds, in its worktree, every path in its
        arguments and environment as the sandbox shows it."""
        at = self.inside(where)
        return self.sandbox.run(
            [at(arg) for arg in cmd],
            binds=self._binds(where, writable),
            cwd=self.seen_as(where.tree),
            env={k: at(v) for k, v in env.items()},
            timeout_s=self.install_timeout_s if timeout_s is None else timeout_s,
            network=network,
        )

    def _run_python(self, where: _Where, cmd: list[str], writable: list[Path]) -> None:
        done = self._sandboxed(cmd, where, base_env(where.job), writable)
        if done.returncode not in (0, 1):  # compileall: 1 = some file did not compile
            raise EnvBuildError(f"{' '.join(cmd[1:4])} failed: {excerpt(done.log)}")

    def _cache_for(self, repo: str) -> Path:
        """The repository's own package cache (only uv installing from the index writes it)."""
        return self.envs_dir / ".uv-cache" / re.sub(r"[^A-Za-z0-9_.-]+", "+", repo)

    def _add_missing(self, recipe: Recipe, where: _Where, purelib: Path) -> None:
        """Install into the job's venv what its commit requires and the shared environment
        (built at the environment's own commit) lacks: named packages from the index. The
        job's venv holds the project's own install (its `.pth` files run whenever uv asks the
        interpreter about itself): a throw-away package cache, as when resolving."""
        infos = editable_dists(purelib)
        wanted = missing(purelib, _site_packages(where.shared), infos, recipe.extras, recipe.python)
        if not wanted:
            return
        args = ["pip", "install", "--python", str(where.job / "venv" / "bin" / "python")]
        args += [*_compile_flags(recipe.python), "--no-build-isolation"]
        if recipe.resolve_before:
            args += ["--exclude-newer", recipe.resolve_before]
        self._uv([*args, *wanted], where, {}, [], where.job / "uv-cache")

    def run(
        self,
        prepared: Prepared,
        tree: Path,
        args: list[str],
        timeout_s: float,
        rerun_dir: Path | None = None,
        plugin: str = RERUN_PLUGIN,
    ) -> RunResult:
        shared = self.envs_dir / prepared.key
        recipe = Recipe.model_validate_json((shared / "spice-recipe.json").read_text())
        load = ["-p", plugin] if rerun_dir else []
        cmd = [str(prepared.python), "-m", *recipe.test_cmd.split()[2:], *load, *args]
        job = prepared.python.parent.parent.parent
        venv = prepared.python.parent.parent
        # No byte code written into the tree: a patch applied within the second of the run
        # before it, leaving a file's size unchanged (`a - b` -> `a + b`), would otherwise run
        # as the stale `.pyc` of the unpatched file (Python checks only mtime and size).
        env = base_env(job) | {"VIRTUAL_ENV": str(venv), "PYTHONDONTWRITEBYTECODE": "1"}
        env["PATH"] = f"{venv / 'bin'}{os.pathsep}/usr/local/bin:/usr/bin:/bin"
        env |= recipe.env
        if rerun_dir:
            env["SPICE_RERUN_DIR"] = str(rerun_dir)
            env["PYTHONPATH"] = str(rerun_dir)
        # Patches applied since (by our git, as the worker) must stay writable for the tests.
        self.sandbox.prepare_writable(job)
        where = _Where(python_for(recipe.python), tree, job, shared)
        return self._sandboxed(cmd, where, env, [], timeout_s)


def _compile_flags(python: str) -> list[str]:
    """Byte code compiled at install (as pip does): a project's `filterwarnings = error` must
    not meet a dependency's warning at import. uv's compiler needs Python 3.7 or later."""
    parts = tuple(int(x) for x in python.split(".")[:2] if x.isdigit())
    return ["--compile-bytecode"] if parts >= (3, 7) or len(parts) < 2 else []


def _tools_cutoff(resolve_before: str | None) -> list[str]:
    if not resolve_before:
        return []
    return ["--exclude-newer", max(resolve_before, EDITABLE_TOOLS_SINCE)]


def excerpt(log: str, head: int = 1500, tail: int = 2500) -> str:
    """The start of a failure's log (uv names the package that failed there) and its end."""
    if len(log) <= head + tail:
        return log
    return f"{log[:head]}\n[... {len(log) - head - tail} characters ...]\n{log[-tail:]}"


def _site_packages(venv: Path) -> Path:
    return next((venv / "lib").glob("python*/site-packages"))
