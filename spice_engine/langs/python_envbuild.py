"""The shared environment of a (repository, version, recipe): built once, from the package index.

One shared venv per environment holds the dependencies, resolved once and kept under the data
dir; each job's own small venv sees it through a `.pth` file (spice_engine.langs.python_env).
What each phase sees (docs/security.md): the build gets the package index (only it, through the
host's index proxy), its own environment and its repository's package cache writable; resolving
runs the project's build backend with the environment read-only and a throw-away cache.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

from spice_engine.langs.python_editable import editable_dists
from spice_engine.langs.python_job_commands import JobCommands, Where, base_env
from spice_engine.langs.python_missing import from_index, missing
from spice_engine.langs.python_recipe import Recipe, build_requires
from spice_engine.langs.python_runners import PYTEST
from spice_engine.redaction import redacted_excerpt
from spice_engine.validate import door
from spice_engine.validate.executor import EnvBuildError, RunResult

_FILTERED = re.compile(r"`([A-Za-z0-9_.\-]+)` was filtered by `exclude-newer`")
_NO_CUTOFF = "2100-01-01T00:00:00Z"
ENV_FORMAT = 4
"""Changes when environments are built differently: older ones are not reused."""
RUNNER_SINCE = "2020-03-14T00:00:00Z"
"""pytest 5.4: every test named in the `-rA` summary, as SWE-bench's parser reads it."""
EDITABLE_TOOLS_SINCE = "2022-09-01T00:00:00Z"
"""setuptools 64 (August 2022) was the first to install editable by PEP 660, which uv needs."""
PYPI = ("pypi.org:443", "files.pythonhosted.org:443")
"""The registries a Python install reaches (besides the operator's index): PyPI's index and
the host it serves files from."""
NETWORK_ENV = (
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "UV_NATIVE_TLS",
    "UV_INDEX_URL",
    "UV_EXTRA_INDEX_URL",
    "UV_DEFAULT_INDEX",
    "UV_INDEX",
)
"""The worker's settings an install passes on to reach the package index; nothing else of the
worker's environment reaches repository code (not its proxy: the sandbox's index proxy goes
through it)."""


def uv_binary() -> str:
    from uv import find_uv_bin

    return str(find_uv_bin())


def env_key(repo: str, version: str, recipe: Recipe) -> str:
    blob = json.dumps(
        [
            ENV_FORMAT,
            repo,
            version,
            recipe.model_dump(exclude={"source", "test_cmd", "test_runner", "log_parser"}),
        ],
        sort_keys=True,
    )
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", f"{repo}-{version}-py{recipe.python}")
    return f"{slug}-{hashlib.sha256(blob.encode()).hexdigest()[:10]}"


class EnvBuilder:
    """Builds shared environments under `envs_dir`, every command through `commands`."""

    def __init__(self, commands: JobCommands, envs_dir: Path) -> None:
        self.commands, self.envs_dir = commands, envs_dir
        self.sandbox = commands.sandbox

    def uv(
        self,
        args: list[str],
        where: Where,
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
        cmd = [self.commands.uv, *args, "--no-config"]
        network = cache is not None
        done = self.commands.run(
            cmd, where, full | env, writable, network=network, registries=PYPI if network else ()
        )
        if done.returncode != 0:
            why = done.killed or f"exit {done.returncode}"
            message = f"uv {args[0]} {args[1]} failed ({why}): {excerpt(done.log)}"
            raise EnvBuildError(message, done.log)
        return done

    def _resolve(self, recipe: Recipe, where: Where) -> Path:
        """The project's dependencies, pinned, as of the recipe's date when it has one.

        Resolving builds the project's metadata (its build backend, `setup.py`: repository
        code), so it runs with the shared environment read-only and a throw-away package cache;
        what it gives is a list of names and versions, installed afterwards without it.
        """
        extras = f"[{','.join(recipe.extras)}]" if recipe.extras else ""
        lines = [f"-e {self.commands.seen_as(where.tree.path)}{extras}"]
        lines += [
            f"-r {self.commands.seen_as(where.tree.path) / r}" for r in recipe.requirement_files
        ]
        wanted, pinned = where.job / "requirements.in", where.job / "requirements.txt"
        # The runner is already installed (no older than 5.4): resolving it again as of an
        # older date would bring its old dependencies (`py` 1.4 over pytest 7's own shim).
        more = [p for p in recipe.extra_packages if p != recipe.runner]
        floor = runner_floor(recipe)
        python = ["--python", str(where.shared / "bin" / "python")]
        exempt: list[str] = []
        for _ in range(7):
            door.write_text(where.job, wanted.name, "\n".join([*lines, *more, *floor]) + "\n")
            self.sandbox.prepare_writable(wanted)
            dated = resolution_cutoff(recipe.resolve_before, exempt, bool(floor))
            args = ["pip", "compile", *python, "--no-build-isolation", *dated, "--no-header"]
            args += ["--no-annotate", "-o", str(pinned), str(wanted)]
            try:
                self.uv(args, where, recipe.env, [], where.job / "uv-cache")
                break
            except EnvBuildError as exc:
                # A package whose old releases were deleted from the index (it happens):
                # let only that one come from after the date, and resolve again.
                filtered = [p for p in _FILTERED.findall(exc.log) if p not in exempt]
                if not filtered and not floor:
                    raise
                if not filtered:
                    floor = []  # the project pins an older pytest: its own choice stands
                exempt += filtered
        else:
            raise EnvBuildError("dependencies could not be resolved as of the commit's date")
        keep = from_index(door.read_text(where.job, pinned.name), site_packages(where.shared))
        deps = where.job / "dependencies.txt"
        door.write_text(where.job, deps.name, "".join(f"{line}\n" for line in keep))
        self.sandbox.prepare_writable(deps)  # read by the install, as the sandbox's user
        return deps

    def build(self, repo: str, venv: Path, recipe: Recipe, where: Where) -> None:
        """The shared environment: written only by uv installing from the package index."""
        venv.mkdir(parents=True)
        self.sandbox.prepare_writable(venv)
        cache = self.cache_for(repo)
        python = str(where.python)
        self.uv(
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
        tools += ["setuptools", "wheel", "setuptools_scm", *build_requires(where.tree.path)]
        self.uv(tools, where, {}, [venv], cache)
        if recipe.runner:  # kept as it is by the dated resolution below (it is installed)
            dated = _runner_cutoff(recipe.resolve_before)
            self.uv(["pip", "install", *py, *dated, recipe.runner], where, {}, [venv], cache)
        deps = self._resolve(recipe, where)
        args = ["pip", "install", *py, "--no-build-isolation", "--no-deps", "-r", str(deps)]
        # Not the recipe's variables: a dependency built from source with setuptools_scm would
        # take the project's pretended version and fail its own metadata check.
        self.uv(args, where, {}, [venv], cache)
        if not _compile_flags(recipe.python):  # uv cannot compile for it: Python does
            self._run_python(
                where,
                [str(venv / "bin" / "python"), "-m", "compileall", "-q", str(site_packages(venv))],
                [venv],
            )
        door.write_text(venv, "spice-recipe.json", recipe.model_dump_json(indent=2))

    def _run_python(self, where: Where, cmd: list[str], writable: list[Path]) -> None:
        done = self.commands.run(cmd, where, base_env(where.job), writable)
        if done.returncode not in (0, 1):  # compileall: 1 = some file did not compile
            raise EnvBuildError(f"{' '.join(cmd[1:4])} failed: {excerpt(done.log)}")

    def cache_for(self, repo: str) -> Path:
        """The repository's own package cache (only uv installing from the index writes it)."""
        return self.envs_dir / ".uv-cache" / re.sub(r"[^A-Za-z0-9_.-]+", "+", repo)

    def add_missing(self, recipe: Recipe, where: Where, purelib: Path) -> None:
        """Install into the job's venv what its commit requires and the shared environment
        (built at the environment's own commit) lacks: named packages from the index. The
        job's venv holds the project's own install (its `.pth` files run whenever uv asks the
        interpreter about itself): a throw-away package cache, as when resolving."""
        infos = editable_dists(where.job, purelib)
        shared_site = site_packages(where.shared)
        wanted = missing(where.job, purelib, shared_site, infos, recipe.extras, recipe.python)
        if not wanted:
            return
        args = ["pip", "install", "--python", str(where.job / "venv" / "bin" / "python")]
        args += [*_compile_flags(recipe.python), "--no-build-isolation"]
        if recipe.resolve_before:
            args += ["--exclude-newer", recipe.resolve_before]
        self.uv([*args, *wanted], where, {}, [], where.job / "uv-cache")


def _compile_flags(python: str) -> list[str]:
    """Byte code compiled at install (as pip does): a project's `filterwarnings = error` must
    not meet a dependency's warning at import. uv's compiler needs Python 3.7 or later."""
    parts = tuple(int(x) for x in python.split(".")[:2] if x.isdigit())
    return ["--compile-bytecode"] if parts >= (3, 7) or len(parts) < 2 else []


def _runner_cutoff(resolve_before: str | None) -> list[str]:
    """The test runner as of the commit's date too (the newest pytest changes what a 2020
    suite sees), but none older than the first whose `-rA` summary names every test."""
    if not resolve_before:
        return []
    return ["--exclude-newer", max(resolve_before, RUNNER_SINCE)]


def runner_floor(recipe: Recipe) -> list[str]:
    """pytest no older than 5.4 where the project's own dependencies bring it (a `test` extra
    naming `pytest`): resolved as of a 2019 commit's date it would be 3.x, whose `-rA` prints
    no PASSED lines, and every test would read as not run."""
    return [f"{PYTEST}>=5.4"] if recipe.test_runner == PYTEST and not recipe.runner else []


def resolution_cutoff(resolve_before: str | None, exempt: list[str], floor: bool) -> list[str]:
    """uv's date options for the dependencies' resolution: as of the commit's date, but the
    packages in `exempt` from any date, and pytest (with its `floor`) from its 5.4's."""
    if not resolve_before:
        return []
    dated = ["--exclude-newer", resolve_before]
    dated += [a for p in exempt for a in ("--exclude-newer-package", f"{p}={_NO_CUTOFF}")]
    if floor and resolve_before < RUNNER_SINCE and PYTEST not in exempt:
        dated += ["--exclude-newer-package", f"{PYTEST}={RUNNER_SINCE}"]
    return dated


def _tools_cutoff(resolve_before: str | None) -> list[str]:
    if not resolve_before:
        return []
    return ["--exclude-newer", max(resolve_before, EDITABLE_TOOLS_SINCE)]


def excerpt(log: str, head: int = 1500, tail: int = 2500) -> str:
    """The start of a failure's log (uv names the package that failed there) and its end,
    redacted before it is cut."""
    return redacted_excerpt(log, head=head, tail=tail)


def site_packages(venv: Path) -> Path:
    return next((venv / "lib").glob("python*/site-packages"))
