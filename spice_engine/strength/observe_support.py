"""The differential run's eyes, loaded into the project's own pytest beside the mutant plugin
(spice_engine.strength.mutant_plugin): while tests run, every call of one function is
recorded as what a caller can see of it (what it returned or raised, the state its arguments,
`self` included, were left in, their classes' data), each value flattened to its leaves. A leaf
two runs of the fix agree on and the mutant changes is a difference a test could have checked
(compare_support); a mutant that changes none on the tests' inputs is `equivalent` there.

Plugin rules apply: it runs under the project's Python and pytest, with type comments and
nothing from this package; it never consumes an iterator, calls a property or `repr` of an
object of the project (only those of built-in values), and never lets an error reach a test.
"""

import bisect
import collections
import contextlib
import dis
import io
import sys
import types
from typing import Any, Dict, List, Optional, Tuple  # noqa: F401 (type comments)

MAX_CALLS = 200  # calls recorded per run: one that makes more is compared on these
MAX_LEAVES = 4000  # leaves per call: a huge state is compared on its nearest, in a fixed order
MAX_DEPTH, MAX_ITEMS, LONG_TEXT = 10, 300, 2000

_PLAIN = (type(None), bool, int, float, complex, str, bytes)
_BASES = (list, tuple, set, frozenset)  # type: Tuple[Any, ...]
_NAMED = (type, types.FunctionType, types.MethodType, types.BuiltinFunctionType, types.ModuleType)


def _plain(value):
    # type: (Any) -> str
    text = repr(value)
    if len(text) > LONG_TEXT:  # the same process: `hash` is stable within it
        return "{}#{}:{}".format(type(value).__name__, len(text), hash(text))
    return text


def _key(value):
    # type: (Any) -> str
    return _plain(value) if isinstance(value, _PLAIN) else "<{}>".format(type(value).__name__)


def _members(value):
    # type: (Any) -> List[Any]
    """A container's items, read by the built-in type's own code (never a subclass's)."""
    base = next(b for b in _BASES if isinstance(value, b))
    return list(base.__iter__(value))


def _items(obj):
    # type: (Any) -> List[Any]
    """(label, value) pairs of an object's own state: its `__dict__` and `__slots__`, read
    without running any of its code."""
    out = []  # type: List[Any]
    try:
        state = object.__getattribute__(obj, "__dict__")
    except Exception:  # noqa: BLE001 (no instance dictionary, or one that will not be read)
        state = None
    if isinstance(state, dict):
        out += [("." + str(k), state[k]) for k in sorted(state, key=_key)[:MAX_ITEMS]]
    for klass in type(obj).__mro__:
        for slot in klass.__dict__.get("__slots__", ()) or ():
            if isinstance(slot, str) and slot not in ("__dict__", "__weakref__"):
                with contextlib.suppress(Exception):  # an unset slot
                    out.append(("." + slot, object.__getattribute__(obj, slot)))
    return out


def _own(klass):
    # type: (type) -> Any
    return type.__dict__["__dict__"].__get__(klass)  # never a metaclass's own attribute code


def _class_data(klass):
    # type: (type) -> List[Any]
    """A class's own data: not its code, nor any descriptor (a slot, a cached property)."""
    state = _own(klass)
    return [
        ("." + k, state[k])
        for k in sorted(state, key=str)[:MAX_ITEMS]
        if isinstance(k, str)
        and not k.startswith("__")
        and not isinstance(state[k], type)
        and not any("__get__" in _own(c) for c in type(state[k]).__mro__)
    ]


def _contents(value):
    # type: (Any) -> Optional[str]
    """An array's shape, item format and bytes (hashed: the same process; their count alone
    past 16 MiB), read through the buffer numpy or Python implements; None for anything else."""
    if getattr(type(value), "__module__", "").split(".")[0] not in ("numpy", "array", "builtins"):
        return None
    try:
        view = memoryview(value)
    except (TypeError, ValueError, BufferError):
        return None
    if "O" in view.format:
        return None
    held = view.nbytes if view.nbytes > 1 << 24 else hash(view.tobytes())
    return "{}{}#{}".format(view.shape, view.format, held)


SEEN_AT = "<seen at {}>"  # a value met again, named where first met (read by compare_support)


def _node(value, path, depth, out, seen):
    # type: (Any, str, int, Dict[str, str], Dict[int, str]) -> List[Any]
    """Writes `value`'s leaf into `out`; returns its members to read next, (value, path, depth)."""
    kind = type(value)
    if isinstance(value, _PLAIN):
        out[path] = _plain(value)
        return []
    if id(value) in seen:
        out[path] = SEEN_AT.format(seen[id(value)])
        return []
    seen[id(value)] = path
    name = "{}.{}".format(getattr(kind, "__module__", "?"), kind.__qualname__)
    if kind is collections.OrderedDict:  # compared key by key, it equals a plain dict
        name = "builtins.dict"
    below = []  # type: List[Any]
    if depth >= MAX_DEPTH:
        out[path] = name
    elif isinstance(value, (list, tuple)):
        items = _members(value)
        out[path] = "{}[{}]".format(name, len(items))
        below = [("{}[{}]".format(path, n), item) for n, item in enumerate(items[:MAX_ITEMS])]
    elif isinstance(value, dict):
        out[path] = "{}[{}]".format(name, dict.__len__(value))
        keys = sorted(dict.keys(value), key=_key)[:MAX_ITEMS]
        below = [("{}[{}]".format(path, _key(k)), dict.__getitem__(value, k)) for k in keys]
    elif isinstance(value, (set, frozenset)):
        out[path] = "{}{}".format(name, sorted(_key(v) for v in _members(value))[:MAX_ITEMS])
    elif isinstance(value, io.StringIO):  # a warning or status stream: what it was told
        lines = io.StringIO.getvalue(value).splitlines()
        out[path] = "{}[{}]".format(name, len(lines))
        for n, line in enumerate(lines[-MAX_ITEMS:], max(0, len(lines) - MAX_ITEMS)):
            out["{}[{}]".format(path, n)] = _plain(line)
    elif isinstance(value, _NAMED):
        out[path] = "{} {}".format(name, getattr(value, "__qualname__", "") or "")
        if isinstance(value, type):  # a class's data (a marker set on it), not its code
            below = [(path + label, item) for label, item in _class_data(value)]
    else:
        contents = _contents(value)  # an array: compared by its contents, not its fields
        out[path] = name + (contents or "")
        below = [] if contents else [(path + label, item) for label, item in _items(value)]
    return [(item, where, depth + 1) for where, item in below]


def flatten(queue, out):
    # type: (List[Any], Dict[str, str]) -> None
    """The values of `queue` ((value, path, depth) each) flattened into `out`, path -> a
    leaf's text, nearest first: of a state larger than `MAX_LEAVES`, every value's own fields
    are kept before anyone's deep internals (a pytest item's class before its config's)."""
    seen = {}  # type: Dict[int, str]
    todo = collections.deque(queue)
    while todo and len(out) < MAX_LEAVES:
        value, path, depth = todo.popleft()
        try:
            todo.extend(_node(value, path, depth, out, seen))
        except Exception as exc:  # noqa: BLE001 (a value that cannot be read is a leaf of its own)
            out[path] = "<unreadable {}>".format(type(exc).__name__)


def _arguments(frame):
    # type: (Any) -> List[Any]
    code = frame.f_code
    count = code.co_argcount + getattr(code, "co_kwonlyargcount", 0)
    count += bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)  # *args, **kwargs
    names = code.co_varnames[:count]
    return [(n, frame.f_locals[n]) for n in names if n in frame.f_locals]


DROPPED = "<dropped by the caller>"
_SKIPPED = ("CACHE", "EXTENDED_ARG", "NOP")
_NEXT = {}  # type: Dict[Any, Tuple[List[int], List[str]]]


def dropped(caller):
    # type: (Any) -> bool
    """Does the calling frame throw the returned value away (the call a statement of its own:
    the instruction after the call is `POP_TOP`)? What a caller drops, no caller can tell
    apart. (`f_lasti` is the call's offset, or from 3.11 its last inline cache's.)"""
    if caller is None:
        return False
    code = caller.f_code
    listed = _NEXT.get(code)
    if listed is None:
        try:
            found = [(i.offset, i.opname) for i in dis.get_instructions(code)]
        except Exception:  # noqa: BLE001 (code `dis` cannot read: nothing is said dropped)
            found = []
        kept = [(at, name) for at, name in found if name not in _SKIPPED]
        listed = _NEXT[code] = ([at for at, _ in kept], [name for _, name in kept])
    offsets, names = listed
    after = bisect.bisect_right(offsets, caller.f_lasti)
    return after < len(names) and names[after] == "POP_TOP"


def _class_state(value, path):
    # type: (Any, str) -> List[Any]
    """The data an object's own class holds, to flatten shallow (a class can hold a registry):
    a caller meets `type(self)`'s once-per-class marker again in every instance."""
    if isinstance(value, _PLAIN + _BASES + _NAMED + (dict,)) or not type(value).__flags__ & 512:
        return []  # a built-in or compiled type's (not a heap type): methods, no data
    found = _class_data(type(value))
    return [(item, path + ".__class__" + label, MAX_DEPTH - 2) for label, item in found]


def outcome(arguments, raised, returned, kept=True):
    # type: (List[Any], Optional[str], Any, bool) -> Dict[str, str]
    """What a caller sees of one call: what it returned (unless it was not `kept`) or raised,
    its arguments' state, and the data their classes hold."""
    out = {}  # type: Dict[str, str]
    queue = []  # type: List[Any]
    if raised is not None and returned is None:
        out["return"] = raised
    elif not kept:
        out["return"] = DROPPED
    else:
        queue.append((returned, "return", 0))
    queue += [(value, name, 0) for name, value in arguments]
    for name, value in arguments:
        with contextlib.suppress(Exception):  # a class whose data will not be read
            queue += _class_state(value, name)
    flatten(queue, out)
    return out


class Observer(object):
    """Records the calls of the functions named `function` in files ending with `path`; with
    a `keeper` (replay_support.kept: a frame and its arguments -> (function, code, a copy of
    the arguments as they came in) or None), the first `capture` of them are kept to replay,
    with whether the caller dropped the returned value."""

    def __init__(self, path, function, keeper=None, capture=0):
        # type: (str, str, Any, int) -> None
        self.suffix, self.function = "/" + path.lstrip("/"), function
        self.calls = []  # type: List[Dict[str, str]]
        self.captured = []  # type: List[Any]
        self._keeper, self._capture = keeper, capture
        self._targets = {}  # type: Dict[Any, bool]
        self._previous = None  # type: Any

    def _is_target(self, code):
        # type: (Any) -> bool
        hit = self._targets.get(code)
        if hit is None:
            filename = code.co_filename.replace("\\", "/")
            hit = code.co_name == self.function and filename.endswith(self.suffix)
            self._targets[code] = hit
        return hit

    def _keep(self, frame, arguments):
        # type: (Any, List[Any]) -> None
        kept = self._keeper(frame, arguments)
        if kept is not None:
            # Whether its caller drops what it returns, for the replays to read it as well.
            function, code, copy = kept
            self.captured.append((function, code, copy, dropped(frame.f_back)))

    def tracer(self, frame, event, arg):
        # type: (Any, str, Any) -> Any
        if event != "call" or len(self.calls) >= MAX_CALLS or not self._is_target(frame.f_code):
            return None
        arguments = _arguments(frame)
        if self._keeper is not None and len(self.captured) < self._capture:
            self._keep(frame, arguments)
        raised = []  # type: List[str]

        def local(frame, event, arg):
            # type: (Any, str, Any) -> Any
            try:
                if event == "exception":
                    raised[:] = [arg[0].__name__]
                elif event == "line":
                    del raised[:]  # handled inside: not what the caller sees
                elif event == "return":
                    said = "raised {}".format(raised[0]) if raised else None
                    kept = said is not None or not dropped(frame.f_back)
                    self.calls.append(outcome(arguments, said, arg, kept))
            except Exception:  # noqa: BLE001 (never into the test)
                pass
            return local

        return local

    def __enter__(self):
        # type: () -> Observer
        self._previous = sys.gettrace()
        sys.settrace(self.tracer)
        return self

    def __exit__(self, *exc):
        # type: (Any) -> None
        sys.settrace(self._previous)
