"""Each language's install reaches its own registries and no other language's (issue 48).

Every language's plan names its registries; a tree holding a project of each is planned by
each. Then, in the real sandbox, each plan's install is replaced by a probe (its registries
and everything else of the plan kept) and built by `PlanEnvironments`: through the index
proxy, a tunnel to another language's registry is refused, one to its own is not.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from spice_engine.langs import languages
from spice_engine.langs.base import ENV, TESTBED, Files, Phase, Plan, ToolchainMissing
from spice_engine.langs.plan_environments import PlanEnvironments
from spice_engine.langs.prepared import EnvRequest
from spice_engine.validate.bubblewrap import Bubblewrap
from spice_engine.validate.index_access import IndexAccess
from spice_engine.validate.tree import Tree, checkout
from tests.fakes.sample_project import git

PROBE = Path(__file__).parent / "data" / "sandbox_net_probe.py"
REGISTRIES = {
    "python": {"pypi.org:443", "files.pythonhosted.org:443"},
    "javascript": {"registry.npmjs.org:443"},
    "go": {"proxy.golang.org:443", "sum.golang.org:443"},
    "rust": {"index.crates.io:443", "static.crates.io:443", "crates.io:443"},
    "java": {"repo.maven.apache.org:443", "repo1.maven.org:443"},
    "c": {"deb.debian.org:443"},
    "cpp": {"deb.debian.org:443"},
}
"""What docs/security.md says each language's install reaches."""
POM = """<project><modelVersion>4.0.0</modelVersion><groupId>a</groupId><artifactId>a</artifactId>
<version>1</version><properties><maven.compiler.release>17</maven.compiler.release></properties>
</project>
"""
POLYGLOT = {
    "setup.py": "from setuptools import setup\nsetup(name='a', install_requires=['six'])\n",
    "package.json": json.dumps({"name": "a", "devDependencies": {"left-pad": "1.3.0"}}),
    "go.mod": "module example.com/a\n\ngo 1.20\n",
    "Cargo.toml": '[package]\nname = "a"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": "",
    "pom.xml": POM,
    # libarchive's headers: what this machine lacks, so the C plan fetches them from Debian.
    "CMakeLists.txt": "project(a)\nfind_package(LibArchive REQUIRED)\n",
    "a.cc": "",
}


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tree]:
    """The polyglot tree, checked out as validation checks trees out."""
    where = tmp_path_factory.mktemp("polyglot")
    repo = where / "repo"
    for path, text in POLYGLOT.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    with checkout(repo, git(repo, "rev-parse", "HEAD").strip(), where) as tree:
        yield tree


def _plan(name: str, files: Files) -> Plan:
    try:
        plan = languages()[name].plan(files, "2025-06-01T00:00:00Z")
    except ToolchainMissing as exc:
        pytest.skip(f"{name} cannot be planned here: {exc}")
    if not any(phase.network for phase in plan.install):
        pytest.skip(f"{name}'s plan fetches nothing here")
    return plan


def test_the_table_names_every_language() -> None:
    assert set(REGISTRIES) == set(languages())


@pytest.mark.parametrize("name", sorted(REGISTRIES))
def test_each_languages_plan_names_its_registries(name: str, tree: Tree) -> None:
    assert set(_plan(name, tree).registries) == REGISTRIES[name]


class Probing:
    """`real`, its install replaced by a probe of the tunnels `checks` names: every other
    part of its plan (its registries first) as `real` plans it."""

    def __init__(self, real: Any, checks: dict[str, list[object]]) -> None:
        self.real, self.name, self.checks = real, real.name, checks

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self.real, attribute)

    def plan(self, files: Files, date: str | None) -> Plan:
        probe = f'python3 -I {TESTBED}/probe.py "$1" > {ENV}/probe.txt'
        phase = Phase(argv=("sh", "-c", probe, "probe", json.dumps(self.checks)), network=True)
        return self.real.plan(files, date).model_copy(
            update={"install": (phase,), "inputs": {"probe.py": PROBE.read_text()}}
        )


@pytest.mark.parametrize("name", ["python", "javascript", "go", "rust", "java", "cpp"])
def test_an_install_reaches_its_own_registries_and_no_other_languages(
    name: str, tree: Tree, tmp_path: Path
) -> None:
    box = Bubblewrap(index=IndexAccess())  # no index of the operator's: the plan's alone
    if why := box.problem(tmp_path):
        pytest.skip(f"bubblewrap cannot run here: {why}")
    own = set(_plan(name, tree).registries)
    others = sorted(set().union(*REGISTRIES.values()) - own)
    mine = min(own)
    tunnels = [[h, int(p)] for h, p in (r.rsplit(":", 1) for r in [*others, mine])]
    envs = PlanEnvironments(Probing(languages()[name], {"tunnel": tunnels}), tmp_path / "envs", box)
    prepared = envs.prepare(EnvRequest(repo="acme/poly", language=name), tree, tmp_path / "job")
    said = (tmp_path / "envs" / prepared.key / "probe.txt").read_text()
    found = json.loads(said.removeprefix("PROBE "))
    for registry in others:
        assert found[f"tunnel {registry}"] == "HTTP/1.1 403 Forbidden", (registry, found)
    # Its own registry is not refused: the proxy opens it (or, on a machine without the
    # internet, says it cannot: a 502, never the 403 of a host it may not reach).
    assert found[f"tunnel {mine}"] != "HTTP/1.1 403 Forbidden", found
