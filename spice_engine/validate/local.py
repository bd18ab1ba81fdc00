"""The local executor: one shared venv per (repo, version, recipe), a thin venv per job.

The shared venv holds the dependencies, resolved once and kept under the data dir. Each job
gets its own small venv that sees the shared one through a `.pth` file and holds only the
project itself, installed editable from the job's worktree: jobs of one environment run side
by side, and nothing of a job outlives its scratch directory.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import time
from pathlib import Path

from spice_engine.validate.editable import EditableInstall, capture, replay
from spice_engine.validate.executor import (
    RERUN_PLUGIN,
    EnvBuildError,
    Prepared,
    RunResult,
    clean_env,
    run_command,
)
from spice_engine.validate.pythons import python_for
from spice_engine.validate.recipe import Recipe

INSTALL_TIMEOUT_S = 1800
_FILTERED = re.compile(r"`([A-Za-z0-9_.\-]+)` was filtered by `exclude-newer`")
_NO_CUTOFF = "2100-01-01T00:00:00Z"
EDITABLE = "spice-editable.json"
"""The project's editable install as captured at build time (spice_engine.validate.editable)."""


def uv_binary() -> str:
    from uv import find_uv_bin

    return str(find_uv_bin())


def env_key(repo: str, version: str, recipe: Recipe) -> str:
    blob = json.dumps([repo, version, recipe.model_dump(exclude={"source"})], sort_keys=True)
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", f"{repo}-{version}-py{recipe.python}")
    return f"{slug}-{hashlib.sha256(blob.encode()).hexdigest()[:10]}"


class LocalExecutor:
    """`Executor` on this machine's interpreters, with uv for speed."""

    def __init__(self, envs_dir: Path, install_timeout_s: float = INSTALL_TIMEOUT_S) -> None:
        self.envs_dir = envs_dir
        self.install_timeout_s = install_timeout_s
        self.uv = uv_binary()

    def _uv(self, args: list[str], cwd: Path, env: dict[str, str]) -> RunResult:
        done = run_command([self.uv, *args], cwd, clean_env(env), self.install_timeout_s)
        if done.returncode != 0:
            why = "timed out" if done.timed_out else f"exit {done.returncode}"
            raise EnvBuildError(f"uv {args[0]} {args[1]} failed ({why}): {done.log[-2000:]}")
        return done

    def _install_project(self, venv: Path, recipe: Recipe, tree: Path) -> None:
        """The project and its test dependencies, as of the recipe's date when it has one."""
        target = "." + (f"[{','.join(recipe.extras)}]" if recipe.extras else "")
        reqs = [a for r in recipe.requirement_files for a in ("-r", r)]
        exempt: list[str] = []
        for _ in range(6):
            dated: list[str] = []
            if recipe.resolve_before:
                dated = ["--exclude-newer", recipe.resolve_before]
                dated += [
                    a for p in exempt for a in ("--exclude-newer-package", f"{p}={_NO_CUTOFF}")
                ]
            args = ["pip", "install", "--python", str(venv / "bin" / "python")]
            args += ["--no-build-isolation", *dated, "-e", target, *reqs, *recipe.extra_packages]
            try:
                self._uv(args, tree, recipe.env)
                return
            except EnvBuildError as exc:
                # A package whose old releases were deleted from the index (it happens):
                # let only that one come from after the date, and resolve again.
                more = [p for p in _FILTERED.findall(str(exc)) if p not in exempt]
                if not more:
                    raise
                exempt += more
        raise EnvBuildError("dependencies could not be resolved as of the commit's date")

    def _build(self, venv: Path, recipe: Recipe, tree: Path) -> None:
        python = python_for(recipe.python)
        self._uv(["venv", "--quiet", "--python", str(python), str(venv)], tree, {})
        py = ["--python", str(venv / "bin" / "python")]
        self._uv(["pip", "install", *py, "setuptools", "wheel", "setuptools_scm"], tree, {})
        self._install_project(venv, recipe, tree)
        # The project itself lives in each job's own venv, pointing at that job's worktree:
        # captured here to be replayed there, then taken out of the shared one.
        site = _site_packages(venv)
        infos = _editable_dists(site)
        captured = capture(site, infos, tree) if infos else None
        if captured is not None:
            (venv / EDITABLE).write_text(captured.model_dump_json())
        if infos:
            self._uv(["pip", "uninstall", *py, *(_dist_name(d) for d in infos)], tree, {})
        (venv / "spice-recipe.json").write_text(recipe.model_dump_json(indent=2))

    def prepare(self, repo: str, version: str, recipe: Recipe, tree: Path, job: Path) -> Prepared:
        started = time.monotonic()
        key = env_key(repo, version, recipe)
        shared = self.envs_dir / key
        self.envs_dir.mkdir(parents=True, exist_ok=True)
        built = False
        with (self.envs_dir / f"{key}.lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # one builder per environment; others wait
            if not (shared / ".ready").exists():
                shutil.rmtree(shared, ignore_errors=True)  # a half-built one from a crash
                try:
                    self._build(shared, recipe, tree)
                except BaseException:
                    shutil.rmtree(shared, ignore_errors=True)
                    raise
                (shared / ".ready").touch()
                built = True
        venv = job / "venv"
        self._uv(
            ["venv", "--quiet", "--python", str(shared / "bin" / "python"), str(venv)], tree, {}
        )
        purelib = _site_packages(venv)
        (purelib / "_spice_shared_env.pth").write_text(f"{_site_packages(shared)}\n")
        captured = shared / EDITABLE
        replayed = captured.is_file() and replay(
            EditableInstall.model_validate_json(captured.read_text()), purelib, tree
        )
        if not replayed:
            args = ["pip", "install", "--python", str(venv / "bin" / "python"), "--no-deps"]
            self._uv([*args, "--no-build-isolation", "-e", "."], tree, recipe.env)
        return Prepared(
            key=key,
            python=venv / "bin" / "python",
            built=built,
            seconds=round(time.monotonic() - started, 3),
        )

    def run(
        self,
        prepared: Prepared,
        tree: Path,
        args: list[str],
        timeout_s: float,
        rerun_dir: Path | None = None,
    ) -> RunResult:
        recipe = Recipe.model_validate_json(
            (self.envs_dir / prepared.key / "spice-recipe.json").read_text()
        )
        plugin = ["-p", RERUN_PLUGIN] if rerun_dir else []
        cmd = [str(prepared.python), "-m", *recipe.test_cmd.split()[2:], *plugin, *args]
        env = clean_env(recipe.env, prepared.python.parent.parent)
        if rerun_dir:
            env["SPICE_RERUN_DIR"] = str(rerun_dir)
            env["PYTHONPATH"] = os.pathsep.join(
                filter(None, [str(rerun_dir), env.get("PYTHONPATH")])
            )
        return run_command(cmd, tree, env, timeout_s)


def _site_packages(venv: Path) -> Path:
    return next((venv / "lib").glob("python*/site-packages"))


def _editable_dists(site: Path) -> list[Path]:
    """Distributions installed editable (PEP 610: `dir_info.editable` in direct_url.json)."""
    found = []
    for dist_info in sorted(site.glob("*.dist-info")):
        try:
            origin = json.loads((dist_info / "direct_url.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(origin, dict) and (origin.get("dir_info") or {}).get("editable") is True:
            found.append(dist_info)
    return found


def _dist_name(dist_info: Path) -> str:
    """`pytest` of `pytest-7.0.0.dist-info`."""
    return dist_info.name.removesuffix(".dist-info").rsplit("-", 1)[0]
