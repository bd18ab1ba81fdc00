"""What a mutant is and the libcst pieces mutants are built from."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

GUARD = "_spice_mutant"
PRELUDE = (
    f"def {GUARD}(n):\n"
    "    reached = getattr(__import__('sys'), '_spice_reached', None)\n"
    "    if reached is not None:\n"
    "        reached.add(n)\n"
    "    return __import__('os').environ.get('SPICE_MUTANT') == str(n)\n"
)
"""The switch of every mutant; while the plugin's probe is set (`sys._spice_reached`, during
the ordinary run only), it also records that the mutant's code was executed."""
FLIP_COMPARISON: dict[type[cst.BaseCompOp], type[cst.BaseCompOp]] = {
    cst.LessThan: cst.LessThanEqual,
    cst.LessThanEqual: cst.LessThan,
    cst.GreaterThan: cst.GreaterThanEqual,
    cst.GreaterThanEqual: cst.GreaterThan,
    cst.Equal: cst.NotEqual,
    cst.NotEqual: cst.Equal,
    cst.Is: cst.IsNot,
    cst.IsNot: cst.Is,
    cst.In: cst.NotIn,
    cst.NotIn: cst.In,
}
FLIP_ARITHMETIC: dict[type[cst.BaseBinaryOp], type[cst.BaseBinaryOp]] = {
    cst.Add: cst.Subtract,
    cst.Subtract: cst.Add,
}


@dataclass(frozen=True)
class Site:
    """One mutant as found: where, which operator, and what it changes."""

    id: int
    line: int
    operator: str
    change: str
    function: str | None
    switchable: bool
    """In code that runs when called (a function's body): the schema can switch it."""
    equivalent: str = ""
    """Why this mutant is equivalent by construction ("": no proof of it)."""
    splice: tuple[int, int, int, int, str] | None = None
    """(start line, column, end line, column, new text): the mutant as a text edit of the
    source (None: only the whole rewrite writes it)."""
    argument: tuple[str, int, str] | None = None
    """(the called function's name, `.name` for `obj.name(…)`; position; keyword or "") when
    the mutant is a string passed straight to a call."""
    attribute: str = ""
    """The private attribute name a string mutant renames, when its function holds it in one
    local used only by `getattr`/`setattr`/… (spice_engine.strength.attribute_names)."""
    scope: tuple[int, int, str, int] | None = None
    """(first line, last line, the class headers parsed before it, id there) of the top-level
    statement or method it was found in, parsed alone (None: found in the whole file)."""


def code_of(node: cst.CSTNode, limit: int = 40) -> str:
    text = " ".join(cst.Module([]).code_for_node(node).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def paren(node: cst.BaseExpression) -> cst.BaseExpression:
    return node.with_changes(
        lpar=[cst.LeftParen(), *node.lpar], rpar=[*node.rpar, cst.RightParen()]
    )


def guard(k: int) -> cst.Call:
    return cst.Call(cst.Name(GUARD), [cst.Arg(cst.Integer(str(k)))])


def told_apart(places: list[tuple[str, int, str]]) -> list[str]:
    """Each (path, line, change)'s change, saying which one it is where its line holds two
    mutants written alike (sympy-17821's `Dummy('k', integer=True, nonnegative=True)`: two
    `True` → `False`, one harmless, one that makes `doit()` raise): a reviewer, and a
    judgement kept by place and change, can name each. `places` in the order of the line."""
    total: dict[tuple[str, int, str], int] = {}
    for place in places:
        total[place] = total.get(place, 0) + 1
    seen: dict[tuple[str, int, str], int] = {}
    out = []
    for place in places:
        n = total[place]
        seen[place] = seen.get(place, 0) + 1
        out.append(
            place[2] if n == 1 else f"{place[2]} ({_ordinal(seen[place])} of {n} on its line)"
        )
    return out


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
