"""How to build a repository's test environment at a commit, inferred from the repository.

Python: the newest version the project itself claims (trove classifiers, tox/CI envs) that
its `requires-python` allows and that was released before the commit. Dependencies: the
project with its test extras and test requirement files, resolved as the package index stood
on the commit's date, so an old commit gets the libraries it was written against.
"""

from __future__ import annotations

import configparser
import re
from pathlib import Path

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from pydantic import BaseModel, Field

from spice_engine.langs.python_runners import PYTEST, infer_runner, runner_named

# First release of each CPython minor version: a commit cannot have targeted a later one.
PYTHON_RELEASES = {
    "3.6": "2016-12-23",
    "3.7": "2018-06-27",
    "3.8": "2019-10-14",
    "3.9": "2020-10-05",
    "3.10": "2021-10-04",
    "3.11": "2022-10-24",
    "3.12": "2023-10-02",
    "3.13": "2024-10-07",
}
OLDEST_PYTHON = (3, 7)
"""The oldest Python environments are built for: editable installs need setuptools 64 or
later (PEP 660), and uv's byte compiler, both of which need 3.7."""
TEST_EXTRAS = ("test", "tests", "testing", "dev")
_TEST_REQUIREMENTS = re.compile(
    r"^(?:requirements?[-_.]?)?(?:test|tests|testing)(?:[-_.]?requirements?)?\.txt$", re.I
)
"""A test requirements file by what it is, in any spelling: `requirements-test.txt`,
`requirements_tests.txt`, `test-requirements.txt`, `requirements/testing.txt`, ..."""
REQUIREMENT_DIRS = ("", "requirements/", "reqs/")
_CLASSIFIER = re.compile(r"Programming Language :: Python :: (3\.\d+)\b")
_TOX_ENV = re.compile(r"\bpy3(\d{1,2})\b")
_REQUIRES = re.compile(r"""(?:python_requires|requires-python)\s*=\s*["']?([^"'\n]+)""")
TEST_CMD = "python -m pytest -rA"
EDITABLE_SETUPTOOLS = "64.0.0"
"""The first setuptools with PEP 660's `build_editable` (August 2022)."""


class Recipe(BaseModel):
    """Everything needed to rebuild the environment and rerun the tests by hand."""

    python: str
    extras: list[str] = Field(default_factory=list)
    requirement_files: list[str] = Field(default_factory=list)
    extra_packages: list[str] = Field(default_factory=list)
    """Installed besides the project (pytest when the project does not declare it)."""
    runner: str | None = None
    """The test runner, installed first, when the project does not declare one in what is
    installed: as of the commit's date, but no older than pytest 5.4 (envbuild.RUNNER_SINCE)."""
    resolve_before: str | None = None
    """Dependencies resolved as the index stood at this time (the base commit's date)."""
    env: dict[str, str] = Field(default_factory=dict)
    test_cmd: str = TEST_CMD
    """The test command as the harness's eval script writes it (before the test files)."""
    test_runner: str = PYTEST
    """How the tests are run (spice_engine.langs.python_runners)."""
    log_parser: str = "parse_log_pytest"
    """How their log is read: the SWE-bench parser the export names (runners.log_parser_for)."""
    source: str = "inferred"
    """`inferred` from the repository, or `swebench` when its published spec was used."""

    def install_cmds(self) -> list[str]:
        """The install as shell commands (for the record; the executor runs the same)."""
        target = "." + (f"[{','.join(self.extras)}]" if self.extras else "")
        dated = f" --exclude-newer {self.resolve_before}" if self.resolve_before else ""
        cmds = ["uv pip install setuptools wheel setuptools_scm"]
        reqs = "".join(f" -r {r}" for r in self.requirement_files)
        more = "".join(f" {p}" for p in self.extra_packages)
        cmds.append(f"uv pip install --no-build-isolation{dated} -e '{target}'{reqs}{more}")
        return cmds


def is_requirement_file(name: str) -> bool:
    """Whether a repository path names a test requirements file (top level, or in a
    `requirements/` folder)."""
    folder, _, base = name.rpartition("/")
    return (folder + "/" if folder else "") in REQUIREMENT_DIRS and bool(
        _TEST_REQUIREMENTS.match(base)
    )


def requirement_files(tree: Path) -> list[str]:
    """The tree's test requirements files, in a stable order."""
    found = []
    for folder in REQUIREMENT_DIRS:
        where = tree / folder
        if where.is_dir():
            found += [
                f"{folder}{p.name}"
                for p in sorted(where.iterdir())
                if p.is_file() and is_requirement_file(f"{folder}{p.name}")
            ]
    return found


def _read(tree: Path, name: str) -> str:
    path = tree / name
    try:
        return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
    except OSError:
        return ""


def _metadata_text(tree: Path) -> str:
    return "".join(_read(tree, n) for n in ("setup.py", "setup.cfg", "pyproject.toml"))


def _claimed(tree: Path) -> set[str]:
    """Python versions the project lists: classifiers first, else tox and CI envs."""
    claimed = set(_CLASSIFIER.findall(_metadata_text(tree)))
    if claimed:
        return claimed
    ci = _read(tree, "tox.ini") + "".join(
        p.read_text(encoding="utf-8", errors="replace")
        for p in sorted((tree / ".github" / "workflows").glob("*.y*ml"))
    )
    claimed = {f"3.{m}" for m in _TOX_ENV.findall(ci)}
    claimed |= set(re.findall(r"""["' \[]?(3\.\d{1,2})["',\]]""", ci))
    return claimed


def _requires(tree: Path) -> SpecifierSet:
    m = _REQUIRES.search(_metadata_text(tree))
    try:
        return SpecifierSet(m.group(1).strip().rstrip(",")) if m else SpecifierSet()
    except InvalidSpecifier:
        return SpecifierSet()


def choose_python(tree: Path, commit_date: str, available: list[str]) -> str | None:
    """The best Python among `available` for the tree; None when none fits.

    The newest the project claims among those released by the commit's date (else the newest
    released then); when every interpreter here is newer than the commit, the oldest: the
    nearest to the code's time, whose wheels of that era's pins are likeliest to exist.
    """
    key = lambda v: tuple(int(x) for x in v.split("."))  # noqa: E731
    usable = [v for v in available if key(v) >= OLDEST_PYTHON]
    allowed = [v for v in usable if _requires(tree).contains(f"{v}.0", prereleases=True)]
    if not allowed:
        return None
    released = [v for v in allowed if PYTHON_RELEASES.get(v, "9999") <= commit_date[:10]]
    if not released:
        return min(allowed, key=key)
    claimed = [v for v in released if v in _claimed(tree)]
    return max(claimed or released, key=key)


def build_requires(tree: Path) -> list[str]:
    """What `pyproject.toml` says the project builds with (`[build-system] requires`); builds
    run without isolation, so these go into the environment."""
    import tomllib

    from packaging.requirements import InvalidRequirement, Requirement

    try:
        data = tomllib.loads(_read(tree, "pyproject.toml"))
    except tomllib.TOMLDecodeError:
        return []
    found = (data.get("build-system") or {}).get("requires") or []
    kept = []
    for item in found if isinstance(found, list) else []:
        try:
            req = Requirement(str(item))
        except InvalidRequirement:
            continue
        if req.url is not None:  # named packages from the index only, never a path or URL
            continue
        if req.name.lower() == "setuptools" and not req.specifier.contains(EDITABLE_SETUPTOOLS):
            # A pin below the first setuptools that installs editable the PEP 660 way
            # (pylint's `~=62.6`) would leave the project uninstallable: the tools' own
            # date-bound setuptools builds it instead.
            continue
        kept.append(str(req))
    return kept


def declared_extras(tree: Path) -> list[str]:
    """Test extras the project declares (setup.cfg, pyproject, or setup.py's extras_require)."""
    text = _metadata_text(tree)
    found = []
    for extra in TEST_EXTRAS:
        if re.search(rf"""(^|[\s"'\[{{,]){extra}\s*["']?\s*[=:]""", text, re.MULTILINE):
            found.append(extra)
    cfg = configparser.ConfigParser(strict=False)
    try:
        cfg.read_string(_read(tree, "setup.cfg"))
        found += [e for e in cfg["options.extras_require"] if e in TEST_EXTRAS]
    except (configparser.Error, KeyError):
        pass
    return sorted(set(found))


def infer_recipe(tree: Path, commit_date: str, available: list[str], version: str) -> Recipe:
    """A recipe from the repository's own files; raises LookupError when no Python fits."""
    python = choose_python(tree, commit_date, available)
    if python is None:
        raise LookupError(f"no installed Python satisfies requires-python {_requires(tree)}")
    reqs = requirement_files(tree)
    declared = "pytest" in _metadata_text(tree) + "".join(_read(tree, r) for r in reqs)
    runner = runner_named(infer_runner(tree))
    own = runner.name != PYTEST  # the project's own runner: pytest is not installed for it
    return Recipe(
        python=python,
        extras=declared_extras(tree),
        requirement_files=reqs,
        # The runner; when the project declares pytest (or is pytest) this adds nothing.
        extra_packages=[] if own else ["pytest"],
        runner=None if declared or own else "pytest",
        test_runner=runner.name,
        log_parser=runner.log_parser,
        test_cmd=runner.shell([]),
        resolve_before=commit_date,
        env={"SETUPTOOLS_SCM_PRETEND_VERSION": f"{version}.0" if version else "0.0.0"},
    )
