"""Environments built from a language's plan: one shared environment per key, built by the
language's own install in the sandbox (the registry through the index proxy), and tests run
with no network, the environment read-only.

The language decides what to run (spice_engine.langs.base); this decides what each command
sees: the toolchain's folders and the shared environment read-only (writable only while it
is built), the job's scratch and tree writable. The install sees only the plan's inputs, in a
folder of their own: nothing else of the tree can choose what it runs, and the key covers
every one of them (docs/security.md, "What an install sees").
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from functools import partial
from pathlib import Path

from spice_engine.langs.base import (
    BASE_INPUTS,
    CACHE,
    ENV,
    JOB,
    TESTBED,
    Language,
    Phase,
    Plan,
    ToolchainMissing,
)
from spice_engine.langs.capabilities import partly_installed
from spice_engine.langs.commit_files import CommitFiles
from spice_engine.langs.env_keys import PLAN, left_out, plan_key
from spice_engine.langs.prepared import EnvRequest, Prepared
from spice_engine.langs.seeds import SEED_TIMEOUT_S, plant
from spice_engine.redaction import redacted_excerpt
from spice_engine.validate import door
from spice_engine.validate.env_once import built_once, is_built
from spice_engine.validate.executor import EnvBuildError, RunResult, SetupTree
from spice_engine.validate.gitwork import GitError
from spice_engine.validate.plugin_run import Plugin
from spice_engine.validate.sandbox import FIXED_PATH, INSTALL_IDLE_S, Bind, Sandbox
from spice_engine.validate.tree import Tree

INSTALL_TIMEOUT_S = 1800


class PlanEnvironments:
    """`Environments` of `language` from its plans, under `envs_dir`, every command in `sandbox`."""

    def __init__(
        self,
        language: Language,
        envs_dir: Path,
        sandbox: Sandbox,
        install_timeout_s: float = INSTALL_TIMEOUT_S,
    ) -> None:
        self.language, self.envs_dir, self.sandbox = language, envs_dir, sandbox
        self.install_timeout_s = install_timeout_s

    def prepare(
        self, request: EnvRequest, tree: Tree, job: Path, setup_tree: SetupTree | None = None
    ) -> Prepared:
        started = time.monotonic()
        repo = request.repo
        if self.sandbox.name != "bubblewrap":
            # The toolchains are the machine's, shown to a bubblewrap sandbox as they are; the
            # Docker image holds Python's only, and an unsandboxed run cannot move paths.
            raise ToolchainMissing(
                f"{self.language.name} runs in the bubblewrap sandbox only, not {self.sandbox.name}"
            )
        for scratch in ("home", "tmp"):
            (job / scratch).mkdir(parents=True, exist_ok=True)
        self.sandbox.prepare_writable(job)
        self.sandbox.prepare_writable(tree.path)
        self.envs_dir.mkdir(parents=True, exist_ok=True)
        prepared = self._prepared(repo, tree, job, setup_tree, started)
        if plant(prepared.plan, job, self.envs_dir, partial(self._seed_run, tree)):
            prepared = prepared.model_copy(update={"seconds": round(time.monotonic() - started, 3)})
        return prepared

    def _prepared(
        self, repo: str, tree: Tree, job: Path, setup_tree: SetupTree | None, started: float
    ) -> Prepared:
        """The environment, planned from `setup_tree` when given (else `tree`): from the host's
        record of it alone when the environment is built already, a tree written out only to
        build in."""
        if setup_tree is None:
            return self._ready(repo, tree, tree, job, started)
        with setup_tree(files=False) as record:
            plan = self.install_plan(record)
            if is_built(self.envs_dir, plan_key(repo, plan)):
                return self._ready(repo, record, tree, job, started, plan)
        with setup_tree() as own:
            self.sandbox.prepare_writable(own.path)
            return self._ready(repo, own, tree, job, started)

    def again(self, prepared: Prepared, tree: Tree, job: Path) -> Prepared:
        """`prepared`'s environment for another tree of the same commit and patches, `job` its
        own scratch: nothing planned or looked up again (the same plan, the same key)."""
        started = time.monotonic()
        for scratch in ("home", "tmp"):
            (job / scratch).mkdir(parents=True, exist_ok=True)
        self.sandbox.prepare_writable(job)
        self.sandbox.prepare_writable(tree.path)
        plant(prepared.plan, job, self.envs_dir, partial(self._seed_run, tree))
        seconds = round(time.monotonic() - started, 3)
        return prepared.model_copy(update={"job": job, "built": False, "seconds": seconds})

    def _seed_run(
        self, tree: Tree, phase: Phase, plan: Plan, job: Path, project: Path
    ) -> RunResult:
        """The seed's phase with `project` as its tree: no tree's files, no git directory, an
        empty environment."""
        if plan.caches or plan.tree_binds:
            raise ValueError("a seed is made with a plan that shows it nothing of a tree")
        empty = job.parent / "env"
        empty.mkdir(exist_ok=True)
        for folder in (job, project):
            self.sandbox.prepare_writable(folder)
        return self._run(phase, plan, tree, job, empty, False, SEED_TIMEOUT_S, testbed=project)

    def _ready(
        self,
        repo: str,
        source: Tree,
        tree: Tree,
        job: Path,
        started: float,
        plan: Plan | None = None,
    ) -> Prepared:
        """The environment `source` asks for (`plan`: already planned from it), built unless
        it is; `tree` given what it needs."""
        plan = plan if plan is not None else self.install_plan(source)
        key = plan_key(repo, plan)

        def build(folder: Path) -> None:
            folder.mkdir(mode=0o755)
            done = self._build(plan, source, job, folder)
            door.write_text(folder, PLAN, done.model_dump_json())

        built = built_once(self.envs_dir, key, build)
        return Prepared(
            key=key,
            job=job,
            built=built,
            seconds=round(time.monotonic() - started, 3),
            plan=plan.model_copy(update={"left_out": left_out(self.envs_dir / key)}),
        )

    def install_plan(self, source: Tree) -> Plan:
        """The language's plan for `source`, with all its install may see in its key: its
        inputs (the commit's own too, when asked), else the whole tree, and then no cache
        shared with another environment."""
        date = source.date()
        plan = self.language.plan(source, date)
        if plan.inputs is None:
            # The install builds the tree (its code runs): the environment is this tree's.
            return plan.model_copy(
                update={"key": (*plan.key, f"tree={source.digest()}"), "caches": ()}
            )
        if not plan.base_inputs or not source.commit:
            return plan
        try:
            base = self.language.plan(CommitFiles(source.git_dir, source.commit), date).inputs
        except (ToolchainMissing, GitError):
            base = None  # the commit alone cannot be installed: its run says why
        more = {f"{BASE_INPUTS}/{path}": text for path, text in (base or {}).items()}
        return plan.model_copy(update={"inputs": {**plan.inputs, **more}})

    def _build(self, plan: Plan, tree: Tree, job: Path, shared: Path) -> Plan:
        """`plan`'s install run into `shared`; the plan as built (what it left out)."""
        self.sandbox.prepare_writable(shared)
        own = (
            None
            if plan.inputs is None
            else Path(tempfile.mkdtemp(dir=job.parent, prefix="install-"))
        )
        try:
            if own is not None:
                own.chmod(0o755)
                for path, text in (plan.inputs or {}).items():
                    door.write_text(own, path, text)
                self.sandbox.prepare_writable(own)
            for phase in plan.install:
                done = self._run(
                    phase, plan, tree, job, shared, True, self.install_timeout_s, testbed=own
                )
                if done.returncode != 0 and not done.killed:
                    reduced = partly_installed(self.language, plan, tree, done.log)
                    if reduced is not None:
                        plan = reduced
                        continue
                if done.killed or done.returncode != 0:
                    why = done.killed or f"exit status {done.returncode}"
                    raise EnvBuildError(
                        f"{' '.join(phase.argv)} failed ({why}):\n"
                        + redacted_excerpt(done.log, tail=4000),
                        done.log,
                    )
        finally:
            if own is not None:
                shutil.rmtree(own, ignore_errors=True)
        return plan

    def run(
        self,
        prepared: Prepared,
        tree: Tree,
        args: list[str],
        timeout_s: float,
        plugin: Plugin | None = None,
    ) -> RunResult:
        if plugin is not None:
            raise ValueError(f"{self.language.name}'s test command takes no pytest plugin")
        plan, job = prepared.plan, prepared.job
        shared = self.envs_dir / prepared.key
        phase = self.language.test_command(tree, args, plan)
        self.sandbox.prepare_writable(job)
        self.sandbox.prepare_writable(tree.path)
        return self._run(phase, plan, tree, job, shared, False, timeout_s)

    def run_phase(
        self, prepared: Prepared, tree: Tree, phase: Phase, timeout_s: float
    ) -> RunResult:
        """`phase` (a language's own command, not its tests) run as the tests are: in `tree`,
        the environment read-only, no network."""
        if phase.network:
            raise ValueError("a command after the install reaches no registry")
        self.sandbox.prepare_writable(prepared.job)
        self.sandbox.prepare_writable(tree.path)
        shared = self.envs_dir / prepared.key
        return self._run(phase, prepared.plan, tree, prepared.job, shared, False, timeout_s)

    def _run(
        self,
        phase: Phase,
        plan: Plan,
        tree: Tree,
        job: Path,
        shared: Path,
        building: bool,
        timeout_s: float,
        testbed: Path | None = None,
    ) -> RunResult:
        """`phase` in the sandbox, at `/testbed` the tree (or, for an install from inputs, the
        folder `testbed` holding them: no `.git`, no file the plan did not name)."""
        binds = [Bind(source=f, target=f) for f in plan.toolchain.folders]
        binds += [
            Bind(source=job, target=Path(JOB), writable=True),
            Bind(source=shared, target=Path(ENV), writable=building),
        ]
        if testbed is None:
            binds.append(Bind(source=tree.git_dir, target=tree.git_dir))
        binds.append(Bind(source=testbed or tree.path, target=Path(TESTBED), writable=True))
        for name in plan.caches:
            # The environment's name without its digest: the repository and the language.
            cache = self.envs_dir / "caches" / shared.name.rsplit("-", 1)[0] / name
            cache.mkdir(parents=True, exist_ok=True)
            if building:
                self.sandbox.prepare_writable(cache)
            binds.append(Bind(source=cache, target=Path(CACHE, name), writable=building))
        if not building:
            for inside_env, inside_tree in plan.tree_binds.items():
                if (shared / inside_env).is_dir() and not (shared / inside_env).is_symlink():
                    binds.append(
                        Bind(source=shared / inside_env, target=Path(TESTBED, inside_tree))
                    )
        path = os.pathsep.join([*plan.toolchain.path, FIXED_PATH])
        env = {"HOME": f"{JOB}/home", "TMPDIR": f"{JOB}/tmp", "LANG": "C.UTF-8", "PATH": path}
        env |= plan.toolchain.env | plan.env | phase.env
        return self.sandbox.run(
            list(phase.argv),
            binds=binds,
            cwd=Path(TESTBED),
            env=env,
            timeout_s=timeout_s,
            network=phase.network,
            network_python=Path("/usr/bin/python3") if phase.network else None,
            registries=plan.registries,
            channel=phase.channel,
            lookups=phase.lookups,
            # A fetch from inputs compiles nothing: silence with no bytes from the registry is
            # a stall (a dependency's host that never answers). A build that compiles the
            # tree (Maven's) may be quiet for long, and has its timeout only.
            idle_s=INSTALL_IDLE_S if building and testbed is not None else None,
        )
