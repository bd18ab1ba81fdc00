"""Java's differential run judged at the tests' own level (spice_engine.strength.traced_runs,
spice_engine.langs.java_received), with Maven in the real sandbox: a survivor whose function
returns another object, while every value the pull request's test got back is the fix's, is
held; one whose difference reaches a value the test got back is shown."""

from __future__ import annotations

from pathlib import Path

import pytest

from spice_engine.langs.executor import Executor
from spice_engine.strength.traced import RECEIVED_ALIKE
from tests.compiled_code_support import small_project, validated_and_measured
from tests.lang_projects import java_sandbox
from tests.test_strength_catching_langs import JAVA_HEAD, JAVA_MUL, JAVA_POM

BASE = "package demo;\n\npublic final class Names {\n    private Names() {}\n}\n"
FIX = """package demo;

public final class Names {
    private Names() {}

    static final class Holder {
        final String name;
        final Holder inner;

        Holder(String name, Holder inner) {
            this.name = name;
            this.inner = inner;
        }

        String name() {
            return inner != null ? inner.name() : name;
        }
    }

    static Holder holder(String s) {
        boolean wrap = !s.isEmpty();
        Holder h = new Holder(s.trim(), null);
        wrap = false;
        if (wrap) {
            h = new Holder(h.name, h);
        }
        return h;
    }

    public static String clean(String s) {
        return holder(s).name();
    }

    public static String label(String s) {
        return "[" + s.trim() + "]";
    }
}
"""
TEST = JAVA_HEAD.replace(
    "assertEquals;", "assertEquals;\nimport static org.junit.Assert.assertNotNull;"
)
TEST += """public class NamesTest {
    @Test
    public void cleans() {
        assertEquals("a", Names.clean(" a "));
        assertNotNull(Names.label(" b "));
    }
}
"""


@pytest.mark.heavy  # Maven's runs: validation, the mutants, the traced runs
def test_a_difference_no_test_received_is_held_and_one_received_is_shown(tmp_path: Path) -> None:
    base = {"pom.xml": JAVA_POM, "src/main/java/demo/Names.java": BASE}
    base["src/test/java/demo/MulTest.java"] = JAVA_MUL.replace("Calc.mul(1, 2)", "2")
    row = small_project(
        tmp_path,
        base,
        {"src/main/java/demo/Names.java": FIX},
        {"src/test/java/demo/NamesTest.java": TEST},
    )
    executor = Executor(tmp_path / "envs", java_sandbox(tmp_path))
    got = validated_and_measured(tmp_path, row, "java", executor, budget_s=600)
    by_change = {m.change: m for m in got.survivors}
    # `wrap = false;` left out: `holder` returns a Holder wrapped twice; `clean` gives "a".
    unwrapped = by_change.get("`wrap = false;` removed")
    assert unwrapped is not None, sorted(by_change)
    assert not unwrapped.shown and "got back" in unwrapped.unconfirmed, unwrapped
    assert RECEIVED_ALIKE.split("{")[0] in unwrapped.unconfirmed
    # `s.trim()` → `s` in `label`: the test got "[ b ]", not "[b]", and checks only non-null.
    untrimmed = [m for m in got.survivors if m.function == "label" and "trim" in m.change]
    assert untrimmed and untrimmed[0].shown, sorted(by_change)
    assert untrimmed[0].difference == "tests", untrimmed[0]
