"""What a module holds once imported, written out the same way every time: its own names'
values (tables, patterns, constants) and its classes' attributes, each on a line of its own
(`StandardDomain.roles = {...}`), with no addresses or ids. Its source is sent, as the first statements of an example, to our example driver
(spice_engine.strength.examples_plugin) to tell apart what code run at import leaves behind
under the fix and under a survivor (spice_engine.strength.import_states).

Runs in the project's own Python (3.6 and later): type comments, the standard library only.
"""

import importlib
import re

_DEPTH = 4
_ITEMS = 60
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _spice_text(value, depth=0):
    # type: (object, int) -> str
    """`value` written out: containers item by item (sets and dicts in a fixed order), a
    compiled pattern by its text and flags, an object by its type and its attributes."""
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
        return repr(value)
    if depth >= _DEPTH:
        return type(value).__name__ + "(…)"
    if isinstance(value, type(re.compile(""))):
        return "re.compile(%r, %d)" % (value.pattern, value.flags)
    inner = depth + 1
    if isinstance(value, dict):
        pairs = sorted((_spice_text(k, inner), _spice_text(v, inner)) for k, v in value.items())
        return "{" + ", ".join("%s: %s" % kv for kv in pairs[:_ITEMS]) + "}"
    if isinstance(value, (list, tuple)):
        items = [_spice_text(v, inner) for v in value][:_ITEMS]
        return type(value).__name__ + "[" + ", ".join(items) + "]"
    if isinstance(value, (set, frozenset)):
        return "set{" + ", ".join(sorted(_spice_text(v, inner) for v in value)[:_ITEMS]) + "}"
    if isinstance(value, type) or callable(value):
        return "<%s %s>" % (type(value).__name__, getattr(value, "__qualname__", "?"))
    attributes = getattr(value, "__dict__", None)
    if isinstance(attributes, dict):
        fields = sorted((k, _spice_text(v, inner)) for k, v in attributes.items())
        return type(value).__name__ + "(" + ", ".join("%s=%s" % f for f in fields) + ")"
    return _ADDRESS.sub("", repr(value))


def _spice_own(module, value):
    # type: (object, object) -> bool
    return getattr(value, "__module__", None) == getattr(module, "__name__", "")


def _spice_lines(module):
    # type: (object) -> list
    """One line per name `module` defines: a value, a class's attributes (what was imported
    from elsewhere is that module's, and left out). Functions and methods are left out, their
    defaults too: a default is what a call leaving it out gets, a call's behaviour, not what
    the module holds for every importer."""
    lines = []
    for name, value in sorted(vars(module).items()):
        if name.startswith("__") or type(value).__name__ == "module":
            continue
        if isinstance(value, type):
            if not _spice_own(module, value):
                continue
            for attr, held in sorted(vars(value).items()):
                plain = not isinstance(held, (property, staticmethod, classmethod))
                if not attr.startswith("__") and plain and not callable(held):
                    lines.append("%s.%s = %s" % (name, attr, _spice_text(held)))
        elif not callable(value):
            lines.append("%s = %s" % (name, _spice_text(value)))
    return lines


def _spice_state(names):
    # type: (list) -> None
    """Imports the first of `names` that imports (a `src/` layout's package by its own name
    first) and prints what it holds, a line per name."""
    for name in names:
        try:
            module = importlib.import_module(name)
        except Exception:  # noqa: BLE001 (the next name may be the one)
            continue
        print("module " + name)
        for line in _spice_lines(module):
            print(line)
        return
    print("no module of " + ", ".join(names) + " imports")
