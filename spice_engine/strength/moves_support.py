"""Inputs next to the tests' own, for the differential run's replays
(spice_engine.strength.replay_support), loaded beside the mutant plugin: one thing moved at a
time — a plain value (an integer by one, a string emptied or extended, a flag flipped), a
container's shape or one of its items (emptied, cut to its first item, reversed; a key
removed; an item moved), an array's or a frame's first element, or one attribute of an object
(`self` included) moved the same way, set as `object.__setattr__` does (no setter of the
project's runs). Each move is a function of a fresh copy of the value, so no replay sees
another's; the part it moves is copied again first (a copy one level deep shares the rest).

Plugin rules apply (spice_engine.strength.mutant_plugin): the project's Python, type comments,
nothing from this package.
"""

import copy
import types
from typing import Any, Callable, List  # noqa: F401 (type comments)

ITEMS = 3
"""Items of a container, keys of a dict, moved one at a time; attributes, four times as many."""


def neighbours(value):
    # type: (Any) -> List[Any]
    """Inputs next to a plain value (none for anything else)."""
    if isinstance(value, bool):
        found = [not value]  # type: List[Any]
    elif isinstance(value, int):
        found = [value + 1, value - 1, 0, 2 * value + 1]
    elif isinstance(value, float):
        found = [value + 1.0, value - 1.0, 0.0, -value]
    elif isinstance(value, str):
        found = ["", value + "_", value[:-1], value.upper(), value.lower()]
    elif isinstance(value, (list, tuple)) and len(value) > 1:
        found = [type(value)(), value[:1], value[::-1]]
    else:
        return []
    out = []  # type: List[Any]
    for item in found:
        if type(item) is type(value) and item != value and item not in out:
            out.append(item)
    return out


_PLAIN = (type(None), bool, int, float, complex, str, bytes)


def _key(value):
    # type: (Any) -> str
    """An order for keys and items that runs no project code (a built-in value's `repr`)."""
    return repr(value) if isinstance(value, _PLAIN) else "<{}>".format(type(value).__name__)


def _set_item(value, at, item):
    # type: (Any, Any, Any) -> Any
    if isinstance(value, tuple):
        items = (*value[:at], item, *value[at + 1 :])
        return type(value)(*items) if hasattr(value, "_fields") else items  # a named tuple
    value[at] = item
    return value


def _set_attribute(value, name, item):
    # type: (Any, str, Any) -> Any
    object.__setattr__(value, name, item)
    return value


def _set_first(value, item):
    # type: (Any, Any) -> Any
    if hasattr(value, "iloc"):  # pandas: by position
        value.iloc[(0,) * value.ndim] = item
    else:  # numpy
        value.flat[0] = item
    return value


class _Move(object):
    """One step: a part of a fresh copy read (`get`), moved by `inner`, and put back (`put`)."""

    def __init__(self, get, put, inner):
        # type: (Callable[[Any], Any], Callable[[Any, Any], Any], Callable[[Any], Any]) -> None
        self.get, self.put, self.inner = get, put, inner
        self.shape = getattr(inner, "shape", False)  # type: bool

    def __call__(self, value):
        # type: (Any) -> Any
        part = self.get(value)
        if not isinstance(part, _PLAIN):  # moved on a copy: `value` may share its insides
            part = copy.copy(part)
        return self.put(value, self.inner(part))


class _To(object):
    """A move to a value given beforehand (a plain neighbour: nothing to copy)."""

    def __init__(self, near, shape=False):
        # type: (Any, bool) -> None
        self.near, self.shape = near, shape

    def __call__(self, value):
        # type: (Any) -> Any
        return self.near


class _Dropped(object):
    """A shape move: one of a container's items taken out (a dict's key, a set's member)."""

    shape = True

    def __init__(self, key, in_set=False):
        # type: (Any, bool) -> None
        self.key, self.in_set = key, in_set

    def __call__(self, value):
        # type: (Any) -> Any
        if self.in_set:
            return type(value)(x for x in value if x != self.key)
        del value[self.key]
        return value


def _parts(get, put, item, depth):
    # type: (Callable[[Any], Any], Callable[[Any, Any], Any], Any, int) -> List[Any]
    return [_Move(get, put, inner) for inner in moves(item, depth + 1)]


def _item_moves(value, keys, depth):
    # type: (Any, List[Any], int) -> List[Any]
    found = []  # type: List[Any]
    for key in keys:
        get = lambda v, k=key: v[k]  # noqa: E731
        put = lambda v, m, k=key: _set_item(v, k, m)  # noqa: E731
        found += _parts(get, put, value[key], depth)
    return found


def _first_element(value):
    # type: (Any) -> List[Any]
    """An array's or a frame's first element moved (numpy, pandas), read and set by their code."""
    if not getattr(value, "size", 0):
        return []
    first = value.iloc[(0,) * value.ndim] if hasattr(value, "iloc") else value.flat[0]
    first = first.item() if hasattr(first, "item") else first
    return [_Move(lambda v: first, _set_first, _To(near)) for near in neighbours(first)]


def _attributes(value, depth):
    # type: (Any, int) -> List[Any]
    """An object's own attributes moved one at a time, set as `object.__setattr__` does."""
    try:
        state = object.__getattribute__(value, "__dict__")
    except Exception:  # noqa: BLE001 (no instance dictionary)
        return []
    if not isinstance(state, dict) or isinstance(value, type):
        return []
    found = []  # type: List[Any]
    for name in sorted(k for k in state if isinstance(k, str) and not k.startswith("__")):
        if len(found) >= 4 * ITEMS:
            break
        get = lambda v, n=name: object.__getattribute__(v, "__dict__")[n]  # noqa: E731
        put = lambda v, m, n=name: _set_attribute(v, n, m)  # noqa: E731
        found += _parts(get, put, state[name], depth)
    return found


def moves(value, depth=0):
    # type: (Any, int) -> List[Callable[[Any], Any]]
    """Ways to move `value` one step, each applied to a fresh copy of it (a function of that
    copy returning the moved value); none for what cannot be moved (None, code, a module).
    A move's `shape` says it changes the input's shape (a container emptied, cut, reversed, a
    key or member taken out), not one of its values."""
    if isinstance(value, (bool, int, float, str)):
        return [_To(near) for near in neighbours(value)]
    if depth >= 2:
        return []
    if isinstance(value, (list, tuple)):
        shapes = [_To(near, shape=True) for near in neighbours(value)]  # type: List[Any]
        return shapes + _item_moves(value, list(range(min(len(value), ITEMS))), depth)
    if isinstance(value, dict):
        keys = sorted(dict.keys(value), key=_key)[:ITEMS]
        return [_Dropped(key) for key in keys] + _item_moves(value, keys, depth)
    if isinstance(value, (set, frozenset)):
        return [_Dropped(x, in_set=True) for x in sorted(value, key=_key)[:1]]
    if isinstance(value, (type, types.ModuleType, types.FunctionType, types.MethodType)):
        return []
    kind = getattr(type(value), "__module__", "").split(".")[0]
    if kind in ("numpy", "pandas"):
        return _first_element(value)
    return _attributes(value, depth)


def _codes(code):
    # type: (Any) -> List[Any]
    """`code` and the code of what it defines (its comprehensions, lambdas, inner functions)."""
    found, todo = [], [code]
    while todo:
        current = todo.pop()
        found.append(current)
        todo += [c for c in current.co_consts if isinstance(c, types.CodeType)]
    return found


def option_reads(function):
    # type: (Any) -> List[Any]
    """(dict, key) of the module's options a call reads: a module-level dict whose item the
    function, or a function of its module it calls, reads by a constant key
    (`OPTIONS["keep_attrs"]`, `_get_keep_attrs()` reading it): an environment the caller
    sets, moved like an argument. At most `ITEMS`."""
    found = []  # type: List[Any]
    space = getattr(function, "__globals__", None)
    code = getattr(function, "__code__", None)
    if not isinstance(space, dict) or code is None:
        return found
    codes = _codes(code)
    for name in set(n for c in list(codes) for n in c.co_names):
        callee = space.get(name)
        if isinstance(callee, types.FunctionType) and callee.__globals__ is space:
            codes += _codes(callee.__code__)
    names = set(n for c in codes for n in c.co_names)
    keys = set(k for c in codes for k in c.co_consts if isinstance(k, str))
    for name in sorted(names):
        held = space.get(name)
        if type(held) is dict:
            found += [(held, key) for key in sorted(keys) if key in held and plain(held[key])]
    return found[:ITEMS]


def plain(value):
    # type: (Any) -> bool
    """Whether `value` is moved as a whole (what "none told them apart" may rest on)."""
    return bool(neighbours(value))
