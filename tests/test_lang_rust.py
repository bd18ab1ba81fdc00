"""Rust through the language seam: libtest's results read off a captured channel, a tree's plan
and test command, and a tiny crate validated end to end in the bubblewrap sandbox."""

from __future__ import annotations

from pathlib import Path

import pytest

from spice_engine.langs.base import ToolchainMissing
from spice_engine.langs.executor import Executor
from spice_engine.langs.python_recipe import Recipe
from spice_engine.langs.rust import RUSTUP, Rust, machine_rust
from spice_engine.runs.session import Job
from spice_engine.runs.validator import validate
from spice_engine.validate.bubblewrap import Bubblewrap
from spice_engine.validate.outcomes import TestStatus
from tests.lang_projects import DictFiles, committed_files

DATA = Path(__file__).parent / "data" / "lang_rust"


def _toolchain() -> None:
    try:
        machine_rust()
    except ToolchainMissing as exc:
        pytest.skip(str(exc))


def test_outcomes_name_each_test_by_its_targets_source_file() -> None:
    channel = (DATA / "channel.txt").read_text()
    assert Rust().outcomes(channel, "") == {
        "src/lib.rs::tests::total_counts_negatives": TestStatus.FAILED,
        "src/lib.rs::tests::total_of_positives": TestStatus.PASSED,
        "tests/sums.rs::overflow_panics": TestStatus.PASSED,
        "tests/sums.rs::sum_of_mixed_signs": TestStatus.FAILED,
    }


def test_outcomes_of_a_build_that_failed_are_empty() -> None:
    channel = '{"reason":"build-finished","success":false}\n'
    assert Rust().outcomes(channel, "error[E0308]: mismatched types") == {}


def test_outcomes_fall_back_to_the_path_cargo_prints_and_read_ignored_tests() -> None:
    channel = (
        "     Running tests/a.rs (target/debug/deps/a-0123)\n\n"
        "running 2 tests\n"
        "test slow ... ignored, takes a minute\n"
        "test m::fast ... ok\n"
        "test m::fast has been running for over 60 seconds\n"
    )
    assert Rust().outcomes(channel, "") == {
        "tests/a.rs::slow": TestStatus.SKIPPED,
        "tests/a.rs::m::fast": TestStatus.PASSED,
    }


def test_detect_and_the_test_split() -> None:
    rust = Rust()

    assert rust.detect(DictFiles({"Cargo.toml": "", "src/lib.rs": ""})) == 10
    assert rust.detect(DictFiles({"rust/Cargo.toml": ""})) == 5
    assert rust.detect(DictFiles({"go.mod": "", "vendor/x/Cargo.toml": ""})) == 0
    assert rust.is_test_path("crates/ignore/tests/gitignore.rs")
    assert rust.is_test_path("src/layer/tests.rs") and rust.is_test_path("src/parse_test.rs")
    assert not rust.is_test_path("src/lib.rs") and not rust.is_test_path("benches/bench.rs")
    assert rust.mutable("crates/core/args.rs") and rust.mutable("src/lib.rs")
    assert not rust.mutable("tests/tests.rs") and not rust.mutable("examples/demo.rs")
    assert not rust.mutable("build.rs") and not rust.mutable("README.md")


def test_a_crate_asking_for_a_newer_rust_is_refused(tmp_path: Path) -> None:
    _toolchain()
    manifest = '[package]\nname = "a"\nversion = "0.1.0"\nrust-version = "1.999"\n'
    with pytest.raises(ToolchainMissing, match=r"rust 1\.999"):
        Rust().plan(committed_files(tmp_path, {"Cargo.toml": manifest}), None)


def test_the_command_tests_the_root_package_and_the_members_holding_test_files(
    tmp_path: Path,
) -> None:
    _toolchain()
    member = '[package]\nname = "{}"\nversion = "0.1.0"\n'
    files = committed_files(
        tmp_path,
        {
            "Cargo.toml": member.format("app") + '[workspace]\nmembers = ["crates/*"]\n',
            "Cargo.lock": "version = 3\n",
            "crates/util/Cargo.toml": member.format("app-util"),
            "crates/util/src/lib.rs": "",
            "crates/other/Cargo.toml": member.format("other"),
            "crates/util/tests/it.rs": "",
            "tests/data/x.txt": "",
        },
    )
    rust = Rust()
    plan = rust.plan(files, None)
    assert "cargo fetch" in plan.install[0].argv[2]
    assert "generate-lockfile" not in plan.install[0].argv[2]
    script = rust.test_command(files, ["crates/util/tests/it.rs", "tests/data/x.txt"], plan)
    assert script.argv[2].count("-p app -p app-util --tests") == 2
    assert "-p other" not in script.argv[2]


def test_a_virtual_workspace_without_a_lockfile_gets_one_as_of_its_date(tmp_path: Path) -> None:
    _toolchain()
    files = committed_files(
        tmp_path,
        {
            "Cargo.toml": '[workspace]\nmembers = ["a"]\n',
            "a/Cargo.toml": '[package]\nname = "a"\nversion = "0.1.0"\n',
            "a/tests/t.rs": "",
        },
    )
    rust = Rust()
    plan = rust.plan(files, "2021-03-04T13:26:26-05:00")
    install = plan.install[0].argv[2]
    assert "--publish-time" in install and "2021-03-04T13:26:26-05:00" in install
    assert "cp Cargo.lock /spice/env/lock/" in install
    script = rust.test_command(files, ["a/tests/t.rs"], plan).argv[2]
    assert "--workspace --tests" in script and "cp /spice/env/lock/Cargo.lock ." in script


def test_a_tiny_crate_validates_with_its_exact_fail_to_pass(tmp_path: Path) -> None:
    box = Bubblewrap()
    if why := box.problem() or box.network_problem():
        pytest.skip(f"no sandbox: {why}")
    if not RUSTUP.exists():
        pytest.skip(f"no rustup at {RUSTUP}")
    _toolchain()
    project = {
        str(p.relative_to(DATA / "project")): p.read_text()
        for p in (DATA / "project").rglob("*")
        if p.is_file()
    }
    files = committed_files(tmp_path, project)
    instance = {
        "instance_id": "t__tally-1",
        "repo": "t/tally",
        "base_commit": files.commit,
        "test_patch": (DATA / "test.patch").read_text(),
        "patch": (DATA / "fix.patch").read_text(),
    }
    job = Job(
        instance=instance,
        git_dir=files.git_dir,
        version="",
        recipe=Recipe(python="3"),
        language="rust",
        reruns=0,
        timeout_s=300,
    )
    executor = Executor(tmp_path / "envs", box)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    done = validate(job, executor, scratch)
    assert done.validation.status == "valid", done.validation.detail
    assert sorted(done.fail_to_pass) == [
        "src/lib.rs::tests::total_counts_negatives",
        "tests/sums.rs::sum_of_mixed_signs",
    ]
    assert sorted(done.pass_to_pass) == [
        "src/lib.rs::tests::total_of_positives",
        "tests/sums.rs::overflow_panics",
    ]


def test_an_install_sees_each_packages_manifest_and_a_target_stand_in(tmp_path: Path) -> None:
    """cargo reads no manifest without a target: each package's target files are given empty,
    and a package cargo would find only examples in gets an empty library (tracing's
    `examples` member); no source, no `.cargo/` of the tree's."""
    _toolchain()
    files = DictFiles(
        {
            "Cargo.toml": '[workspace]\nmembers = ["core", "examples"]\n',
            "core/Cargo.toml": '[package]\nname = "core"\nversion = "0.1.0"\n'
            '[[bin]]\nname = "tool"\npath = "bin/tool.rs"\n',
            "core/src/lib.rs": "pub fn f() {}",
            "core/bin/tool.rs": "fn main() {}",
            "core/build.rs": "fn main() {}",
            "examples/Cargo.toml": '[package]\nname = "examples"\nversion = "0.1.0"\n',
            "examples/examples/demo.rs": "fn main() {}",
            ".cargo/config.toml": '[build]\nrustc-wrapper = "w.sh"\n',
        }
    )
    plan = Rust().plan(files, "2024-01-01T00:00:00Z")
    assert plan.inputs == {
        "Cargo.toml": files.files["Cargo.toml"],
        "core/Cargo.toml": files.files["core/Cargo.toml"],
        "examples/Cargo.toml": files.files["examples/Cargo.toml"],
        "core/src/lib.rs": "",
        "core/bin/tool.rs": "",
        "core/build.rs": "",
        "examples/src/lib.rs": "",
    }
    assert plan.base_inputs
