"""The differential run's judgement, loaded into the project's own pytest beside the mutant
plugin and its eyes (spice_engine.strength.observe_support): did the mutant leave anything a
caller can see different from what two runs of the fix agree on?

Plugin rules apply: the project's Python, type comments, nothing from this package.
"""

import re
from typing import Any, Dict, List, Optional, Set  # noqa: F401 (type comments)

_CACHE = re.compile(r"\.(_assumptions|_\w*(?:cache|memo)\w*)(\[[^.]*\])?$", re.IGNORECASE)
"""A private attribute that holds what is computed again on demand (sympy's `_assumptions`, a
`_cache`, a `_memo`), and an entry directly in it."""


def _cached(path, fix, mutant):
    # type: (str, Dict[str, str], Dict[str, str]) -> bool
    """Is `path` a cache's own leaf (its size) or an entry only one side holds in it? Which facts
    a cache holds depends on what was asked before (sympy caches each assumption an object is
    asked about, and the mutant asks others): no caller's question gets another answer."""
    found = _CACHE.search(path)
    if found is None:
        return False
    return not found.group(2) or (path in fix) != (path in mutant)


def _root(path, own, other):
    # type: (str, Dict[str, str], Dict[str, str]) -> Optional[str]
    """The shortest node above `path` (itself included) that one side has and the other lacks,
    when it is an attribute (`self._seen` of `self._seen[1]`); None otherwise."""
    ends = [n for n, c in enumerate(path) if c in ".["] + [len(path)]
    for end in ends:
        node = path[:end]
        if node in own and node not in other:
            dot = node.rfind(".")
            return node if dot > node.rfind("]") and dot > 0 else None
    return None


def _below(leaves, root):
    # type: (Dict[str, str], str) -> Dict[str, str]
    """The leaves at and under `root`, keyed by what follows it."""
    return {
        p[len(root) :]: v
        for p, v in leaves.items()
        if p == root or p.startswith((root + ".", root + "["))
    }


def _private_twin(fix, mutant, root):
    # type: (Dict[str, str], Dict[str, str], str) -> bool
    """Does the fix have, beside the mutant's new attribute `root`, a private attribute holding
    the same? (Set by the fix's runs before the mutant's, it may be there in both.)"""
    parent = root[: root.rfind(".")]
    held = _below(mutant, root)
    beside = [p for p in fix if p.startswith(parent + "._")]
    return any(not set(".[") & set(p[len(parent) + 1 :]) and _below(fix, p) == held for p in beside)


def _renamed(fix, mutant, paths):
    # type: (Dict[str, str], Dict[str, str], List[str]) -> bool
    """Are the differing `paths` only a private attribute set under another name, with the
    same contents? A name only this code reads (`"_seen"` → `"XX_seenXX"` in both the
    `getattr` and the `setattr`) is no difference a caller can see."""
    gone, new = set(), set()  # type: Set[str], Set[str]
    for path in paths:
        if (path in fix) == (path in mutant):
            return False  # a value changed in place
        own, other, side = (fix, mutant, gone) if path in fix else (mutant, fix, new)
        root = _root(path, own, other)
        if root is None or (side is gone and not root[root.rfind(".") + 1 :].startswith("_")):
            return False
        side.add(root)
    if not new or not all(_private_twin(fix, mutant, root) for root in new):
        return False
    return all(any(_below(fix, g) == _below(mutant, n) for n in new) for g in gone)


SEEN = ("<seen at ", ">")  # observe_support.SEEN_AT (a plugin module imports no other)
LARGEST_ALIAS = 500
"""Leaves under a value met again, at most, copied to where it was met again."""


def _alias(leaf):
    # type: (Optional[str]) -> bool
    return leaf is not None and leaf.startswith(SEEN[0]) and leaf.endswith(SEEN[1])


def _unaliased(leaves, at):
    # type: (Dict[str, str], List[str]) -> Dict[str, str]
    """`leaves` with each value met again at a path of `at` (`<seen at P>`, not a cycle)
    written out in full. Which argument a call returns, or whether two paths hold one object
    or two equal ones, is no difference a test's `==` sees (requests-1657: the session's empty
    hooks returned in place of the request's)."""
    out = dict(leaves)
    for path in at:
        leaf = leaves.get(path)
        if not _alias(leaf):
            continue
        origin = leaf[len(SEEN[0]) : -len(SEEN[1])]  # type: ignore[index]
        below = _below(leaves, origin)
        if origin not in leaves or _below({path: ""}, origin) or len(below) > LARGEST_ALIAS:
            continue  # a cycle, or too large to write out: compared as met
        for rest, value in below.items():
            out[path + rest] = value
    return out


def _differing(fix, again, mutant):
    # type: (Dict[str, str], Dict[str, str], Dict[str, str]) -> List[str]
    return [p for p in set(fix) | set(mutant) if fix.get(p) == again.get(p) != mutant.get(p)]


def changed(fix, again, mutant):
    # type: (Dict[str, str], Dict[str, str], Dict[str, str]) -> str
    """Where one call under the mutant leaves a leaf two runs of the fix agree on different (a
    private attribute merely renamed aside, a value met again merely met elsewhere): "returned"
    (what it returned or raised), "stored" (only the state its arguments were left in), or ""
    (nowhere)."""
    paths = _differing(fix, again, mutant)
    aliased = [p for p in paths if _alias(fix.get(p)) or _alias(mutant.get(p))]
    if aliased:  # written out only where they differ: a large object meets many values again
        fix, again, mutant = (_unaliased(x, aliased) for x in (fix, again, mutant))
        paths = _differing(fix, again, mutant)
    paths = [p for p in paths if not _cached(p, fix, mutant)]
    if not paths or _renamed(fix, mutant, paths):
        return ""
    returned = any(p == "return" or p.startswith(("return.", "return[")) for p in paths)
    return "returned" if returned else "stored"


def differs(fix, again, mutant):
    # type: (List[Dict[str, str]], List[Dict[str, str]], List[Dict[str, str]]) -> Any
    """Did the mutant leave a leaf that two runs of the fix agree on different? "returned" or
    "stored" (as `changed`: a call more or fewer is "returned", behaviour a caller sees), False,
    or None when the fix's runs cannot say (no call seen, or not the same number of calls)."""
    if not fix or len(fix) != len(again):
        return None
    if len(mutant) != len(fix):
        return "returned"
    kinds = {changed(a, b, m) for a, b, m in zip(fix, again, mutant)} - {""}  # noqa: B905 (3.6)
    return ("returned" if "returned" in kinds else "stored") if kinds else False
