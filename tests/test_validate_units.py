"""Validation's pure parts: log parsing, the lists, flaky tests, Python choice, versions."""

from __future__ import annotations

import subprocess
from functools import partial
from pathlib import Path

from spice_engine.langs.python_envbuild import excerpt
from spice_engine.langs.python_recipe import choose_python, declared_extras, requirement_files
from spice_engine.validate.gitwork import release_version
from spice_engine.validate.outcomes import account, compute_lists, parse_pytest_log


def git_in(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@e", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


LOG = """\
============ short test summary info ============
PASSED tests/test_a.py::test_ok
PASSED tests/test_a.py::test_param[a b]
FAILED tests/test_a.py::test_fix - AssertionError: boom
ERROR tests/test_b.py::test_setup
SKIPPED [2] tests/test_a.py:10: no network
XFAIL tests/test_a.py::test_known
"""


def test_log_names_are_read_as_swebench_reads_them() -> None:
    got = parse_pytest_log(LOG)
    assert got == {
        "tests/test_a.py::test_ok": "PASSED",
        "tests/test_a.py::test_param[a": "PASSED",  # SWE-bench splits on whitespace too
        "tests/test_a.py::test_fix": "FAILED",
        "tests/test_b.py::test_setup": "ERROR",
        "tests/test_a.py::test_known": "XFAIL",
    }


def test_lists_and_flaky_tests() -> None:
    before = {"t::ok": "PASSED", "t::fix": "FAILED", "t::err": "ERROR", "t::flip": "FAILED"}
    after = {"t::ok": "PASSED", "t::fix": "PASSED", "t::err": "PASSED", "t::flip": "PASSED"}
    after |= {"t::new": "PASSED", "t::still": "FAILED"}
    lists = compute_lists(before, after, {"t::flip": "PASSED"}, {"t::flip": "PASSED"})
    assert lists.fail_to_pass == ["t::err", "t::fix", "t::new"]  # t::new: module did not import
    assert lists.pass_to_pass == ["t::ok"]
    assert lists.flaky == ["t::flip"]


def test_python_choice_follows_classifiers_requires_python_and_the_date(tmp_path: Path) -> None:
    (tmp_path / "setup.cfg").write_text(
        "[metadata]\nclassifiers =\n    Programming Language :: Python :: 3.7\n"
        "    Programming Language :: Python :: 3.8\n[options]\npython_requires = >=3.6\n"
        "[options.extras_require]\ntesting =\n    hypothesis\n"
    )
    have = ["3.6", "3.7", "3.8", "3.9", "3.12"]
    assert choose_python(tmp_path, "2020-01-01T00:00:00Z", have) == "3.8"
    assert choose_python(tmp_path, "2019-01-01T00:00:00Z", have) == "3.7"  # 3.8 not out yet
    assert choose_python(tmp_path, "2019-01-01T00:00:00Z", ["3.12"]) == "3.12"
    # A 2013 commit, every interpreter newer: the oldest that can install it editable.
    assert choose_python(tmp_path, "2013-08-17T00:00:00Z", have) == "3.7"
    assert declared_extras(tmp_path) == ["testing"]
    (tmp_path / "setup.cfg").write_text("[options]\npython_requires = >=3.13\n")
    assert choose_python(tmp_path, "2020-01-01T00:00:00Z", have) is None


def test_version_from_release_and_dev_tags(tmp_path: Path) -> None:
    git = partial(git_in, tmp_path)

    git("init", "-q")
    git("commit", "-q", "--allow-empty", "-m", "one")
    assert release_version(tmp_path, "HEAD") is None
    git("tag", "4.5.0")
    git("tag", "c-deadbeef")  # not a release
    git("commit", "-q", "--allow-empty", "-m", "two")
    assert release_version(tmp_path, "HEAD") == "4.5"
    git("tag", "4.6.0.dev0")
    assert release_version(tmp_path, "HEAD") == "4.6"


def test_test_requirement_files_are_found_by_what_they_are(tmp_path: Path) -> None:
    names = [
        "requirements_test.txt",
        "test-requirements.txt",
        "requirements-testing.txt",
        "requirements/tests.txt",
        "requirements-docs.txt",
        "dev-requirements.txt",
        "requirements.txt",
        "docs/requirements_test.txt",
    ]
    for name in names:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("pytest\n")
    assert requirement_files(tmp_path) == [
        "requirements-testing.txt",
        "requirements_test.txt",
        "test-requirements.txt",
        "requirements/tests.txt",
    ]


def test_a_failures_excerpt_keeps_the_failing_package_and_the_end() -> None:
    log = "error: Failed to build `numpy==1.16.0`\n" + "x" * 10_000 + "\nhint: the end"
    short = excerpt(log)
    assert short.startswith("error: Failed to build `numpy==1.16.0`")
    assert short.endswith("hint: the end") and len(short) < 4200


def test_every_test_seen_is_accounted_for_exactly_once() -> None:
    before = {"a": "FAILED", "b": "PASSED", "c": "FAILED", "d": "PASSED", "e": "SKIPPED"}
    before |= {"f": "PASSED", "g": "SKIPPED", "h": "PASSED"}
    after = {"a": "PASSED", "b": "PASSED", "c": "ERROR", "d": "FAILED", "e": "SKIPPED"}
    after |= {"g": "PASSED", "h": "PASSED", "new": "FAILED"}
    lists = compute_lists(before, after, after_again={"h": "FAILED"})
    done = account(before, after, lists)
    assert (lists.fail_to_pass, lists.pass_to_pass, lists.flaky) == (["a"], ["b"], ["h"])
    assert done.failing_both == ["c", "new"] and done.broken == ["d"]
    assert done.skipped == ["e"] and done.only_before == ["f"] and done.other == ["g"]
    assert sum(done.counts.values()) == len(set(before) | set(after))


def test_what_a_commit_requires_beyond_its_environment(tmp_path: Path) -> None:
    from spice_engine.langs.python_missing import missing

    shared, job = tmp_path / "shared", tmp_path / "job"
    for site, dists in ((shared, ["pluggy-1.0.0", "py-1.11.0", "attrs-19.1.0"]), (job, [])):
        for dist in dists:
            (site / f"{dist}.dist-info").mkdir(parents=True)
    project = job / "pytest-6.0.0.dist-info"
    project.mkdir(parents=True)
    (project / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: pytest\nVersion: 6.0.0\n"
        "Requires-Dist: pluggy<2.0,>=0.12\n"
        "Requires-Dist: more-itertools>=4.0.0\n"
        "Requires-Dist: attrs>=19.2.0\n"
        'Requires-Dist: colorama; sys_platform == "win32"\n'
        'Requires-Dist: importlib-metadata>=0.12; python_version < "3.8"\n'
        'Requires-Dist: xmlschema; extra == "testing"\n'
        'Requires-Dist: sphinx; extra == "docs"\n'
    )
    wanted = missing(job, job, shared, [project], ["testing"], "3.7")
    assert wanted == [
        "attrs>=19.2.0",
        "importlib-metadata>=0.12",
        "more-itertools>=4.0.0",
        "xmlschema",
    ]
    assert missing(job, job, shared, [project], [], "3.9") == [
        "attrs>=19.2.0",
        "more-itertools>=4.0.0",
    ]
    # Read through the door: a METADATA that is a link to a host file counts for nothing.
    secret = tmp_path / "host-metadata"
    secret.write_text((project / "METADATA").read_text())
    (project / "METADATA").unlink()
    (project / "METADATA").symlink_to(secret)
    assert missing(job, job, shared, [project], [], "3.9") == []


def test_version_is_the_one_the_package_declares_else_the_tags(tmp_path: Path) -> None:
    from spice_engine.langs.python_versions import instance_version

    git = partial(git_in, tmp_path)

    git("init", "-q")
    (tmp_path / "src" / "tool").mkdir(parents=True)
    (tmp_path / "src" / "tool" / "__init__.py").write_text("from ._version import version\n")
    git("add", "-A")
    git("commit", "-qm", "scm-versioned")
    git("tag", "2.4.0")
    assert instance_version(tmp_path, "HEAD") == "2.4"  # nothing declared: the tags
    (tmp_path / "pkg" / "packages" / "urllib3").mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("__version__ = '3.0.0+'\n")
    (tmp_path / "pkg" / "packages" / "urllib3" / "__init__.py").write_text("__version__ = '1.7'\n")
    git("add", "-A")
    git("commit", "-qm", "declared")
    assert instance_version(tmp_path, "HEAD") == "3.0"  # under development, not the last tag
    (tmp_path / "pkg" / "__init__.py").write_text("VERSION = (4, 1, 0, 'alpha', 0)\n")
    git("commit", "-qam", "a tuple")
    assert instance_version(tmp_path, "HEAD") == "4.1"


def test_build_tools_follow_the_date_but_can_install_editable(tmp_path: Path) -> None:
    from spice_engine.langs.python_envbuild import _tools_cutoff
    from spice_engine.langs.python_recipe import build_requires

    assert _tools_cutoff("2020-03-07T00:00:00Z") == ["--exclude-newer", "2022-09-01T00:00:00Z"]
    assert _tools_cutoff("2023-04-10T00:00:00Z") == ["--exclude-newer", "2023-04-10T00:00:00Z"]
    assert _tools_cutoff(None) == []
    from spice_engine.langs.python_envbuild import _runner_cutoff

    # pytest as of the date (not the newest into a 2021 environment), none before 5.4.
    assert _runner_cutoff("2021-05-01T00:00:00Z") == ["--exclude-newer", "2021-05-01T00:00:00Z"]
    assert _runner_cutoff("2018-05-01T00:00:00Z") == ["--exclude-newer", "2020-03-14T00:00:00Z"]
    (tmp_path / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["flit_core>=3.7", "evil @ file:///etc", "not a req!"]\n'
    )
    assert build_requires(tmp_path) == ["flit_core>=3.7"]
    (tmp_path / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools~=62.6", "wheel~=0.37.1"]\n'
    )
    assert build_requires(tmp_path) == ["wheel~=0.37.1"]  # no editable install with 62
    (tmp_path / "pyproject.toml").write_text("not toml [")
    assert build_requires(tmp_path) == []


def test_tests_are_chosen_by_the_ids_swebench_lists() -> None:
    """pytest 3 names a class's test `f.py::C::()::t`; SWE-bench lists `f.py::C::t`, and cuts an
    id at its first space: the plugins' selection finds each under every such name."""
    from types import SimpleNamespace

    from spice_engine.validate.plugin_support import named

    items = [
        SimpleNamespace(nodeid="t.py::C::()::test_m"),
        SimpleNamespace(nodeid="t.py::test_p[a b]"),
        SimpleNamespace(nodeid="t.py::test_p[a c]"),
        SimpleNamespace(nodeid="t.py::test_q"),
    ]
    found = named(items, ["t.py::C::test_m", "t.py::test_p[a", "t.py::missing"])
    assert [(t, [i.nodeid for i in group]) for t, group in found] == [
        ("t.py::C::test_m", ["t.py::C::()::test_m"]),
        ("t.py::test_p[a", ["t.py::test_p[a b]", "t.py::test_p[a c]"]),
    ]
