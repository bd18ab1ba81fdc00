"""Rust's probes end the test running them without leaving a program waiting: on a thread
libtest started they panic (that test fails, the others run on), anywhere else they abort the
process (a panic on a worker thread leaves whoever waits for it waiting: ripgrep's `rg` held
each probe run to its bound). Built and run with the real rustc
(spice_engine.langs.line_probes, spice_engine.langs.decision_probes)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from spice_engine.langs.decision_probes import probe as decision_probe
from spice_engine.langs.line_probes import probe as line_probe
from tests.program_builds import build_program

PICK = (
    "fn pick(n: usize) -> usize {\n    if n > 1 {\n        1\n    } else {\n        0\n    }\n}\n"
)
# `pick` on a worker thread the main thread meets at a barrier: a panic there would leave the
# main thread at the barrier for good.
WORKER = (
    "#![deny(warnings)]\nuse std::sync::{Arc, Barrier};\n\n" + PICK + "\nfn main() {\n"
    "    let n = std::env::args().count();\n    let meet = Arc::new(Barrier::new(2));\n"
    "    let theirs = Arc::clone(&meet);\n"
    "    std::thread::spawn(move || {\n        let got = pick(n);\n        theirs.wait();\n"
    "        got\n    });\n    meet.wait();\n}\n"
)
# Two tests of `pick`: only `low` gives the input where `n > 1` and `n >= 1` differ.
TESTS = (
    "#![deny(warnings)]\n" + PICK + "\n#[test]\nfn low() {\n    assert_eq!(pick(1), 0);\n}\n\n"
    "#[test]\nfn high() {\n    assert_eq!(pick(3), 1);\n}\n"
)


def _probes(fixed: str) -> dict[str, str]:
    decision = decision_probe("rust", fixed, fixed.replace("n > 1", "n >= 1"))
    assert decision is not None
    line = line_probe("rust", fixed, fixed.index("n > 1"))
    assert line is not None
    return {"line": line, "decision": decision.source}


def _built(source: str, tmp_path: Path, flags: tuple[str, ...] = ()) -> list[str]:
    (tmp_path / "main.rs").write_text(source)
    run = build_program("rust", tmp_path, "main.rs", flags)
    if run is None:
        pytest.skip("no rustc on this machine")
    return run


@pytest.mark.parametrize("kind", ["line", "decision"])
def test_a_probe_on_a_worker_thread_ends_the_program(kind: str, tmp_path: Path) -> None:
    """The fix's program ends at once; probed, it ends at once too, failed (aborted), where a
    panic would have left its main thread waiting at the barrier."""
    assert subprocess.run(_built(WORKER, tmp_path), timeout=60).returncode == 0
    probed = _built(_probes(WORKER)[kind], tmp_path)
    done = subprocess.run(probed, capture_output=True, timeout=60)
    assert done.returncode != 0


@pytest.mark.parametrize("kind", ["line", "decision"])
def test_a_probe_on_a_test_thread_fails_that_test_alone(kind: str, tmp_path: Path) -> None:
    """Under libtest the probe panics: the test reaching it fails, the process goes on and
    reports the other test (a decision probe fails only the test where the decision differs)."""
    run = _built(_probes(TESTS)[kind], tmp_path, ("--test", "--edition", "2021"))
    done = subprocess.run([*run, "--test-threads", "1"], capture_output=True, text=True, timeout=60)
    assert "test result: FAILED" in done.stdout, done.stdout + done.stderr
    assert "test low ... FAILED" in done.stdout
    expected = "test high ... ok" if kind == "decision" else "test high ... FAILED"
    assert expected in done.stdout


def test_a_probe_in_a_const_fn_is_a_plain_panic(tmp_path: Path) -> None:
    """A `const fn` may not ask which thread runs it: its probes panic, and still build."""
    fixed = (
        "#![deny(warnings)]\n"
        + PICK.replace("fn pick", "const fn pick")
        + ("\nfn main() {\n    std::process::exit(pick(std::env::args().count()) as i32 - 1);\n}\n")
    )
    for source in _probes(fixed).values():
        assert "abort" not in source
        run = _built(source, tmp_path)
        assert subprocess.run(run, capture_output=True, timeout=60).returncode == 101  # panicked
