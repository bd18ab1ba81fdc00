"""A hostile tree's install decides nothing for its siblings (issue 46).

Each language gets a tree whose tool settings name a program of its own (`.npmrc`'s `git=`,
`.yarnrc`'s `yarn-path`, `.pnpmfile.cjs`, `.cargo/config.toml`'s `rustc-wrapper`), or test or
build code that runs it (Go's `TestMain`, Python's `setup.py`). The program, if it ever runs,
leaves a mark and wrecks what it can reach: it makes the shared caches unreadable and plants a
wrapper in the environment. The tree is validated first; then a clean sibling of the same
repository, in the same environments folder, must get the verdict it gets alone, and no mark
may be anywhere in that folder.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from spice_engine.langs.executor import Executor
from spice_engine.langs.rust import RUSTUP, machine_rust
from tests.install_attack_support import (
    EVIL,
    EVIL_JS,
    MARK,
    TALLY_DEPENDENCY,
    _after_a_hostile_sibling,
    _marks,
    _sandbox,
    _verdict,
    _with_hostile,
    every_attack,
)
from tests.lang_projects import patched_project, project_instance, registry_problem

DATA = Path(__file__).parent / "data"


def _rust_pair(tmp_path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """A tiny crate's instance and a sibling whose `.cargo/config.toml` names a wrapper."""
    if not RUSTUP.exists():
        pytest.skip(f"no rustup at {RUSTUP}")
    machine_rust()
    if why := registry_problem("index.crates.io"):
        pytest.skip(f"cannot run here: {why}")
    repo = tmp_path / "repo"
    # A dependency for some targets: cargo asks rustc (through the wrapper) which the host is.
    row = patched_project(DATA / "lang_rust", repo, "t/tally", TALLY_DEPENDENCY)
    wrapper = '[build]\nrustc-wrapper = "/testbed/evil.sh"\n'
    return row, _with_hostile(row, repo, {".cargo/config.toml": wrapper, "evil.sh": EVIL})


def test_a_rustc_wrapper_in_the_tree_does_not_reach_a_sibling_with_the_same_manifests(
    tmp_path: Path,
) -> None:
    # Two cold Rust builds; the umask test below holds the same pair through the CLI by default.
    every_attack()
    box = _sandbox(tmp_path)
    row, hostile = _rust_pair(tmp_path)
    _after_a_hostile_sibling(tmp_path, lambda envs: Executor(envs, box), row, [hostile], "rust")


def test_the_cli_under_umask_077_keeps_a_hostile_sibling_from_the_clean_ones_verdict(
    tmp_path: Path,
) -> None:
    """`spice validate` as a user runs it: one batch, the hostile row first."""
    _sandbox(tmp_path)
    row, hostile = _rust_pair(tmp_path)
    verdicts = []
    for name, rows in (("alone", [row]), ("after", [hostile, row])):
        given, out = tmp_path / f"{name}.jsonl", tmp_path / f"{name}-out.jsonl"
        given.write_text("".join(json.dumps(r) + "\n" for r in rows))
        command = [str(Path(sys.executable).with_name("spice")), "validate", str(given)]
        command += ["--out", str(out), "--repo", f"t/tally={tmp_path / 'repo'}"]
        env = os.environ | {"SPICE_DATA_DIR": str(tmp_path / f"data-{name}")}
        subprocess.run(command, env=env, umask=0o077, capture_output=True, timeout=900)
        got = {r["instance_id"]: r for r in map(json.loads, out.read_text().splitlines())}
        clean = got[row["instance_id"]]
        verdicts.append((clean["spice"]["validation"]["status"], clean["FAIL_TO_PASS"]))
        assert _marks(tmp_path / f"data-{name}") == []
    assert verdicts[0][0] == "valid" and verdicts[1] == verdicts[0]


HOSTILE_JS: list[tuple[str, dict[str, str]]] = [
    (
        "npm-git",
        {
            ".npmrc": "git=/testbed/evil.sh\n",
            "evil.sh": EVIL,
            "package.json": json.dumps(
                {
                    "name": "calc",
                    "scripts": {"test": "mocha test/"},
                    "devDependencies": {
                        "mocha": "10.8.2",
                        "left-pad": "git+https://example.invalid/left-pad.git",
                    },
                }
            ),
        },
    ),
    (
        "yarn1-path",
        {
            ".yarnrc": 'yarn-path "./evil.js"\n',
            "evil.js": EVIL_JS,
            "yarn.lock": "# yarn lockfile v1\n\n",
        },
    ),
    (
        "yarn-berry-plugin",
        {
            ".yarnrc.yml": "plugins:\n  - path: evil-plugin.cjs\n",
            "evil-plugin.cjs": EVIL_JS
            + "module.exports = { name: 'evil', factory: () => ({}) };\n",
            "yarn.lock": "__metadata:\n  version: 8\n",
        },
    ),
    (
        "pnpmfile",
        {
            ".pnpmfile.cjs": EVIL_JS + "module.exports = { hooks: {} };\n",
            "pnpm-lock.yaml": "lockfileVersion: '9.0'\n",
        },
    ),
]


@pytest.mark.timeout(1200)
def test_a_javascript_trees_tool_settings_never_run_at_install(tmp_path: Path) -> None:
    """npm's `git=`, yarn 1's `yarn-path`, a yarn 2+ plugin and a `.pnpmfile.cjs`, one
    sibling each, in turn."""
    every_attack()
    box = _sandbox(tmp_path)
    if shutil.which("node") is None:
        pytest.skip("no Node.js on this machine")
    if why := registry_problem("registry.npmjs.org"):
        pytest.skip(f"cannot run here: {why}")
    row = project_instance(DATA / "lang_js" / "calc", tmp_path / "repo")
    hostile = []
    for name, files in HOSTILE_JS:
        made = _with_hostile(row, tmp_path / "repo", files, branch=name)
        hostile.append(made | {"instance_id": f"{row['instance_id']}-{name}"})
    _after_a_hostile_sibling(
        tmp_path,
        lambda envs: Executor(envs, box),
        row,
        hostile,
        "javascript",
    )


@pytest.mark.timeout(900)
def test_a_go_trees_tests_cannot_write_the_module_cache_or_the_environment(
    tmp_path: Path,
) -> None:
    every_attack()  # three cold Go builds: held before installs saw only their inputs too
    box = _sandbox(tmp_path)
    if not Path("/usr/local/go/bin/go").exists():
        pytest.skip("no Go toolchain at /usr/local/go")
    row = project_instance(DATA / "lang_go" / "calc", tmp_path / "repo")
    probe = (
        'package mathx\n\nimport (\n\t"os"\n\t"os/exec"\n\t"testing"\n)\n\n'
        "func TestMain(m *testing.M) {\n"
        f'\t_ = exec.Command("sh", "-c", {json.dumps(EVIL)}).Run()\n'
        "\tos.Exit(m.Run())\n}\n"
    )
    hostile = _with_hostile(
        row, tmp_path / "repo", {"go.work": "go 1.21\n\nuse .\n", "mathx/main_test.go": probe}
    )
    _after_a_hostile_sibling(tmp_path, lambda envs: Executor(envs, box), row, [hostile], "go")


# Run by setuptools whenever the project's metadata is built (the environment's resolution,
# the editable install): it plants an interpreter start-up hook wherever it can write.
PY_EVIL = f"""import os, sys
for where in {{sys.prefix, *sys.path, "/spice/env", "/spice/job"}}:
    for name, text in (({MARK!r}, ""), ("sitecustomize.py", "raise SystemExit(3)  # {MARK}")):
        try:
            with open(os.path.join(where, name), "w") as planted:
                planted.write(text)
        except OSError:
            pass
from setuptools import setup
setup()
"""


def test_a_python_trees_build_code_and_settings_reach_no_sibling(tmp_path: Path) -> None:
    """uv runs with `--no-config` (a `uv.toml` or `pip.conf` naming another index is not
    read) and the project's `setup.py` only with the shared environment read-only."""
    from spice_engine.langs.executor import Executor
    from tests.fakes.sample_project import make_calc_repo
    from tests.validation_support import validate_calc

    box = _sandbox(tmp_path)
    if why := box.network_problem() or registry_problem("pypi.org"):
        pytest.skip(f"cannot run here: {why}")
    repo = tmp_path / "repo"
    row = make_calc_repo(repo)
    hostile = _with_hostile(
        row,
        repo,
        {
            "setup.py": PY_EVIL,
            "uv.toml": 'index-url = "http://127.0.0.1:9/simple"\n',
            "pip.conf": "[global]\nindex-url = http://127.0.0.1:9/simple\n",
        },
    )

    def run(instance: dict[str, Any], envs: str, scratch: str) -> Any:
        executor = Executor(tmp_path / envs, box)
        return validate_calc(repo, instance, instance["test_patch"], executor, tmp_path / scratch)

    alone = run(row, "alone", "s1")
    assert alone.validation.status == "valid", alone.validation.detail
    ran = run(hostile, "shared", "s2")
    # Its code did run: the hook it planted in its own job's interpreter stopped its tests.
    assert ran.validation.status == "tests_did_not_run", ran.validation.detail
    assert _marks(tmp_path / "shared") == []
    assert not list((tmp_path / "shared").rglob("sitecustomize.py"))
    after = run(row, "shared", "s3")
    assert _verdict(after) == _verdict(alone), after.validation.detail
