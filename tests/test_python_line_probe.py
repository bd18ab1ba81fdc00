"""Python's line probe, with real interpreters: the probed module compiles on each Python this
machine has, every line keeps its number, and a call fails exactly when the probed code runs
(spice_engine.langs.python_line_probe); code run at import gets no probe."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from spice_engine.langs.python_interpreters import find_pythons
from spice_engine.langs.python_line_probe import MARK, probe

MODULE = '''"""A module whose `pick(n)` runs each marked place only for some n."""
LIMIT = 3


class Box:
    size = 2

    def pick(self, n, default=LIMIT):
        if n < 0:
            return -1
        elif n > 5 and \\
                n < 9:
            return 9
        for i in range(n if n == 4 else 0): pass
        with open(__file__) as f, open(__file__) as g:
            x = 1; y = n + 100
        if n == 3: return y
        while n > 10:
            n -= 1
        try:
            pass
        except ValueError:
            z = "é" + 1
        return n
'''
PLACES: dict[str, tuple[int, int | None]] = {
    # token: the n for which its code runs, and one for which it does not
    "return -1": (-1, 0),
    "if n < 0": (-1, None),  # the whole statement (a guard removed): run by every call
    "elif n": (6, -1),
    "n > 5": (6, -1),  # an elif's condition: evaluated whenever the first branch is not taken
    "n < 9": (6, -1),
    "range(n": (4, -1),
    "open(__file__) as f": (1, -1),
    "n + 100": (1, -1),
    "return y": (3, 1),
    "n > 10": (1, -1),
    "n -= 1": (11, 1),
    "return n\n": (1, -1),
}


def _pythons() -> list[str]:
    found = {sys.executable}
    found |= {str(p) for p in find_pythons().values()}
    return sorted(found)


def _at(source: str, token: str) -> int:
    return source.encode().index(token.encode())


def _calls(python: str, folder: Path, module: str, args: list[int]) -> list[bool]:
    """Whether `Box().pick(n)` raised the probe's error, for each n."""
    (folder / "probed.py").write_text(module)
    script = (
        "import sys, probed\n"
        "for n in map(int, sys.argv[1:]):\n"
        "    try:\n        probed.Box().pick(n)\n        print('ran')\n"
        f"    except AssertionError as e:\n        print('probe' if str(e) == {MARK!r} else 'other')\n"
    )
    done = subprocess.run(
        [python, "-c", script, *map(str, args)],
        cwd=folder,
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONDONTWRITEBYTECODE": "1", "PATH": "/usr/bin:/bin"},
    )
    return [line == "probe" for line in done.stdout.split()]


@pytest.mark.parametrize("python", _pythons())
def test_a_probed_module_fails_only_where_its_line_runs(python: str, tmp_path: Path) -> None:
    for token, (runs, skips) in PLACES.items():
        probed = probe(MODULE, _at(MODULE, token))
        assert probed is not None, token
        assert probed.count("\n") == MODULE.count("\n"), token
        ns = [runs] if skips is None else [runs, skips]
        assert _calls(python, tmp_path, probed, ns) == [True, False][: len(ns)], token


def test_code_run_at_import_or_holding_nothing_alone_gets_no_probe() -> None:
    for token in (
        "LIMIT = 3",
        "size = 2",
        "default=LIMIT",
        "try:",
        "open(__file__) as g",
        '"A module',
    ):
        assert probe(MODULE, _at(MODULE, token)) is None, token


def test_source_of_another_python_or_out_of_range_gets_none() -> None:
    old = "def f(x):\n    print x\n"
    assert probe(old, _at(old, "print")) is None
    assert probe(MODULE, len(MODULE.encode()) + 5) is None
