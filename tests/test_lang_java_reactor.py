"""A Maven reactor with a module that cannot be built here: the install builds what the changes
need, leaves that module out when the tests can do without it (read from Maven's reactor
summary), the tests never select it, and the row says so."""

from __future__ import annotations

from pathlib import Path

import pytest

from spice_engine.langs.executor import Executor
from spice_engine.langs.java import JDKS, MAVEN, Java
from spice_engine.langs.java_reactor import FAILED, NEEDS_FAILED, left_out, summary
from spice_engine.runs.planner import plan_jobs
from spice_engine.runs.session import Job
from spice_engine.runs.validator import validate
from spice_engine.validate.bubblewrap import Bubblewrap
from spice_engine.validate.tree import checkout
from tests.lang_projects import DictFiles, project_instance, registry_problem

DATA = Path(__file__).parent / "data" / "lang_java_reactor"
PARENT = "<parent><groupId>g</groupId><artifactId>top</artifactId><version>1.0</version></parent>"
POMS = {
    "pom.xml": "<project><groupId>g</groupId><artifactId>top</artifactId>"
    "<version>1.0</version><name>Top Parent</name></project>",
    "core/pom.xml": f"<project>{PARENT}<artifactId>core</artifactId></project>",
    "native/pom.xml": f"<project xmlns='http://maven.apache.org/POM/4.0.0'>{PARENT}"
    "<artifactId>native</artifactId><name>${project.groupId}:${project.artifactId}</name>"
    "<developers><developer><name>Someone</name></developer></developers></project>",
    "app/pom.xml": f"<project>{PARENT}<artifactId>app</artifactId><version>2.0</version></project>",
}
# Maven 3.8.7's own lines (`-fae`; a module whose version differs from the reactor's is named
# with it; a module needing a failed one is skipped).
SUMMARY = (DATA / "install-summary.log").read_text()
CORE = ["core/src/test/java/a/CoreTest.java", "core/src/main/java/a/Core.java"]


def test_the_summary_names_each_module_and_how_its_build_ended() -> None:
    assert summary(SUMMARY) == {
        "Top Parent": "SUCCESS",
        "core": "SUCCESS",
        "g:native": "FAILURE",
        "app 2.0": "SKIPPED",
    }
    long = "[INFO] Reactor Summary:\n[INFO] A name so long it has no dots SUCCESS [01:02 min]\n"
    assert summary(long + "[INFO] " + "-" * 72) == {"A name so long it has no dots": "SUCCESS"}
    assert summary("[INFO] BUILD FAILURE\n") is None  # one module: Maven prints no summary
    assert summary(SUMMARY.split("[INFO] app")[0]) is None  # cut before its end
    odd = SUMMARY.replace("[INFO] core ...", "[INFO] core\n[INFO] core ...")
    assert summary(odd) is None  # a line no summary line reads like


def test_an_install_leaves_out_a_failed_module_only_when_the_changes_do_without_it() -> None:
    files = DictFiles(POMS)
    assert left_out(files, CORE, SUMMARY) == {"native": FAILED, "app": NEEDS_FAILED}
    # What the changes need is what failed: the environment failed, as before.
    assert left_out(files, ["native/src/main/java/N.java"], SUMMARY) is None
    assert left_out(files, ["app/src/test/java/AppTest.java"], SUMMARY) is None
    # No module named by a change (the top's own): every module is needed.
    assert left_out(files, ["pom.xml"], SUMMARY) is None
    # A label naming no module of the tree, or two of them: nothing is taken on trust.
    assert left_out(files, CORE, SUMMARY.replace("g:native", "g:other")) is None
    twins = DictFiles(
        POMS | {"lib/pom.xml": f"<project>{PARENT}<artifactId>core</artifactId></project>"}
    )
    assert left_out(twins, CORE, SUMMARY) is None


def test_the_tests_never_select_a_module_left_out() -> None:
    files = DictFiles(
        {**POMS, "core/src/test/java/a/CoreTest.java": "class CoreTest { @Test void f() {} }"}
    )
    java = Java()
    plan = java.plan(files, None).model_copy(update={"left_out": {"native": FAILED}})
    script = java.test_command(files, CORE, plan).argv[2]
    assert "-Dmaven.test.failure.ignore=true -pl 'core,!native' -am -amd >&2" in script
    whole = java.test_command(files, [*CORE, "pom.xml"], plan).argv[2]
    assert "-Dmaven.test.failure.ignore=true -pl '!native' >&2" in whole


def test_the_install_builds_the_modules_the_patches_change_and_their_neighbours(
    tmp_path: Path,
) -> None:
    """The tree the environment is built from has the test patch and the fix applied: the
    host's record says which modules they change."""
    instance = project_instance(DATA, tmp_path / "repo", "demo/reactor")
    with checkout(tmp_path / "repo", str(instance["base_commit"]), tmp_path) as tree:
        install = Java().plan(tree, None).install[0].argv[2]
        assert "-Dmaven.test.failure.ignore=true \\" in install  # nothing changed: all of it
        tree.apply(str(instance["test_patch"]))
        tree.apply(str(instance["patch"]))
        assert tree.changed() == [
            "core/src/main/java/demo/Calc.java",
            "core/src/test/java/demo/CalcTest.java",
        ]
        install = Java().plan(tree, None).install[0].argv[2]
        assert "-Dmaven.test.failure.ignore=true -pl core -am -amd \\" in install


def _maven_sandbox() -> Bubblewrap:
    box = Bubblewrap()
    if why := box.problem() or box.network_problem():
        pytest.skip(f"no sandbox: {why}")
    java17 = Path(JDKS[17].env["JAVA_HOME"])
    if not (java17 / "bin" / "javac").exists() or not Path(MAVEN).exists():
        pytest.skip(f"no JDK 17 at {java17} or no Maven at {MAVEN}")
    if why := registry_problem("repo.maven.apache.org"):
        pytest.skip(f"Maven Central cannot be reached (the install fetches the build): {why}")
    return box


@pytest.mark.heavy  # two Maven reactor builds: about half a minute; the tiny project stays
@pytest.mark.timeout(900)
def test_a_reactor_with_a_module_that_cannot_build_here_validates_without_it(
    tmp_path: Path,
) -> None:
    """`broken` needs an artifact no registry has (as a native-image module needs what cannot
    run here) and depends on `core`, so `-amd` would select it: the row is valid, `core`'s
    test fails to pass, and the detail says `broken` was left out."""
    box = _maven_sandbox()
    instance = project_instance(DATA, tmp_path / "repo", "demo/reactor")
    job = plan_jobs([instance], {"demo/reactor": tmp_path / "repo" / ".git"}, 600, reruns=0)
    assert isinstance(job["demo__reactor-1"], Job) and job["demo__reactor-1"].language == "java"
    done = validate(job["demo__reactor-1"], Executor(tmp_path / "envs", box), tmp_path / "work")
    assert done.validation.status == "valid", done.validation.detail
    test = "core/src/test/java/demo/CalcTest.java::demo.CalcTest#"
    assert done.fail_to_pass == [test + "absOfNegative"]
    assert done.pass_to_pass == [test + "absOfPositive"]
    assert done.validation.detail == f"left out: broken ({FAILED})"
    assert done.validation.left_out == {"broken": FAILED}
    assert "-pl 'core,!broken' -am -amd" in done.validation.test_command[-1]
