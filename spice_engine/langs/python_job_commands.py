"""Where a job's commands run: the paths a sandbox shows, the binds, and the run itself.

The sandbox shows every path a command can name at a fixed place (the worktree at `/testbed`,
the job's scratch at `/spice/job`, the shared environment at `/spice/env`, a plugin's folder at
`/spice/plugin`), so no test id, log line or installed file names this machine's folders: a test
parametrised with a module's `__file__` has the same id on every machine and every run.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from spice_engine.validate.executor import RunResult
from spice_engine.validate.plugin_run import Plugin
from spice_engine.validate.sandbox import CHANNEL_FD, Bind, Sandbox, channel_command
from spice_engine.validate.tree import Tree

TESTBED = Path("/testbed")
"""Where a sandbox shows the job's worktree (SWE-bench's path too)."""
JOB = Path("/spice/job")
"""Where a sandbox shows the job's scratch (its venv, home, temporary files)."""
SHARED = Path("/spice/env")
"""Where a sandbox shows the shared environment."""
PLUGIN = Path("/spice/plugin")
"""Where a sandbox shows a plugin's folder (read-only)."""


class Where(NamedTuple):
    """Where a job's command runs: the base interpreter, the worktree, the job's scratch, and
    the shared environment (read-only but while it is built)."""

    python: Path
    tree: Tree
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


class JobCommands:
    """Runs a job's commands in `sandbox`, each seeing only what its phase may."""

    def __init__(self, sandbox: Sandbox, uv: str, install_timeout_s: float) -> None:
        self.sandbox, self.uv, self.install_timeout_s = sandbox, uv, install_timeout_s
        self.moves = sandbox.name != "none"

    def seen_as(self, tree: Path) -> Path:
        """The worktree's path as sandboxed commands see it."""
        return TESTBED if self.moves else tree

    def inside(self, where: Where, plugin: Plugin | None = None) -> Callable[[str], str]:
        """This job's paths, in any text, as its sandboxed commands see them."""
        if not self.moves:
            return lambda text: text
        table = {str(where.tree.path): str(TESTBED), str(where.job): str(JOB)}
        table[str(where.shared)] = str(SHARED)
        if plugin is not None:
            table[str(plugin.folder)] = str(PLUGIN)
        # Longest first, whole path components only, in one pass (no path is moved twice).
        pattern = re.compile(
            "(" + "|".join(re.escape(k) for k in sorted(table, key=len, reverse=True)) + ")"
            r"(?![^/\s:=\"'\]\[,;])"
        )
        return lambda text: pattern.sub(lambda m: table[m.group(1)], text)

    def binds(self, where: Where, writable: list[Path], plugin: Plugin | None) -> list[Bind]:
        """What a command of this job sees: the interpreter, uv, the job's scratch (and the
        `writable` paths) writable, the worktree, the repository's objects read-only (the
        sandbox's own `.git` borrows them), a plugin's folder read-only."""
        at = self.inside(where, plugin)
        prefix = where.python.resolve().parent.parent
        paths = [Bind(source=Path(self.uv), target=Path(self.uv))]
        if not prefix.is_relative_to("/usr"):
            paths.append(Bind(source=prefix, target=prefix))
        paths += [
            Bind(source=p, target=Path(at(str(p))), writable=True) for p in [where.job, *writable]
        ]
        if where.shared not in writable and where.shared.is_dir():
            paths.append(Bind(source=where.shared, target=Path(at(str(where.shared)))))
        paths.append(Bind(source=where.tree.git_dir, target=where.tree.git_dir))
        if plugin is not None:
            paths.append(Bind(source=plugin.folder, target=Path(at(str(plugin.folder)))))
        if self.moves:
            paths.append(Bind(source=where.tree.path, target=TESTBED, writable=True))
        return paths

    def run(
        self,
        cmd: list[str],
        where: Where,
        env: dict[str, str],
        writable: list[Path],
        timeout_s: float | None = None,
        network: bool = False,
        plugin: Plugin | None = None,
        idle_s: float | None = None,
        registries: tuple[str, ...] = (),
    ) -> RunResult:
        """`cmd` in the sandbox with this job's binds, in its worktree, every path in its
        arguments and environment as the sandbox shows it. With a `plugin`, the plugin's
        folder is given and its results come back through the run's channel. With `network`,
        it reaches `registries` and the operator's index. With `idle_s`, stopped once it shows
        no sign of life (`Sandbox.run`) for that long."""
        at = self.inside(where, plugin)
        full = dict(env)
        if plugin is not None:
            cmd = channel_command(cmd)
            full |= {
                "SPICE_PLUGIN_DIR": str(plugin.folder),
                "PYTHONPATH": str(plugin.folder),
                "SPICE_CHANNEL_FD": str(CHANNEL_FD),
                "SPICE_SUPPORT_MODULE": plugin.support,
            }
        return self.sandbox.run(
            [at(arg) for arg in cmd],
            binds=self.binds(where, writable, plugin),
            cwd=self.seen_as(where.tree.path),
            env={k: at(v) for k, v in full.items()},
            timeout_s=self.install_timeout_s if timeout_s is None else timeout_s,
            network=network,
            network_python=where.python.resolve() if network else None,
            registries=registries,
            channel=plugin is not None,
            idle_s=idle_s,
        )
