"""Python's environments: one shared venv per (repo, version, recipe), a thin venv per job, and
every command that runs repository code (the install, the tests) inside the `Sandbox`.

Each job gets its own small venv that sees the shared one (spice_engine.langs.python_envbuild)
through a `.pth` file and holds only the project itself, installed editable from the job's
worktree: jobs of one environment run side by side, and nothing of a job outlives its scratch.
A job's commands get no network, the shared environment read-only, their job's scratch and the
worktree writable; the host then reads and writes those only through the door
(spice_engine.validate.door).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from spice_engine.langs.base import Phase, Plan, Toolchain
from spice_engine.langs.prepared import EnvRequest, Prepared
from spice_engine.langs.python_editable import (
    SEARCH_PTH,
    EditableInstall,
    capture,
    editable_dists,
    replay,
    search_roots,
)
from spice_engine.langs.python_envbuild import (
    PYPI,
    EnvBuilder,
    env_key,
    site_packages,
    uv_binary,
)
from spice_engine.langs.python_interpreters import python_for
from spice_engine.langs.python_job_commands import JobCommands, Where, base_env
from spice_engine.langs.python_recipe import Recipe
from spice_engine.langs.python_runners import log_parser_for, runner_named
from spice_engine.validate import door
from spice_engine.validate.env_once import built_once
from spice_engine.validate.executor import RunResult, SetupTree
from spice_engine.validate.plugin_run import Plugin
from spice_engine.validate.sandbox import Sandbox
from spice_engine.validate.tree import Tree

INSTALL_TIMEOUT_S = 1800
EDITABLE = "spice-editable.json"
"""The project's editable install as captured at build time (spice_engine.langs.python_editable)."""
RECIPE = "spice-recipe.json"
RUNNER = "runner"
LOG_PARSER = "log_parser"


def plan_of(repo: str, key: str, recipe: Recipe) -> Plan:
    """A recipe's environment as the seam's values: what it is keyed by, its interpreter, its
    install (the recipe's commands as a harness runs them: `PythonEnvironments` runs the same
    with uv in steps, the dependencies resolved with the environment read-only, then
    installed from the index), and what its test command and reports need."""
    parser = recipe.log_parser or log_parser_for(repo, recipe.test_runner)
    return Plan(
        language="python",
        toolchain=Toolchain(name=f"python{recipe.python}"),
        key=(key,),
        install=tuple(Phase(argv=("sh", "-c", c), network=True) for c in recipe.install_cmds()),
        registries=PYPI,
        env=dict(recipe.env),
        settings={RUNNER: recipe.test_runner, LOG_PARSER: parser},
    )


class PythonEnvironments:
    """Python's `Environments` on this machine's interpreters, with uv, inside `sandbox`."""

    def __init__(
        self, envs_dir: Path, sandbox: Sandbox, install_timeout_s: float = INSTALL_TIMEOUT_S
    ) -> None:
        self.envs_dir = envs_dir
        self.sandbox = sandbox
        self.commands = JobCommands(sandbox, uv_binary(), install_timeout_s)
        self.builder = EnvBuilder(self.commands, envs_dir)

    def prepare(
        self, request: EnvRequest, tree: Tree, job: Path, setup_tree: SetupTree | None = None
    ) -> Prepared:
        started = time.monotonic()
        repo, recipe = request.repo, request.recipe
        if recipe is None:
            raise ValueError("a Python environment needs its recipe (the planner's)")
        key = env_key(repo, request.version, recipe)
        shared = self.envs_dir / key
        self.envs_dir.mkdir(parents=True, exist_ok=True)
        for scratch in (job / "home", job / "tmp"):
            scratch.mkdir(parents=True, exist_ok=True)
        self.sandbox.prepare_writable(job)
        self.sandbox.prepare_writable(tree.path)
        where = Where(python_for(recipe.python), tree, job, shared)

        def build(folder: Path) -> None:
            if setup_tree is None:
                self.builder.build(repo, folder, recipe, where)
                return
            # What the environment's own commit declares, not this job's.
            with setup_tree() as own:
                self.sandbox.prepare_writable(own.path)
                self.builder.build(repo, folder, recipe, where._replace(tree=own))

        built = built_once(self.envs_dir, key, build)
        self._install_project(where, recipe, built)
        return Prepared(
            key=key,
            job=job,
            built=built,
            seconds=round(time.monotonic() - started, 3),
            plan=plan_of(repo, key, recipe),
        )

    def _install_project(self, where: Where, recipe: Recipe, built: bool) -> None:
        """The job's venv over the shared one, with the project editable: replayed from the
        environment's capture when it fits, else installed (and captured if just built)."""
        job, shared, tree = where.job, where.shared, where.tree
        venv = job / "venv"
        shared_python = shared / "bin" / "python"
        uv = self.builder.uv
        uv(["venv", "--quiet", "--python", str(shared_python), str(venv)], where, {}, [])
        purelib = site_packages(venv)
        inside = self.commands.inside(where)
        seen = self.commands.seen_as(tree.path)
        pth = f"{inside(str(site_packages(shared)))}\n"
        door.write_text(job, purelib.relative_to(job) / "_spice_shared_env.pth", pth)
        replayed = door.is_file(shared, EDITABLE) and replay(
            EditableInstall.model_validate_json(door.read_text(shared, EDITABLE)),
            job,
            purelib,
            tree,
            seen,
        )
        self.sandbox.prepare_writable(job)
        if not replayed:
            args = ["pip", "install", "--python", str(venv / "bin" / "python"), "--no-deps"]
            uv([*args, "--no-build-isolation", "-e", "."], where, recipe.env, [])
            if built:
                # The first job's install, captured to be replayed into the next jobs' venvs.
                infos = editable_dists(job, purelib)
                done = capture(job, purelib, infos, tree, seen) if infos else None
                if done is not None:
                    door.write_text(shared, EDITABLE, done.model_dump_json())
        roots = search_roots(job, purelib, str(seen))
        if roots:
            door.write_text(job, purelib.relative_to(job) / SEARCH_PTH, "".join(roots))
        self.builder.add_missing(recipe, where, purelib)

    def run(
        self,
        prepared: Prepared,
        tree: Tree,
        args: list[str],
        timeout_s: float,
        plugin: Plugin | None = None,
    ) -> RunResult:
        shared = self.envs_dir / prepared.key
        recipe = Recipe.model_validate_json(door.read_text(shared, RECIPE))
        runner = runner_named(recipe.test_runner)
        alone = plugin is not None and plugin.alone
        driven = plugin is not None and (plugin.drives or alone)
        if plugin is not None and not (alone or (runner.driven if driven else runner.plugins)):
            raise ValueError(f"the {runner.name} runner takes no such plugin")
        load = [a for m in plugin.modules() for a in ("-p", m)] if plugin and not driven else []
        job = prepared.job
        venv = job / "venv"
        cmd = [str(venv / "bin" / "python")]
        if not alone:
            cmd += runner.command([*load, *args])
        if driven and plugin is not None:  # our driver runs the command in its own process
            start = f"import {plugin.support}, {plugin.name}; {plugin.name}.main()"
            cmd[1:1] = ["-c", start]
        # No byte code written into the tree: a patch applied within the second of the run
        # before it, leaving a file's size unchanged (`a - b` -> `a + b`), would otherwise run
        # as the stale `.pyc` of the unpatched file (Python checks only mtime and size).
        env = base_env(job) | {"VIRTUAL_ENV": str(venv), "PYTHONDONTWRITEBYTECODE": "1"}
        env["PATH"] = f"{venv / 'bin'}{os.pathsep}/usr/local/bin:/usr/bin:/bin"
        env |= recipe.env | runner.env
        if driven:  # one process: a runner that starts its own to seed the hashes does not
            env["PYTHONHASHSEED"] = "0"
        # Files the host wrote since (patches, mutants) must stay writable for the tests.
        self.sandbox.prepare_writable(job)
        self.sandbox.prepare_writable(tree.path)
        where = Where(python_for(recipe.python), tree, job, shared)
        return self.commands.run(cmd, where, env, [], timeout_s, plugin=plugin)
