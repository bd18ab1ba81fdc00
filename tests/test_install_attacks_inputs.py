"""What an install sees (issue 46): a tree's manifests and vetted settings only, never its tool
settings or code; Maven, whose install compiles the tree, gets the tree's own environment (two
trees differing in one source do not share it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from spice_engine.langs.base import ToolchainMissing
from spice_engine.langs.env_keys import plan_key
from spice_engine.langs.go import Go
from spice_engine.langs.java import Java
from spice_engine.langs.javascript import JavaScript
from spice_engine.langs.plan_environments import PlanEnvironments
from spice_engine.langs.rust import Rust
from spice_engine.validate.bubblewrap import Bubblewrap
from spice_engine.validate.tree import checkout
from tests.fakes.sample_project import git


def test_a_maven_environment_is_its_trees_own(tmp_path: Path) -> None:
    """Maven's install compiles the tree (plugins, annotation processors, test classes): two
    trees with the same poms but one changed source get two environments."""
    repo = tmp_path / "repo"
    (repo / "src/main/java/a").mkdir(parents=True)
    (repo / "pom.xml").write_text("<project><modelVersion>4.0.0</modelVersion></project>\n")
    (repo / "src/main/java/a/A.java").write_text("package a; class A {}\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    first = git(repo, "rev-parse", "HEAD").strip()
    (repo / "src/main/java/a/A.java").write_text("package a; class A { static { } }\n")
    git(repo, "commit", "-qam", "a source changed")
    second = git(repo, "rev-parse", "HEAD").strip()
    environments = PlanEnvironments(Java(), tmp_path / "envs", Bubblewrap())
    keys = []
    for commit in (first, second, first):
        with checkout(repo, commit, tmp_path, "t") as tree:
            plan = environments.install_plan(tree)
            assert plan.inputs is None and plan.caches == ()
            keys.append(plan_key("a/b", plan))
    assert keys[0] != keys[1] and keys[0] == keys[2]


@pytest.mark.parametrize(
    "lang,files,unseen",
    [
        (
            JavaScript(),
            {
                "package.json": '{"dependencies": {"x": "1"}}',
                ".npmrc": "git=/testbed/evil.sh\nlegacy-peer-deps=true\nnoproxy=*\n",
                ".yarnrc": 'yarn-path "./evil.js"\n',
                ".yarnrc.yml": "yarnPath: evil.cjs\nplugins: [evil.cjs]\nnmHoistingLimits: workspaces\n",
                ".pnpmfile.cjs": "evil",
                "evil.sh": "evil",
            },
            ("git=", "noproxy", "yarnPath", "plugins", '".yarnrc"', ".pnpmfile.cjs", "evil.sh"),
        ),
        (
            Rust(),
            {
                "Cargo.toml": '[package]\nname = "a"\nversion = "0.1.0"\n',
                "src/lib.rs": "pub fn f() {}",
                ".cargo/config.toml": '[build]\nrustc-wrapper = "evil.sh"\n',
                "rust-toolchain.toml": '[toolchain]\nchannel = "nightly"\n',
                "evil.sh": "evil",
            },
            (".cargo/config.toml", "rust-toolchain.toml", "evil.sh", "pub fn"),
        ),
        (
            Go(),
            {
                "go.mod": "module m\n\ngo 1.21\n",
                "go.env": "GOFLAGS=-toolexec=./evil.sh",
                "a.go": "x",
            },
            ("go.env", "a.go", "toolexec"),
        ),
    ],
)
def test_an_install_sees_manifests_and_vetted_settings_only(
    lang: Any, files: dict[str, str], unseen: tuple[str, ...]
) -> None:
    from tests.lang_projects import DictFiles

    try:
        plan = lang.plan(DictFiles(files), None)
    except ToolchainMissing as exc:
        pytest.skip(str(exc))
    assert plan.inputs is not None
    seen = json.dumps(plan.inputs)
    for word in unseen:
        assert word not in seen
    assert plan.input_digests is not None and set(plan.input_digests) == set(plan.inputs)
    if isinstance(lang, JavaScript):
        assert plan.inputs[".npmrc"] == "legacy-peer-deps=true\n"
        assert plan.inputs[".yarnrc.yml"] == "nmHoistingLimits: workspaces\n"
