"""Issue 34, the sandbox must be a one-way door: a repository's code, sandboxed, must not reach
the host through what the host reads, writes or runs after the sandboxed command ended.

The door repository (tests/data/door_probe_repo, tests/door_probe.py) validates cleanly; its
attacks, one instance each, leave behind a git directory whose filters run a command (row 1),
the fixed file as a link to a host file (row 2), the plugin's result files as links to the
reader's environment or the worker's key (row 3), patches that make a link or touch `.git`
(row 4), and verdicts of their own in the plugin's files (row 5). Each is run through the CLI
with bubblewrap and with Docker, rows 1, 3 and 5 through the live App too, and the host is
checked afterwards: no command of the attacker's ran on it (its marker file is absent), no
host file was written, nothing was planted in the App's venv, no secret reached any output,
and the score is the honest one. Every run happens once (tests/door_probe_runs.py) and serves all
the tests that read it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from filelock import FileLock

from spice_engine.validate.bubblewrap import Bubblewrap
from spice_engine.validate.docker import DEFAULT_IMAGE, DockerSandbox
from tests.door_probe import (
    CHANNELS,
    FAIL_TO_PASS,
    HOST_TEXT,
    LIVE_MERGED,
    ROW1,
    ROW2,
    ROW3,
    ROW4,
    World,
)
from tests.door_probe_live import live
from tests.door_probe_runs import Run, cli
from tests.sandbox_attack import FILE_CANARY, leaked

# The first test to need a run waits for it (and for the environment it builds, or for
# another xdist worker doing so): longer than one test's usual limit.
pytestmark = pytest.mark.timeout(900)
ROOT = Path(__file__).resolve().parents[1]
SANDBOXES = [pytest.param("bwrap"), pytest.param("docker", marks=pytest.mark.docker)]
COMMANDS = {"validate": "validation", "test-strength": "test_strength"}


def cases(commands: tuple[str, ...], variants: tuple[str, ...]) -> list[object]:
    """(sandbox, command, variant) for each variant a run of the sandbox holds."""
    return [
        pytest.param(
            sandbox,
            command,
            variant,
            marks=[pytest.mark.docker] if sandbox == "docker" else [],
            id=f"{sandbox}-{command}-{variant}",
        )
        for sandbox in ("bwrap", "docker")
        for command in commands
        for variant in variants
        if variant in CHANNELS[f"{sandbox}-{command}"]
    ]


HONEST = "1 of 2 mutants of the fix survive — e.g. `+ → -` in `add()`"
"""The clean instance's comment: its weak test lets `a - b` through."""


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    """One repository and data directory for the module, shared by xdist's workers (their
    temporary directories share a parent): one environment is built for every run."""
    base = tmp_path_factory.getbasetemp()
    root = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "door"
    with FileLock(f"{root}.lock"):
        if not (root / "instances.json").exists():
            World.make(root)
    return World(root)


def _run(world: World, sandbox: str, command: str) -> Run:
    if sandbox == "docker":
        why = DockerSandbox(os.environ.get("SPICE_DOCKER_IMAGE", DEFAULT_IMAGE)).problem()
    else:
        box = Bubblewrap()
        why = box.problem() or box.network_problem()
    if why:
        pytest.skip(f"no {sandbox} here: {why}")
    return cli(world, f"{sandbox}-{command}")


def _ran(marker: str) -> str:
    """What of the attacker's the host ran, as whom and seeing how many secrets (the marker
    holds the environment it saw)."""
    lines = marker.splitlines()
    starts = [i for i, line in enumerate(lines[:-1]) if line.startswith("ran: ")]
    ran = [f"{lines[i][5:]} as uid {lines[i + 1]}" for i in starts]
    return f"the host ran the tree's git commands ({', '.join(ran)}), seeing {leaked(marker)}"


def _outcome(run: Run, variant: str, command: str) -> tuple[object, ...]:
    """What a variant's run found: the lists, or the score and the survivors."""
    result = run.result(variant, COMMANDS[command])
    if command == "validate":
        return result["status"], run.rows[variant]["FAIL_TO_PASS"], result["detail"][:300]
    survivors = [m["diff"] for m in result["mutants"] if m["verdict"] == "survived"]
    return result["status"], result["score"], survivors, result["detail"][:300]


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_the_clean_instance_validates_and_its_weak_test_lets_a_mutant_survive(
    world: World, sandbox: str
) -> None:
    validated = _run(world, sandbox, "validate")
    assert validated.result("clean")["status"] == "valid", validated.result("clean")
    assert json.loads(validated.rows["clean"]["FAIL_TO_PASS"]) == FAIL_TO_PASS
    measured = _run(world, sandbox, "test-strength").result("clean", "test_strength")
    assert measured["status"] == "measured" and measured["score"] == 0.5, measured
    [survivor] = [m for m in measured["mutants"] if m["verdict"] == "survived"]
    assert "+    return a - b" in survivor["diff"]


@pytest.mark.parametrize(("sandbox", "command", "variant"), cases(("validate",), ROW1))
def test_row1_the_trees_git_directory_never_runs_a_command_on_the_host(
    world: World, sandbox: str, command: str, variant: str
) -> None:
    """The tests point the tree's `.git` at a git directory of their own (through `/testbed`,
    through the job's scratch, as a directory): its filters and hooks must not run on the
    host, and the instance still validates."""
    run = _run(world, sandbox, command)
    assert run.host[variant]["marker"] is None, _ran(run.host[variant]["marker"])
    assert leaked(run.seen(variant)) == []
    assert run.result(variant)["status"] == "valid", run.result(variant)
    assert json.loads(run.rows[variant]["FAIL_TO_PASS"]) == FAIL_TO_PASS


@pytest.mark.parametrize(("sandbox", "command", "variant"), cases(("test-strength",), ROW2))
def test_row2_a_link_left_in_place_of_the_fixed_file_is_not_written_through(
    world: World, sandbox: str, command: str, variant: str
) -> None:
    """The tests replace the fixed file with a link (absolute, climbing `../`, to a file not
    there yet in the App's venv): the host's next write of a mutant must not follow it."""
    run = _run(world, sandbox, command)
    assert run.result(variant, "test_strength")["status"], run.rows[variant]  # it ended
    host = run.host[variant]
    assert not host["victim_written"] and host["victim"] == HOST_TEXT, host
    assert host["planted"] is None, host["planted"]


@pytest.mark.parametrize(("sandbox", "command", "variant"), cases(tuple(COMMANDS), ROW3))
def test_row3_result_files_made_links_to_secrets_show_none_of_them(
    world: World, sandbox: str, command: str, variant: str
) -> None:
    """The plugin's result files become links to `/proc/self/environ` or the worker's key:
    no secret of the process reading results may appear in a row or a log, and the results
    are those of the clean instance."""
    run = _run(world, sandbox, command)
    assert leaked(run.seen(variant)) == []
    assert _outcome(run, variant, command) == _outcome(run, "clean", command)


@pytest.mark.parametrize(("sandbox", "command", "variant"), cases(tuple(COMMANDS), ROW4))
def test_row4_a_patch_making_a_link_or_touching_git_is_refused(
    world: World, sandbox: str, command: str, variant: str
) -> None:
    """A fix or test patch that makes a link (to a host file holding a secret) or writes in
    `.git`: refused in one line, the host file neither read into any output nor written."""
    run = _run(world, sandbox, command)
    result = run.result(variant, COMMANDS[command])
    status, detail = str(result["status"]), str(result["detail"]).strip()
    assert status == "patch_does_not_apply" or "refus" in status, result
    assert detail and "\n" not in detail, detail
    named = {"test_link": "tests/host_file.txt", "fix_git_config": ".git/config"}
    named |= {"fix_attributes_git_config": ".git"}
    assert named.get(variant, "victim/__init__.py") in detail, detail
    host = run.host[variant]
    assert not host["victim_written"] and host["victim"] == FILE_CANARY, host
    assert host["marker"] is None
    assert FILE_CANARY not in run.seen(variant)


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_row5_verdicts_the_tests_write_do_not_change_the_score(world: World, sandbox: str) -> None:
    """The tests append `killed` for every mutant to the plugin's results, from their own
    process once the plugin is done and from a process they start: the weak test's survivor
    is still reported, the score still the honest one."""
    run = _run(world, sandbox, "test-strength")
    honest = run.result("clean", "test_strength")
    faked = run.result("fake_verdicts", "test_strength")
    assert faked["status"] == "measured", faked
    assert (faked["score"], faked["mutants_killed"]) == (honest["score"], 1), faked
    assert [m["diff"] for m in faked["mutants"] if m["verdict"] == "survived"] == [
        m["diff"] for m in honest["mutants"] if m["verdict"] == "survived"
    ]


@pytest.fixture(scope="module")
def live_run(world: World) -> Run:
    box = Bubblewrap()
    if why := box.problem() or box.network_problem():
        pytest.skip(f"no sandbox here: {why}")
    return live(world)


@pytest.mark.heavy  # a live merge of a pull request, then its validation: half a minute
@pytest.mark.parametrize("variant", LIVE_MERGED)
def test_live_row1_a_merged_pull_requests_git_directory_runs_nothing_on_the_worker(
    live_run: Run, variant: str
) -> None:
    host = live_run.host[variant]
    assert host["marker"] is None, _ran(host["marker"])
    validation = live_run.result(variant)
    assert validation["status"] == "valid", validation
    assert json.loads(validation["fields"]["FAIL_TO_PASS"]) == FAIL_TO_PASS
    assert leaked(live_run.said[variant]) == []


@pytest.mark.parametrize("variant", ["plugin_worker_key", "plugin_environ_words"])
def test_live_row3_result_files_made_links_show_no_secret_of_the_worker(
    live_run: Run, variant: str
) -> None:
    """Not in the comment, the App's store and logs, the prompts sent to the model; and the
    comment is the clean pull request's."""
    assert leaked(live_run.seen(variant)) == []
    comment = live_run.rows[variant]["comment"]
    assert HONEST in comment, comment


def test_live_row5_a_pull_requests_own_verdicts_do_not_reach_the_comment(
    live_run: Run,
) -> None:
    comment = live_run.rows["fake_verdicts"]["comment"]
    assert HONEST in comment and "mutants of the fix are caught" not in comment, comment
