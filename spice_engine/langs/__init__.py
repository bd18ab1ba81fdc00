"""The languages an instance's tests can run in, behind one seam (spice_engine.langs.base)."""

from __future__ import annotations

from spice_engine.langs.base import Files, Language

FALLBACK = "python"
"""The language of a tree nothing claims, and of rows recorded before languages were named."""


def languages() -> dict[str, Language]:
    """Every language, by name (built on each call: nothing happens at import)."""
    from spice_engine.langs.c import C, Cpp
    from spice_engine.langs.go import Go
    from spice_engine.langs.java import Java
    from spice_engine.langs.javascript import JavaScript
    from spice_engine.langs.python import Python
    from spice_engine.langs.rust import Rust

    found: list[Language] = [Python(), Go(), Rust(), JavaScript(), Java(), C(), Cpp()]
    return {lang.name: lang for lang in found}


def language_of(files: Files) -> Language:
    """The language whose project the tree most surely is (Python when nothing claims it)."""
    known = languages()
    scored = sorted(((lang.detect(files), name) for name, lang in known.items()), reverse=True)
    best, name = scored[0]
    return known[name] if best > 0 else known[FALLBACK]
