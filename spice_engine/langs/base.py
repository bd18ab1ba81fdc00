"""The language seam: what one ecosystem knows about a tree, and nothing about sandboxes.

A `Language` reads a tree through `Files` (the host's own record of it, never the checkout
the tests wrote) and answers with values: the toolchain it needs, the shared environment's
install (`Phase`s run in the sandbox, the registry reached through the index proxy), the
command that runs named tests, and how to read that command's results. The executor
(spice_engine.langs.executor) is the only thing that runs any of it.

Paths inside a sandbox are fixed (spice_engine.langs.python_job_commands): the tree at `/testbed`,
the shared environment at `/spice/env` (writable while it is built, read-only after), the
job's scratch at `/spice/job`.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field, computed_field

from spice_engine.validate.outcomes import Outcomes

ENV = "/spice/env"
"""The shared environment as a sandbox shows it."""
CACHE = "/spice/cache"
"""The repository's download caches (`Plan.caches`) as a sandbox shows them."""
JOB = "/spice/job"
"""The job's scratch as a sandbox shows it."""
TESTBED = "/testbed"
TEST_FOLDERS = frozenset(
    {"test", "tests", "testing", "e2e", "__tests__", "spec", "specs", "testdata", "test_data"}
    | {"fixtures", "__fixtures__", "__mocks__", "__snapshots__", "test-data", "testfixtures"}
)
"""Folders that hold tests or their data in most ecosystems (SWE-bench's split is reproduced
by the first four)."""
BASE_INPUTS = ".spice-base"
"""Where in the install's folder the commit's own inputs are (`Plan.base_inputs`)."""


class ToolchainMissing(RuntimeError):
    """The project asks for a toolchain this machine cannot have; the message says which."""


class Files(Protocol):
    """A tree as the host records it: tracked paths and their text."""

    def paths(self) -> list[str]: ...

    def text(self, path: str) -> str | None:
        """The file's text, None when it is not tracked (or not text)."""
        ...

    def changed(self) -> list[str]:
        """Paths the host's patches changed from the tree's commit (none for a commit's own
        files): what a plan may build for, when it builds less than the whole project."""
        ...


class Toolchain(BaseModel):
    """A compiler or runtime of this machine's, shown read-only in the sandbox."""

    model_config = ConfigDict(frozen=True)

    name: str
    """What it is, with its version (`go1.26.8`, `node v20.20.2`): part of the environment key."""
    folders: tuple[Path, ...] = ()
    """Host folders it lives in (bound read-only at the same path; `/usr` is always there)."""
    path: tuple[str, ...] = ()
    """Folders put first on PATH."""
    env: dict[str, str] = Field(default_factory=dict)


class Phase(BaseModel):
    """One command in the sandbox, in the tree (`/testbed`)."""

    model_config = ConfigDict(frozen=True)

    argv: tuple[str, ...]
    env: dict[str, str] = Field(default_factory=dict)
    network: bool = False
    """Reaches the plan's registries (and only them) through the index proxy."""
    channel: bool = False
    """Its standard output is the results channel; its log is standard error alone."""
    lookups: bool = False
    """Each host name its processes look up and cannot have is noted in its log as it happens:
    where the runner's own report of a failure cannot show that a test needed the network."""


class Seed(BaseModel):
    """Output a toolchain makes alike for every tree (Go's compiled standard library): made
    once, in the sandbox, from the language's own small project and no tree's, then copied
    into each job. A tree's code may write to its job's copy, never to the seed or another
    job's copy."""

    model_config = ConfigDict(frozen=True)

    folder: str
    """Where the job's copy goes, under `/spice/job` (where the plan's env points the tool)."""
    files: dict[str, str]
    """The project it is made from, path -> text, at `/testbed` in an otherwise empty folder."""
    phase: Phase


class Plan(BaseModel):
    """What a language makes of one tree: the environment its tests need."""

    model_config = ConfigDict(frozen=True)

    language: str
    toolchain: Toolchain
    key: tuple[str, ...]
    """What the shared environment depends on (manifests' and lockfiles' digests, the date):
    trees with the same key share one environment."""
    install: tuple[Phase, ...] = ()
    """Built once per environment, from the environment's first tree, into `/spice/env`."""
    registries: tuple[str, ...] = ()
    """The hosts (`host:port`) its install's networked phases may reach through the index
    proxy, besides the operator's own index: the language's public registries, no other's."""
    env: dict[str, str] = Field(default_factory=dict)
    """Every command's environment (caches in `/spice/env` or `/spice/job`)."""
    tree_binds: dict[str, str] = Field(default_factory=dict)
    """Folders of the shared environment shown inside the tree, read-only:
    `{"node_modules": "node_modules"}` binds `/spice/env/node_modules` at
    `/testbed/node_modules`."""
    caches: tuple[str, ...] = ()
    """Download caches shared by every environment of the repository in this language, each
    at `/spice/cache/<name>`: writable while an environment is built, read-only for tests. Only
    for installs from `inputs` that run none of the repository's code (a cache is shared
    across its environments)."""
    inputs: dict[str, str] | None = Field(default=None, exclude=True, repr=False)
    """All the install sees of the tree, path -> text, at `/testbed` in an otherwise empty
    folder; None when the install needs the whole tree (then the environment is keyed by it
    and has no `caches`)."""
    settings: dict[str, str] = Field(default_factory=dict)
    """What the language's own test command and reports need of the environment (Python:
    its runner and the log parser the harness reads its logs with)."""
    seed: Seed | None = None
    """What every job of this toolchain starts from (spice_engine.langs.seeds)."""
    left_out: dict[str, str] = Field(default_factory=dict)
    """Parts of the project (a Maven module) the install could not build here, each with why,
    found after it ran: the tests run without them, and the row's detail names them."""
    base_inputs: bool = False
    """The install also sees the same files as the tree's commit has them (no patch applied)
    under `BASE_INPUTS`: what the run before the fix needs, fetched while there is a network."""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def input_digests(self) -> dict[str, str] | None:
        """What the environment's key holds of `inputs` (the plan's JSON, hashed, is the key)."""
        if self.inputs is None:
            return None
        return {
            p: hashlib.sha256(t.encode()).hexdigest()[:16] for p, t in sorted(self.inputs.items())
        }


class Language(Protocol):
    """One ecosystem: detection, environment, running named tests, results, the test split."""

    name: str

    def detect(self, files: Files) -> int:
        """How surely the tree is this language's project (0: not at all)."""
        ...

    def is_test_path(self, path: str) -> bool:
        """Whether a changed file is test code (the harvest's gold/test split)."""
        ...

    def plan(self, files: Files, date: str | None) -> Plan:
        """The environment for this tree, resolved as of `date` where the registry allows;
        ToolchainMissing when the project asks for what cannot be had."""
        ...

    def targets(self, test_files: list[str], fix_files: list[str]) -> list[str]:
        """What a run is given, of the files the test patch and the fix leave in place."""
        ...

    def test_command(self, files: Files, test_files: list[str], plan: Plan) -> Phase:
        """The command running the tests of `test_files` (the test patch's files)."""
        ...

    def outcomes(self, channel: str, log: str, plan: Plan | None = None) -> Outcomes:
        """Each test's status from one run of `test_command` in `plan`'s environment (None: the
        language's default runner)."""
        ...

    def mutable(self, path: str) -> bool:
        """Whether the fix's changes to `path` are code a mutant may change."""
        ...

    def grammar(self, path: str) -> str | None:
        """The tree-sitter grammar `path`'s code is parsed with (None: not this language's)."""
        ...


def with_fix_files(test_files: list[str], fix_files: list[str]) -> list[str]:
    """The test files and then the fix's: for languages that run a package's or a module's
    tests together (the fix's own tests are its first tests)."""
    return [*test_files, *(f for f in fix_files if f not in test_files)]
