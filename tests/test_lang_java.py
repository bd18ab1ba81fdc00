"""Java through the language seam: Surefire's reports read, a tree's plan and test command, and a
tiny Maven project validated end to end in the bubblewrap sandbox."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest

from spice_engine.langs.base import ToolchainMissing
from spice_engine.langs.executor import Executor
from spice_engine.langs.java import JAVAC, JDKS, MAVEN, Java
from spice_engine.langs.java_snapshots import OWN_VERSION, snapshot_parents, stand_ins
from spice_engine.langs.python_recipe import Recipe
from spice_engine.runs.session import Job
from spice_engine.runs.validator import validate
from spice_engine.validate.bubblewrap import Bubblewrap
from spice_engine.validate.outcomes import TestStatus
from tests.fakes.sample_project import git
from tests.lang_projects import DictFiles, committed_files

DATA = Path(__file__).parent / "data" / "lang_java"
CALC = "src/test/java/demo/CalcTest.java::demo.CalcTest#"
CHECK = "src/test/java/demo/slow/AbsCheck.java::demo.slow.AbsCheck#absOfMinusOne"


def test_outcomes_read_every_method_of_the_reports_on_the_channel() -> None:
    channel = (DATA / "surefire-channel.txt").read_text()
    assert Java().outcomes(channel, "") == {
        CALC + "absOfPositive": TestStatus.PASSED,
        CALC + "absOfNegative": TestStatus.FAILED,
        CHECK: TestStatus.FAILED,
    }


def test_outcomes_of_a_run_that_did_not_compile_are_empty() -> None:
    assert Java().outcomes("", "[ERROR] COMPILATION ERROR :") == {}


def test_outcomes_name_the_module_and_skip_a_cut_report() -> None:
    channel = (
        "\n@@spice-report ./lib/target/surefire-reports/TEST-a.BTest.xml\n"
        '<testsuite name="a.BTest"><testcase name="one" classname="a.BTest$Inner">'
        '<error/></testcase><testcase name="two" classname="a.BTest"><skipped/></testcase>'
        "</testsuite>"
        "\n@@spice-report ./target/surefire-reports/TEST-a.CTest.xml\n"
        '<testsuite name="a.CTest"><testcase name="cut'
    )
    assert Java().outcomes(channel, "") == {
        "lib/src/test/java/a/BTest.java::a.BTest$Inner#one": TestStatus.ERROR,
        "lib/src/test/java/a/BTest.java::a.BTest#two": TestStatus.SKIPPED,
    }


def test_detect_and_the_test_split() -> None:
    java = Java()
    pom = {"pom.xml": "<project/>", "src/main/java/A.java": "class A {}"}
    assert java.is_test_path("core/src/test/java/a/Helper.java")
    assert java.is_test_path("it/FooIT.java") and java.is_test_path("x/BarTests.java")
    assert not java.is_test_path("src/main/java/a/Foo.java")
    assert java.mutable("core/src/main/java/a/Foo.java")
    assert not java.mutable("src/main/resources/a.properties")
    assert not java.mutable("src/test/java/a/FooTest.java")

    assert java.detect(DictFiles(pom)) == 10
    assert java.detect(DictFiles({"build.gradle": "", "gradlew": ""})) == 9
    assert java.detect(DictFiles({"sub/pom.xml": ""})) == 5
    assert java.detect(DictFiles({"go.mod": ""})) == 0


def test_a_gradle_build_names_the_gradle_it_needs(tmp_path: Path) -> None:
    url = "distributionUrl=https\\://services.gradle.org/distributions/gradle-8.4-bin.zip\n"
    files = committed_files(
        tmp_path, {"build.gradle": "", "gradle/wrapper/gradle-wrapper.properties": url}
    )
    with pytest.raises(ToolchainMissing, match=r"Gradle 8\.4"):
        Java().plan(files, None)


def test_the_jdk_follows_the_level_the_poms_ask_for(tmp_path: Path) -> None:
    java = Java()
    old = committed_files(tmp_path / "old", {"pom.xml": "<java.version>1.6</java.version>"})
    new = committed_files(
        tmp_path / "new", {"pom.xml": "<maven.compiler.release>21</maven.compiler.release>"}
    )
    future = committed_files(tmp_path / "future", {"pom.xml": "<release>30</release>"})
    assert java.plan(old, None).toolchain == JDKS[17]
    assert java.plan(new, None).toolchain == JDKS[25]
    with pytest.raises(ToolchainMissing, match="Java 30"):
        java.plan(future, None)


def test_the_javac_wrapper_raises_levels_javac_17_refuses(tmp_path: Path) -> None:
    home = JDKS[17].env["JAVA_HOME"]
    if not Path(home, "bin", "javac").exists():
        pytest.skip(f"no JDK 17 at {home}")
    wrapper = tmp_path / "javac"
    wrapper.write_text(JAVAC)
    wrapper.chmod(0o755)
    (tmp_path / "A.java").write_text("class A {}\n")
    (tmp_path / "args").write_text('"-source"\n"1.6"\n"-target"\n"1.6"\n"-d"\n"a"\n"A.java"\n')
    env = {"JAVA_HOME": home, "TMPDIR": str(tmp_path), "PATH": "/usr/bin:/bin"}
    for args in (["--release", "6", "-d", "r", "A.java"], ["@args"]):
        done = subprocess.run([str(wrapper), *args], cwd=tmp_path, env=env, capture_output=True)
        assert done.returncode == 0, done.stderr


def test_a_snapshot_parent_outside_the_tree_gets_its_release_as_stand_in(tmp_path: Path) -> None:
    parent = (
        "<parent><groupId>g</groupId><artifactId>base</artifactId><version>{}</version></parent>"
    )
    files = committed_files(
        tmp_path,
        {
            "pom.xml": parent.format("2.14.0-SNAPSHOT") + "<artifactId>core</artifactId>",
            "sub/pom.xml": parent.format("1-SNAPSHOT").replace("base", "core"),
            "old/pom.xml": parent.format("2.13"),
        },
    )
    assert snapshot_parents(files) == [("g", "base", "2.14.0-SNAPSHOT")]
    assert "g:base:2.14.0:pom" in stand_ins(files, "/r", "/s.xml")
    # The release (a real one, its version inherited) is given the snapshot's version.
    released = DATA / "jackson-base-2.14.0.pom"
    args = ["awk", "-v", "rel=2.14.0", "-v", "snap=2.14.0-SNAPSHOT", OWN_VERSION, str(released)]
    pom = ElementTree.fromstring(subprocess.run(args, check=True, capture_output=True).stdout)
    ns = {"m": "http://maven.apache.org/POM/4.0.0"}
    assert pom.findtext("m:version", namespaces=ns) == "2.14.0-SNAPSHOT"
    assert pom.findtext("m:parent/m:version", namespaces=ns) == "2.14.0"


def test_the_command_runs_the_reactor_then_the_patch_classes_its_includes_left_out(
    tmp_path: Path,
) -> None:
    helper = "package a;\npublic abstract class BaseTest { @Test void x() {} }\n"
    files = committed_files(
        tmp_path,
        {
            "pom.xml": "<project/>",
            "core/src/test/java/a/FooTest.java": "class FooTest { @Test void f() {} }",
            "core/src/test/java/a/failing/Slow.java": "class Slow { public void testIt() {} }",
            "core/src/test/java/a/BaseTest.java": helper,
            "core/src/test/resources/data.json": "{}",
        },
    )
    java = Java()
    script = java.test_command(files, files.paths()[1:], java.plan(files, None)).argv[2]
    assert "mvn -o test -fae -Dmaven.test.failure.ignore=true >&2" in script
    assert "core/target/surefire-reports/TEST-a.FooTest.xml" in script
    assert "core/target/surefire-reports/TEST-a.failing.Slow.xml" in script
    assert "BaseTest.xml" not in script and "data.json" not in script
    assert "-pl core -am" in script


def test_a_multi_module_build_tests_the_changed_modules_and_their_dependents(
    tmp_path: Path,
) -> None:
    """Not the whole reactor: the modules owning the changed files, what they need built
    (`-am`) and what depends on them (`-amd`); the whole reactor when the top's own changes."""
    files = committed_files(
        tmp_path,
        {
            "pom.xml": "<project/>",
            "core/pom.xml": "<project/>",
            "core/src/main/java/a/Core.java": "class Core {}",
            "core/src/test/java/a/CoreTest.java": "class CoreTest { @Test void f() {} }",
            "native/pom.xml": "<project/>",
            "native/src/main/java/a/Native.java": "class Native {}",
        },
    )
    java = Java()
    plan = java.plan(files, None)
    changed = ["core/src/test/java/a/CoreTest.java", "core/src/main/java/a/Core.java"]
    script = java.test_command(files, changed, plan).argv[2]
    assert "mvn -o test -fae -Dmaven.test.failure.ignore=true -pl core -am -amd >&2" in script
    whole = java.test_command(files, [*changed, "pom.xml"], plan).argv[2]
    assert "mvn -o test -fae -Dmaven.test.failure.ignore=true >&2" in whole


def test_a_tiny_maven_project_validates_with_its_exact_fail_to_pass(tmp_path: Path) -> None:
    box = Bubblewrap()
    if why := box.problem() or box.network_problem():
        pytest.skip(f"no sandbox: {why}")
    java17 = Path(JDKS[17].env["JAVA_HOME"])
    if not (java17 / "bin" / "javac").exists() or not Path(MAVEN).exists():
        pytest.skip(f"no JDK 17 at {java17} or no Maven at {MAVEN}")
    # The tests' own process may not reach the network; a child process asks the registry.
    url = "https://repo.maven.apache.org/maven2/junit/junit/maven-metadata.xml"
    probe = f"import urllib.request as u; u.urlopen({url!r}, timeout=20)"
    if subprocess.run([sys.executable, "-c", probe], capture_output=True).returncode != 0:
        pytest.skip("Maven Central cannot be reached (the install fetches the build's plugins)")
    repo = tmp_path / "repo"
    subprocess.run(["cp", "-r", str(DATA / "project"), str(repo)], check=True)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    instance = {
        "instance_id": "demo__calc-1",
        "repo": "demo/calc",
        "base_commit": git(repo, "rev-parse", "HEAD").strip(),
        "test_patch": (DATA / "test.patch").read_text(),
        "patch": (DATA / "fix.patch").read_text(),
    }
    job = Job(
        instance=instance,
        git_dir=repo / ".git",
        version="",
        recipe=Recipe(python="3"),
        language="java",
        reruns=0,
        timeout_s=600,
    )
    executor = Executor(tmp_path / "envs", box)
    done = validate(job, executor, tmp_path / "scratch")
    assert done.validation.status == "valid", done.validation.detail
    assert sorted(done.fail_to_pass) == [CALC + "absOfNegative", CHECK]
    assert done.pass_to_pass == [CALC + "absOfPositive"]


def test_narrowed_command_runs_only_the_given_test_sources_classes(tmp_path: Path) -> None:
    """A wrong fix's run is given the test patch's sources alone (`judged_targets`): just their
    classes and those nested in them, by `-Dtest`; validation's targets (the fix's file among
    them) keep the module whole and the patch's classes its includes leave out."""
    files = committed_files(
        tmp_path,
        {
            "pom.xml": "<project/>",
            "core/pom.xml": "<project/>",
            "core/src/main/java/a/Foo.java": "class Foo {}",
            "core/src/test/java/a/FooTest.java": "class FooTest { @Test void f() {} }",
            "core/src/test/resources/data.json": "{}",
        },
    )
    java = Java()
    given = ["core/src/test/java/a/FooTest.java", "core/src/test/resources/data.json"]
    narrowed = java.judged_targets(given, ["core/src/main/java/a/Foo.java"])
    assert narrowed == ["core/src/test/java/a/FooTest.java"]
    plan = java.plan(files, None)
    script = java.test_command(files, narrowed, plan).argv[2]
    assert "-pl core -am -amd -Dtest='FooTest,FooTest$*'" in script
    assert "missing" not in script and "surefire-reports/TEST-*.xml" in script
    whole = java.test_command(files, java.targets(given, ["core/src/main/java/a/Foo.java"]), plan)
    assert "-Dtest='FooTest" not in whole.argv[2] and "missing=" in whole.argv[2]
    # a test patch with no test source: nothing to narrow to, validation's targets
    assert java.judged_targets(["core/src/test/resources/data.json"], ["core/pom.xml"]) == [
        "core/src/test/resources/data.json",
        "core/pom.xml",
    ]


OTHER_TEST = """package demo;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class OtherTest {
    @Test
    public void absOfZero() {
        assertEquals(0, Calc.abs(0));
    }
}
"""


@pytest.mark.heavy  # the install resolves Maven's plugins: about a minute
def test_a_wrong_fixs_run_leaves_out_the_modules_other_test_classes(tmp_path: Path) -> None:
    """Surefire itself picks the classes: the narrowed run reports the test patch's class and
    no other, where validation's run of the same tree reports the untouched class too."""
    from spice_engine.langs.capabilities import judged_targets
    from spice_engine.runs.validator import run_targets, test_files
    from tests.compiled_code_support import fixed_session, small_project

    if not (Path(JDKS[17].env["JAVA_HOME"]) / "bin" / "javac").exists() or not Path(MAVEN).exists():
        pytest.skip("no JDK 17 or no Maven on this machine")
    if why := Bubblewrap().network_problem():
        pytest.skip(f"the install's sandbox reaches no registry: {why}")
    project = DATA / "project"
    calc = "src/main/java/demo/Calc.java"
    base = {
        "pom.xml": (project / "pom.xml").read_text(),
        calc: (project / calc).read_text(),
        "src/test/java/demo/OtherTest.java": OTHER_TEST,
    }
    fixed = (project / calc).read_text().replace("return x;", "return x < 0 ? -x : x;")
    test = "src/test/java/demo/CalcTest.java"
    row = small_project(tmp_path, base, {calc: fixed}, {test: (project / test).read_text()})
    with fixed_session(tmp_path, row, "java") as check:
        runner = check.runner
        job = runner.session.job
        assert runner.targets == judged_targets(
            runner.session.language, test_files(job.test_patch), test_files(job.patch)
        )
        narrowed = runner.outcomes([CALC + "absOfPositive"], whole_files=True).outcomes
        whole = runner.session.run("validation's", run_targets(job), 600).outcomes
    assert set(narrowed) == {CALC + "absOfPositive"}, narrowed
    other = "src/test/java/demo/OtherTest.java::demo.OtherTest#absOfZero"
    assert set(whole) == {CALC + "absOfPositive", other}, whole
