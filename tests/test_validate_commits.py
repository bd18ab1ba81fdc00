"""What validation reads at a commit: the version a project declares or its tags give, a
commit whose contents are missing (a one-line error, and a group built at a commit that has
them), and a build that needs an uninitialised submodule."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.validate_cli import spice_validate
from tests.validation_support import git, instance_of, sandbox_fixture  # noqa: F401


@pytest.mark.parametrize(
    ("path", "text", "version"),
    [
        ("pylint/__pkginfo__.py", "numversion = (2, 4, 4)\nversion = '2.4.4'\n", "2.4"),
        ("pylint/__pkginfo__.py", '__version__ = "2.15.0-dev0"\n', "2.15"),
        ("xarray/__init__.py", '__version__ = "2022.03.0"\n', "2022.03"),
        ("sympy/release.py", '__version__ = "1.12.dev"\n', "1.12"),
    ],
)
def test_the_version_is_read_where_projects_declare_it(
    tmp_path: Path, path: str, text: str, version: str
) -> None:
    from spice_engine.langs.python_versions import instance_version

    (tmp_path / path).parent.mkdir(parents=True)
    (tmp_path / path).write_text(text)
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "one")
    git(tmp_path, "tag", "v9.9.9")  # a declared version wins over the tags
    assert instance_version(tmp_path, "HEAD") == version


def test_a_tag_keeps_its_zero_padding(tmp_path: Path) -> None:
    from spice_engine.validate.gitwork import release_version

    git(tmp_path, "init", "-q")
    git(tmp_path, "commit", "-q", "--allow-empty", "-m", "one")
    git(tmp_path, "tag", "v2022.03.0")
    git(tmp_path, "tag", "v2022.3.1")  # a later release: compared as numbers
    git(tmp_path, "tag", "v2022.06.0rc1")
    assert release_version(tmp_path, "HEAD") == "2022.06"


def test_a_commit_whose_contents_are_missing_is_a_one_line_error(
    tmp_path: Path, sandbox: object
) -> None:
    from tests.fakes.sample_project import make_calc_repo

    repo = tmp_path / "calc"
    row = make_calc_repo(repo)
    blob = git(repo, "rev-parse", "HEAD:pyproject.toml").strip()  # no patch touches it
    (repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()  # a partial snapshot
    done, (got,) = spice_validate([row], repo, tmp_path)
    assert "Traceback" not in done.stderr
    record = got["spice"]["validation"]
    assert record["status"] == "error"
    assert "\n" not in record["detail"]
    assert "cannot be checked out" in record["detail"]
    assert "pyproject.toml" in record["detail"]


def test_a_group_builds_at_a_commit_that_can_be_checked_out(
    tmp_path: Path, sandbox: object
) -> None:
    """The environment is built at the newest base commit of the version, unless that one
    lacks contents: then the next, so only the instance of the broken commit fails."""
    from tests.fakes.sample_project import CALC_FIX, commit_later, make_calc_repo

    repo = tmp_path / "calc"
    first = make_calc_repo(repo)
    (repo / "data.txt").write_text("a large data file the snapshot lost\n")
    git(repo, "add", "data.txt")
    commit_later(repo, "data")
    later = instance_of(
        repo,
        "octo/calc",
        fix=CALC_FIX,
        test=(
            "tests/test_calc.py",
            "\n\ndef test_add2():\n    from calc import add\n    assert add(1, 1) == 2\n",
        ),
        problem="add() subtracts",
    ) | {"instance_id": "octo__calc-2"}
    blob = git(repo, "rev-parse", "HEAD:data.txt").strip()
    (repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    _, rows = spice_validate([first, later], repo, tmp_path)
    got = {r["instance_id"]: r for r in rows}
    assert got[first["instance_id"]]["spice"]["validation"]["status"] == "valid"
    assert got[first["instance_id"]]["environment_setup_commit"] == first["base_commit"]
    broken = got["octo__calc-2"]["spice"]["validation"]
    assert broken["status"] == "error" and "data.txt" in broken["detail"]


def test_a_build_that_needs_its_submodule_says_so_first(tmp_path: Path, sandbox: object) -> None:
    from tests.fakes.sample_project import make_calc_repo

    repo = tmp_path / "calc"
    make_calc_repo(repo)
    (repo / "setup.py").write_text(
        "import os\nfrom setuptools import setup\n\n"
        "if not os.listdir('helpers'):\n    raise SystemExit('helpers: the submodule is empty')\n"
        "setup()\n"
    )
    git(repo, "add", "setup.py")
    sha = git(repo, "rev-parse", "HEAD").strip()  # any commit id: a submodule's lives elsewhere
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{sha},helpers")
    git(repo, "commit", "-qm", "helpers as a submodule")
    (repo / "helpers").mkdir()  # as a clone leaves a submodule it did not initialise
    from tests.fakes.sample_project import CALC_FIX

    row = instance_of(
        repo,
        "octo/calc",
        fix=CALC_FIX,
        test=(
            "tests/test_calc.py",
            "\n\ndef test_add():\n    from calc import add\n    assert add(2, 3) == 5\n",
        ),
        problem="add() subtracts",
    )
    _, (got,) = spice_validate([row], repo, tmp_path)
    record = got["spice"]["validation"]
    assert record["status"] == "environment_failed", record
    first = record["detail"].splitlines()[0]
    assert first.startswith("missing_submodule: helpers ("), first
    assert "the submodule is empty" in record["detail"]
