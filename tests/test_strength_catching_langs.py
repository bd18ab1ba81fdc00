"""A written test that catches a survivor, in the compiled and JavaScript languages too: the
scripted fake model answers with a test in the survivor's language, it is put where that
language's own test command runs it (spice_engine.langs.written_tests), run in the real sandbox
on the fix and on the wrong fix, and kept only when it passes on the first and fails on the
second. The tree is left as the fix had it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.github.check_run_render import check_output
from app.github.strength_render import catching_block
from app.shown_survivors import shown_survivors
from spice_engine.langs import languages
from spice_engine.langs.base import ToolchainMissing
from spice_engine.langs.capabilities import written_place
from spice_engine.langs.executor import Executor
from spice_engine.langs.rust import machine_rust
from spice_engine.runs.validator import validate
from spice_engine.strength.config import StrengthConfig
from spice_engine.strength.measure import measure
from spice_engine.strength.result import TestStrength
from spice_engine.validate.bubblewrap import Bubblewrap
from tests.compiled_code_support import small_project
from tests.lang_projects import DictFiles, go_sandbox, java_sandbox, lang_job, node_sandbox
from tests.strength_support import test_writer

GO_MOD = "module example.com/calc\n\ngo 1.21\n"
GO_BUG = "package mathx\n\n// Add returns a plus b.\nfunc Add(a, b int) int { return a * b }\n"
GO_FIX = "package mathx\n\n// Add returns a plus b.\nfunc Add(a, b int) int { return a + b }\n"
GO_WEAK = (
    'package mathx\n\nimport "testing"\n\n'
    'func TestAdd(t *testing.T) {\n\tif Add(2, 0) != 2 {\n\t\tt.Fatal("add")\n\t}\n}\n'
)
GO_CATCHES = (
    'package mathx\n\nimport "testing"\n\n'
    "func TestSpiceAdds(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n"
    '\t\tt.Fatalf("Add(2, 3) = %d", got)\n\t}\n}\n'
)
GO_PASSES_BOTH = GO_WEAK.replace("TestAdd", "TestSpiceAddsZero")

RS_CARGO = '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n'
RS_BUG = "pub fn add(a: i64, b: i64) -> i64 {\n    a * b\n}\n"
RS_FIX = RS_BUG.replace("a * b", "a + b")
RS_WEAK = "use calc::add;\n\n#[test]\nfn adds() {\n    assert_eq!(add(2, 0), 2);\n}\n"
RS_MODULE = "#[cfg(test)]\nmod spice_catches_survivor {\n    use super::*;\n\n    #[test]\n"
RS_CATCHES = RS_MODULE + "    fn adds_two() {\n        assert_eq!(add(2, 3), 5);\n    }\n}\n"
RS_PASSES_BOTH = RS_MODULE + "    fn adds_zero() {\n        assert_eq!(add(5, 0), 5);\n    }\n}\n"

JAVA_POM = (Path(__file__).parent / "data" / "lang_java" / "project" / "pom.xml").read_text()
JAVA_BUG = "package demo;\n\npublic final class Calc {\n    private Calc() {}\n\n"
JAVA_BUG += "    public static int add(int a, int b) {\n        return a * b;\n    }\n\n"
JAVA_BUG += "    public static int mul(int a, int b) {\n        return a * b;\n    }\n}\n"
JAVA_FIX = JAVA_BUG.replace("a * b", "a + b", 1)
JAVA_HEAD = (
    "package demo;\n\nimport static org.junit.Assert.assertEquals;\n\nimport org.junit.Test;\n\n"
)
JAVA_WEAK = JAVA_HEAD + (
    "public class CalcTest {\n    @Test\n    public void adds() {\n"
    "        assertEquals(2, Calc.add(2, 0));\n    }\n}\n"
)
JAVA_CATCHES = JAVA_HEAD + (
    "public class SpiceCatchesSurvivorTest {\n    @Test\n    public void addsTwo() {\n"
    "        assertEquals(5, Calc.add(2, 3));\n    }\n}\n"
)
JAVA_MUL = JAVA_WEAK.replace("CalcTest", "MulTest").replace("add(2, 0)", "mul(1, 2)")
JAVA_PASSES_BOTH = JAVA_CATCHES.replace("5, Calc.add(2, 3)", "5, Calc.add(5, 0)")

JS_PACKAGE = json.dumps({"name": "calc", "private": True, "scripts": {"test": "node --test"}})
JS_BUG = "exports.add = (a, b) => a * b;\n"
JS_FIX = "exports.add = (a, b) => a + b;\n"
JS_HEAD = "const test = require('node:test');\nconst assert = require('node:assert');\n"
JS_HEAD += "const { add } = require('../lib/calc.js');\n\n"
JS_WEAK = JS_HEAD + "test('adds', () => assert.strictEqual(add(2, 0), 2));\n"
JS_CATCHES = JS_HEAD + "test('adds two', () => assert.strictEqual(add(2, 3), 5));\n"
JS_PASSES_BOTH = JS_HEAD + "test('adds zero', () => assert.strictEqual(add(5, 0), 5));\n"


CHANGES = dict.fromkeys(("go", "javascript", "rust", "java"), "`+ b` → `- b`")


def _sandbox(tmp_path: Path, language: str) -> Bubblewrap:
    if language == "go":
        return go_sandbox(tmp_path)
    if language == "javascript":
        return node_sandbox(tmp_path)
    if language == "java":
        return java_sandbox(tmp_path)
    try:
        machine_rust()
    except ToolchainMissing as exc:
        pytest.skip(str(exc))
    box = Bubblewrap()
    if why := box.problem(tmp_path):
        pytest.skip(f"bubblewrap cannot run here: {why}")
    return box


def _measure(tmp_path: Path, row: dict[str, Any], language: str, *tests: str) -> TestStrength:
    box = _sandbox(tmp_path, language)
    executor = Executor(tmp_path / "envs", box)
    job = lang_job(row, tmp_path / "repo", language)
    done = validate(job, executor, tmp_path / "scratch")
    assert done.validation.status == "valid", done.validation.detail
    row["FAIL_TO_PASS"], row["PASS_TO_PASS"] = json.dumps(done.fail_to_pass), json.dumps([])
    job = lang_job(row, tmp_path / "repo", language)
    with test_writer(*tests) as (writer, server):
        got = measure(job, executor, tmp_path / "s", StrengthConfig(budget_s=300), writer=writer)
        asked = json.dumps(server.requests)
    assert got.status == "measured", got.detail
    assert "the whole test" in asked  # the language-neutral prompt
    return got


@pytest.mark.parametrize(
    ("language", "files", "tests", "place", "fence"),
    [
        (
            "go",
            ({"go.mod": GO_MOD, "mathx/add.go": GO_BUG}, {"mathx/add.go": GO_FIX}),
            {"mathx/add_test.go": GO_WEAK},
            "mathx/spice_catches_survivor_test.go",
            "go",
        ),
        (
            "javascript",
            ({"package.json": JS_PACKAGE, "lib/calc.js": JS_BUG}, {"lib/calc.js": JS_FIX}),
            {"test/add.test.js": JS_WEAK},
            "test/spice-catches-survivor.test.js",
            "javascript",
        ),
        (
            "rust",
            ({"Cargo.toml": RS_CARGO, "src/lib.rs": RS_BUG}, {"src/lib.rs": RS_FIX}),
            {"tests/add.rs": RS_WEAK},
            "src/lib.rs",  # appended to the survivor's own file: its private items in reach
            "rust",
        ),
        pytest.param(
            "java",
            (
                {
                    "pom.xml": JAVA_POM,
                    "src/main/java/demo/Calc.java": JAVA_BUG,
                    # A test at the base: the install fetches Surefire's JUnit provider for it.
                    "src/test/java/demo/MulTest.java": JAVA_MUL,
                },
                {"src/main/java/demo/Calc.java": JAVA_FIX},
            ),
            {"src/test/java/demo/CalcTest.java": JAVA_WEAK},
            "src/test/java/demo/SpiceCatchesSurvivorTest.java",
            "java",
            marks=pytest.mark.heavy,  # a dozen Maven runs
        ),
    ],
)
def test_a_written_test_in_the_languages_own_place_catches_the_survivor(
    tmp_path: Path,
    language: str,
    files: tuple[dict[str, str], dict[str, str]],
    tests: dict[str, str],
    place: str,
    fence: str,
) -> None:
    base, fix = files
    row = small_project(tmp_path, base, fix, tests)
    # The first answer passes on both (no catch), the second catches `a - b`.
    passes_both, catches = {
        "go": (GO_PASSES_BOTH, GO_CATCHES),
        "javascript": (JS_PASSES_BOTH, JS_CATCHES),
        "rust": (RS_PASSES_BOTH, RS_CATCHES),
        "java": (JAVA_PASSES_BOTH, JAVA_CATCHES),
    }[language]
    got = _measure(tmp_path, row, language, passes_both, catches)
    caught = [m for m in got.survivors if m.catching_test is not None]
    assert [m.change for m in caught] == [CHANGES[language]], [m.change for m in got.survivors]
    (survivor,) = caught
    test = survivor.catching_test
    assert test is not None and test.code == catches and test.path == place
    assert test.fence == fence and "adds" in test.failure.lower()
    assert survivor.shown and not survivor.possibly_equivalent and got.headline == survivor
    assert f"```{fence}\n" + catches in catching_block(got, ())
    # Where the reviewer looks: the check run's summary holds the test, its note says so.
    output = check_output(got, shown_survivors(got), ())
    assert f"```{fence}\n" + catches in output.summary and place in output.summary
    (note,) = [a for a in output.annotations if a.start_line == survivor.line]
    assert "A test written for it passes on the fix and fails on this change" in note.message
    assert got.written_by == "openai/fake, catching_test v2"
    # Nothing written is left in the tree the strength run used.
    assert not (tmp_path / "s").exists() or list((tmp_path / "s").iterdir()) == []


def test_each_language_places_its_written_test_where_its_command_runs_it() -> None:
    langs = languages()
    java = "package com.acme.util;\n\npublic class Add {}\n"
    files = DictFiles({"core/src/main/java/com/acme/util/Add.java": java, "a/b.go": "package b\n"})
    at = written_place(langs["java"], files, "core/src/main/java/com/acme/util/Add.java", [])
    assert at is not None
    assert at.path == "core/src/test/java/com/acme/util/SpiceCatchesSurvivorTest.java"
    go = written_place(langs["go"], files, "a/b.go", [])
    assert go is not None and "package `b`" in go.kind
    rust = written_place(langs["rust"], files, "src/printer/json.rs", [])
    assert rust is not None and rust.appended and rust.path == "src/printer/json.rs"
    ts = written_place(langs["javascript"], files, "src/x.ts", ["test/clamp.spec.ts"])
    assert ts is not None and ts.path == "test/spice-catches-survivor.spec.ts"
    py = written_place(langs["python"], files, "calc.py", ["tests/unit/test_calc.py"])
    assert py is not None and py.path == "tests/unit/test_spice_catches_survivor.py"
    # A C test is built only once a build file names it: no place.
    assert written_place(langs["c"], files, "src/calc.c", ["tests/t.c"]) is None
