"""The one executor: every language's environments under one folder, every command in one
sandbox. A job's language picks how its environment is built — from the language's plan
(spice_engine.langs.plan_environments), or by the language itself where it declares so
(spice_engine.langs.capabilities) — and nothing else differs by language here.
"""

from __future__ import annotations

import threading
from pathlib import Path

from spice_engine.langs import languages
from spice_engine.langs.base import Phase
from spice_engine.langs.capabilities import Environments, own_environments
from spice_engine.langs.plan_environments import INSTALL_TIMEOUT_S, PlanEnvironments
from spice_engine.langs.prepared import EnvRequest, Prepared
from spice_engine.validate.executor import RunResult, SetupTree
from spice_engine.validate.plugin_run import Plugin
from spice_engine.validate.sandbox import Sandbox
from spice_engine.validate.tree import Tree


class Executor:
    """Builds (or reuses) a job's environment and runs its tests in it, for every language."""

    def __init__(
        self, envs_dir: Path, sandbox: Sandbox, install_timeout_s: float = INSTALL_TIMEOUT_S
    ) -> None:
        self.envs_dir, self.sandbox, self.install_timeout_s = envs_dir, sandbox, install_timeout_s
        self._made: dict[str, Environments] = {}
        self._lock = threading.Lock()

    def environments(self, language: str) -> Environments:
        """The environments of `language` (made once, on first use)."""
        with self._lock:
            if language not in self._made:
                known = languages()[language]
                own = own_environments(known)
                self._made[language] = (
                    own.environments(self.envs_dir, self.sandbox, self.install_timeout_s)
                    if own is not None
                    else PlanEnvironments(
                        known, self.envs_dir, self.sandbox, self.install_timeout_s
                    )
                )
            return self._made[language]

    def prepare(
        self, request: EnvRequest, tree: Tree, job: Path, setup_tree: SetupTree | None = None
    ) -> Prepared:
        """The environment for `tree` (a worktree), `job` its scratch. A shared environment
        not built yet is built from `setup_tree()` when given (the environment's own commit,
        or the tree with the fix's manifests), else from `tree`."""
        return self.environments(request.language).prepare(request, tree, job, setup_tree)

    def prepare_again(self, prepared: Prepared, tree: Tree, job: Path) -> Prepared | None:
        """`prepared`'s environment for a second tree of the same commit and patches, `job` its
        scratch, without planning it again (None: the language's own environments cannot say
        that: ask `prepare`)."""
        made = self.environments(prepared.plan.language)
        return made.again(prepared, tree, job) if isinstance(made, PlanEnvironments) else None

    def run(
        self,
        prepared: Prepared,
        tree: Tree,
        args: list[str],
        timeout_s: float,
        plugin: Plugin | None = None,
    ) -> RunResult:
        """The test command with `args` in `tree`; with a `plugin` (a language that loads
        them), its messages in `RunResult.channel`."""
        return self.environments(prepared.plan.language).run(
            prepared, tree, args, timeout_s, plugin
        )

    def run_phase(
        self, prepared: Prepared, tree: Tree, phase: Phase, timeout_s: float
    ) -> RunResult | None:
        """A language's own command other than its tests (its compiler's, for the code of a
        unit) in `tree`, as the tests run; None where its environments are the language's
        own (they run nothing but tests)."""
        made = self.environments(prepared.plan.language)
        if not isinstance(made, PlanEnvironments):
            return None
        return made.run_phase(prepared, tree, phase, timeout_s)
