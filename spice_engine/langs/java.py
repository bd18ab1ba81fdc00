"""Java: Maven projects, Surefire's XML reports, the machine's JDK 17 or 25 and Maven 3.8.

Gradle builds are refused (ToolchainMissing): no Gradle distribution can be fetched here.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from pathlib import Path

from spice_engine.langs import (
    java_code,
    java_received,
    java_reports,
    java_trace,
    line_probes,
    written_tests,
)
from spice_engine.langs.base import (
    ENV,
    JOB,
    Files,
    Phase,
    Plan,
    Toolchain,
    ToolchainMissing,
    with_fix_files,
)
from spice_engine.langs.java_reactor import left_out, reactor_part
from spice_engine.langs.java_reports import read_reports
from spice_engine.langs.java_snapshots import stand_ins
from spice_engine.langs.manifests import digests, named
from spice_engine.validate.outcomes import Outcomes

JDKS = {
    17: Toolchain(
        name="jdk17",
        folders=(Path("/etc/java-17-openjdk"), Path("/etc/maven")),
        path=("/usr/lib/jvm/java-17-openjdk-amd64/bin",),
        env={"JAVA_HOME": "/usr/lib/jvm/java-17-openjdk-amd64"},
    ),
    25: Toolchain(
        name="temurin25",
        folders=(Path("/etc/maven"),),
        path=("/usr/lib/jvm/temurin-25-jdk-amd64/bin",),
        env={"JAVA_HOME": "/usr/lib/jvm/temurin-25-jdk-amd64"},
    ),
}
MAVEN = "/usr/share/maven/bin/mvn"
REPO = f"{ENV}/m2"
MAVEN_CENTRAL = ("repo.maven.apache.org:443", "repo1.maven.org:443")
"""Maven Central under both its names: what the install may reach (a pom's own repositories
elsewhere are refused)."""
REPORT = "@@spice-report "
"""Starts the channel line naming the Surefire report that follows it."""
# A pom's Java level: `<maven.compiler.release>21</...>`, `<source>1.8</source>`, `<java.version>`.
_LEVEL = re.compile(
    r"<((?:[\w.-]*\.)?(?:release|source|target)|[\w.-]*(?:java|jdk)[.-]?version)>"
    r"\s*(?:1\.)?(\d{1,2})\s*</\1>",
    re.I,
)
# Drops a report's `<properties>` block (the JVM's system properties, kilobytes a class, before
# its first testcase): the channel keeps what names and judges the tests.
_NO_PROPERTIES = (
    "/<testcase/ { seen = 1 } !seen && /^[ \\t]*<properties>[ \\t]*$/ { skip = 1 } "
    "!skip { print } !seen && /^[ \\t]*<\\/properties>[ \\t]*$/ { skip = 0 }"
)
# Reports of an earlier run (the before-run, in the same tree) must not pass for this one's.
_CLEARED = "\nfind . -path '*/target/surefire-reports' -type d -prune -exec rm -rf {} +"
# The reports, each after a line naming it, printed to the channel once Maven has ended.
_PRINTED = f"""find . -path '*/target/surefire-reports/TEST-*.xml' | sort | while read -r f; do
  printf '\\n{REPORT}%s\\n' "$f"; awk {shlex.quote(_NO_PROPERTIES)} "$f"
done
"""
_GRADLE = re.compile(r"gradle-([\d.]+(?:-\w+)?)-(?:bin|all)\.zip")
_TEST_CLASS = re.compile(
    r"@Test\b|@ParameterizedTest|@RepeatedTest|@TestFactory|\bvoid\s+test\w*\s*\("
)
# Plugins that check, sign, document or package, none of which a test run needs, and several
# of which break on a newer JDK than the project's (old javadoc, animal-sniffer, enforcer, bnd).
SKIPS = (
    "-Dmaven.javadoc.skip=true",
    "-Dmaven.source.skip=true",
    "-Dgpg.skip=true",
    "-Denforcer.skip=true",
    "-Danimal.sniffer.skip=true",
    "-Djacoco.skip=true",
    "-Dcheckstyle.skip=true",
    "-Dspotbugs.skip=true",
    "-Dfindbugs.skip=true",
    "-Dpmd.skip=true",
    "-Dcpd.skip=true",
    "-Drat.skip=true",
    "-Dlicense.skip=true",
    "-Dspotless.check.skip=true",
    "-Dspotless.apply.skip=true",
    "-Djapicmp.skip=true",
    "-Drevapi.skip=true",
    "-Dforbiddenapis.skip=true",
    "-Dbnd.skip=true",
    "-Dmaven.site.skip=true",
    "-DskipTests=false",
    "-Dsurefire.rerunFailingTestsCount=0",
)
# javac 17 refuses `-source`/`-target`/`--release` below 7 (25 below 8) and old projects ask for 1.5 or
# 1.6 wherever they like (a property of a parent pom, a literal in the plugin's
# configuration): the compiler plugin runs this instead of javac (its fork mode), and it
# raises any level below 8 to 8, in the arguments and in the @argfile the plugin writes.
JAVAC = r"""#!/bin/sh
raise='{ v=$0; gsub(/"/, "", v); if (p ~ /^--?(source|target|release)$/ && v ~ /^(1\.)?[0-7]$/) print "8"; else print; p=v }'
first=1 prev= n=0
for a do
  if [ $first = 1 ]; then set --; first=0; fi
  n=$((n+1))
  case "$prev" in -source|-target|--source|--target|--release) case "$a" in 1.[0-7]|[0-7]) a=8;; esac;; esac
  case "$a" in @*) f="$TMPDIR/javac-args.$$.$n"; awk "$raise" "${a#@}" > "$f"; a="@$f";; esac
  set -- "$@" "$a"
  prev=$a
done
exec "$JAVA_HOME/bin/javac" "$@"
"""
# `mvn`: the machine's Maven with the shared repository, the wrapper above and the skips; the
# long parts come through the environment so that a failed command reads short.
PRELUDE = f"""set -u
mkdir -p {JOB}/bin && printf '%s' "$SPICE_JAVAC" > {JOB}/bin/javac && chmod +x {JOB}/bin/javac
mvn() {{ {MAVEN} $SPICE_MAVEN_FLAGS "$@"; }}
"""
FLAGS = (
    "-B",
    "-ntp",
    f"-Dmaven.repo.local={REPO}",
    "-Dmaven.compiler.fork=true",
    f"-Dmaven.compiler.executable={JOB}/bin/javac",
    *SKIPS,
)
# Maven reads no proxy from the environment: its settings get the index proxy the sandbox
# gives the install as HTTPS_PROXY (http://host:port).
SETTINGS = f"""hp=${{HTTPS_PROXY:-}}; hp=${{hp#*://}}; hp=${{hp%%/*}}
cat > {JOB}/settings.xml <<SPICE_SETTINGS
<settings><proxies>
<proxy><id>https</id><active>true</active><protocol>https</protocol><host>${{hp%:*}}</host><port>${{hp##*:}}</port></proxy>
<proxy><id>http</id><active>true</active><protocol>http</protocol><host>${{hp%:*}}</host><port>${{hp##*:}}</port></proxy>
</proxies></settings>
SPICE_SETTINGS
"""


def resolve(reactor: str) -> str:
    """Resolves every plugin and dependency of the build up to the test phase, Surefire's
    provider too (it is resolved only when a test class is found): each class runs with no
    method. `-fae`: a module that cannot be built here stops only what depends on it."""
    return f"""mvn -s {JOB}/settings.xml test -fae -Dmaven.test.failure.ignore=true {reactor}\\
  -Dtest='*#spiceResolvesOnly' -DfailIfNoTests=false -Dsurefire.failIfNoSpecifiedTests=false
"""


def java_level(files: Files) -> int:
    """The highest Java level the tree's poms name (8 when they name none)."""
    levels = [
        int(m.group(2))
        for p in named(files, "pom.xml")
        for m in _LEVEL.finditer(files.text(p) or "")
    ]
    return max([8, *levels])


def _test_source(path: str) -> bool:
    return "/src/test/java/" in f"/{path}" and path.endswith(".java")


def test_classes(files: Files, test_files: list[str]) -> dict[str, str]:
    """Fully qualified name -> module folder ("" the top) of each test class the patch touches."""
    found: dict[str, str] = {}
    for path in test_files:
        head, sep, rest = f"/{path}".partition("/src/test/java/")
        if not sep or not rest.endswith(".java") or not _TEST_CLASS.search(files.text(path) or ""):
            continue
        name = posixpath.basename(rest)[: -len(".java")]
        if re.search(rf"\babstract\s+class\s+{re.escape(name)}\b", files.text(path) or ""):
            continue
        found[rest[: -len(".java")].replace("/", ".")] = head.strip("/")
    return found


class Java:
    call_tracer = staticmethod(java_trace.traced)
    """Its functions' calls written down (spice_engine.langs.capabilities.CallTraces)."""
    call_callers = staticmethod(java_trace.callers)
    received_values = staticmethod(java_received.received)
    """What a test file's calls got back (spice_engine.langs.capabilities.ReceivedValues)."""

    name = "java"
    compiled_to = "bytecode"
    side_by_side_runs = True
    """Maven compiles a module again whenever one of its sources changed: a second tree costs
    the run after the fix nothing the first tree would have spared it."""

    def detect(self, files: Files) -> int:
        paths = set(files.paths())
        if "pom.xml" in paths:
            return 10
        gradle = {"build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts"}
        if gradle & paths:
            return 9 if "gradlew" in paths else 7
        return 5 if named(files, "pom.xml", "build.gradle", "build.gradle.kts") else 0

    def is_test_path(self, path: str) -> bool:
        name = posixpath.basename(path)
        return "/src/test/" in f"/{path}" or name.endswith(
            ("Test.java", "Tests.java", "IT.java", "TestCase.java")
        )

    def mutable(self, path: str) -> bool:
        return path.endswith(".java") and "/src/main/" in f"/{path}" and not self.is_test_path(path)

    def grammar(self, path: str) -> str | None:
        return "java" if path.endswith(".java") else None

    def written_test(
        self, files: Files, path: str, test_files: list[str]
    ) -> written_tests.WrittenPlace | None:
        return written_tests.java_place(files, path)

    def plan(self, files: Files, date: str | None) -> Plan:
        # Maven resolves the versions the poms pin, whatever the date: no date to apply.
        if "pom.xml" not in files.paths():
            wrapper = files.text("gradle/wrapper/gradle-wrapper.properties") or ""
            found = _GRADLE.search(wrapper)
            version = f"Gradle {found.group(1)}" if found else "Gradle"
            raise ToolchainMissing(
                f"the build needs {version} (a Gradle build, no pom.xml at the top); this "
                "machine has no Gradle and cannot fetch its distribution"
            )
        level = java_level(files)
        jdk = next((v for v in sorted(JDKS) if v >= level), None)
        if jdk is None:
            raise ToolchainMissing(f"the poms ask for Java {level}; this machine has JDK 17 and 25")
        # The modules the changes need and what depends on them, as the tests will run them.
        reactor = reactor_part(files, files.changed(), [])
        install = PRELUDE + SETTINGS + stand_ins(files, REPO, f"{JOB}/settings.xml")
        install += resolve(reactor)
        config = [p for p in files.paths() if p.startswith(".mvn/") and not p.endswith(".jar")]
        return Plan(
            language=self.name,
            toolchain=JDKS[jdk],
            key=digests(files, [*named(files, "pom.xml"), *config]),
            install=(Phase(argv=("sh", "-ec", install), network=True),),
            env={
                "MAVEN_OPTS": f"-Xmx1g -Duser.home={JOB}/home",
                "SPICE_MAVEN_FLAGS": " ".join(FLAGS),
                "SPICE_JAVAC": JAVAC,
            },
            registries=MAVEN_CENTRAL,
        )

    def partly_installed(self, plan: Plan, files: Files, log: str) -> Plan | None:
        """The plan without the modules the install could not build, when the changes' own
        modules and what they need were built (spice_engine.langs.java_reactor)."""
        found = left_out(files, files.changed(), log)
        return None if found is None else plan.model_copy(update={"left_out": found})

    def targets(self, test_files: list[str], fix_files: list[str]) -> list[str]:
        return with_fix_files(test_files, fix_files)

    def judged_targets(self, test_files: list[str], fix_files: list[str]) -> list[str]:
        """The test patch's test sources alone: `test_command` then runs just their classes
        (jackson-core's whole module took 24 s of a mutant's 35, its judged classes 1)."""
        return [p for p in test_files if _test_source(p)] or self.targets(test_files, fix_files)

    def test_command(self, files: Files, test_files: list[str], plan: Plan) -> Phase:
        """The tests of the modules the changes touch and of what depends on them (the whole
        reactor when the top's own files change; published lists name every class of a module
        whose tests did not compile before the fix), never a module the install left out, then
        the patch's classes the pom's own includes left out (a `failing/` folder it excludes, a
        name no pattern matches), by name.

        The results are Surefire's XML reports, printed to the channel after Maven ends, Maven's
        console going to the log. The reports are files the tests could overwrite, as they could
        print anything to Maven's console: neither is beyond the reach of the code under test,
        and the XML is the only one naming every method that passed."""
        classes = test_classes(files, test_files)
        if classes and all(_test_source(p) for p in test_files):
            return self._classes_command(files, test_files, plan, classes)
        checks = "".join(
            f"[ -f {shlex.quote(posixpath.join(module, 'target/surefire-reports', f'TEST-{fq}.xml'))} ] "
            f'|| missing="$missing,{fq.rsplit(".", 1)[-1]}"\n'
            for fq, module in sorted(classes.items())
        )
        reactor = reactor_part(files, test_files, list(plan.left_out))
        modules = sorted({m for m in classes.values() if m and m not in plan.left_out})
        select = (
            f"-pl {shlex.quote(','.join(modules))} -am "
            if modules and "" not in classes.values()
            else ""
        )
        script = f"""{PRELUDE}{_CLEARED}
# Offline, Maven 3.8 only reads the shared repository, which is read-only here: it writes no
# tracking file for what the install resolved.
mvn -o test -fae -Dmaven.test.failure.ignore=true {reactor}>&2
missing=
{checks}if [ -n "$missing" ]; then
  mvn -o test -fae -Dmaven.test.failure.ignore=true {select}-Dtest="${{missing#,}}" \\
    -DfailIfNoTests=false -Dsurefire.failIfNoSpecifiedTests=false >&2
fi
{_PRINTED}"""
        return Phase(argv=("sh", "-c", script), channel=True)

    def _classes_command(
        self, files: Files, test_files: list[str], plan: Plan, classes: dict[str, str]
    ) -> Phase:
        """Given test sources alone (a wrong fix's run, `judged_targets`): their modules, what
        they need built and what depends on them, running only their classes and the classes
        nested in them (`Outer$Inner`, JUnit 5's `@Nested`), by name; read as `test_command`'s."""
        reactor = reactor_part(files, test_files, list(plan.left_out))
        names = sorted({fq.rsplit(".", 1)[-1] for fq in classes})
        chosen = ",".join(f"{n},{n}$*" for n in names)
        script = f"""{PRELUDE}{_CLEARED}
mvn -o test -fae -Dmaven.test.failure.ignore=true {reactor}-Dtest={shlex.quote(chosen)} \\
  -DfailIfNoTests=false -Dsurefire.failIfNoSpecifiedTests=false >&2
{_PRINTED}"""
        return Phase(argv=("sh", "-c", script), channel=True)

    def code_command(self, files: Files, path: str, plan: Plan) -> Phase | None:
        return java_code.code_command(files, path, plan, PRELUDE)

    def line_probe(self, path: str, source: str, at: int) -> str | None:
        return line_probes.probe(self.grammar(path), source, at)

    def code_misses(self, source: str, line: int) -> str | None:
        return None  # a class file holds all its source compiles to (constants included)

    def outcomes(self, channel: str, log: str, plan: Plan | None = None) -> Outcomes:
        """`<module>/src/test/java/<Outer>.java::<class>#<method>` for each test reported."""
        return read_reports(channel, REPORT)

    def failure_texts(self, channel: str, log: str, plan: Plan | None = None) -> dict[str, str]:
        return java_reports.failure_texts(channel, REPORT)
