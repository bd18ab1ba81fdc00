"""Our driver of the issue's own example (as `_spice_examples`): the Python a reporter ran to
show the bug (spice_engine.langs.python_examples), run under the fix and under survivors.

Started as `python -c "import <support>, <this>; <this>.main()"` in the tree, with the mutant
schema there, it imports what the example imports once, then forks one child per state named
in its settings, in order: the fix (`null`), or a mutant's id (`SPICE_MUTANT`, read by the
schema when the mutated code runs). A child runs the example's statements one by one in one
namespace, as a console does (an expression's value printed, an exception said as its type and
message and the next statement run), and hands what it printed to the parent through a pipe of
its own; the parent sends each state's digest and what each statement printed through the run's channel
as it ends, so a hang or a crash loses only that state. A child past its time is killed.

The example is the issue's text, hostile: it runs only here, in the sandbox, and a child holds
neither the channel nor the parent's pipe of another state. A child could still print what
it is asked to switch (`SPICE_MUTANT`): the host runs one decoy id no code reads and trusts no
example whose output moves with it.

Plugin rules apply (spice_engine.strength.mutant_plugin): the project's Python, type comments,
nothing from this package in a run.
"""

import ast
import hashlib
import importlib
import io
import json
import os
import re
import select
import signal
import sys
import time
from typing import Any, Dict, List, Optional, Tuple  # noqa: F401 (type comments)

_SUPPORT = sys.modules.get(os.environ.get("SPICE_SUPPORT_MODULE", "")) or importlib.import_module(
    "spice_engine.validate.plugin_support"
)
send = _SUPPORT.send
KEEP = 500
"""What of a statement's output is sent (the state's digest covers all of it)."""
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")


def _settings():
    # type: () -> Dict[str, Any]
    with open(os.path.join(os.environ.get("SPICE_PLUGIN_DIR", ""), "settings.json")) as fh:
        return json.load(fh)


def _statements(snippet):
    # type: (str) -> List[Any]
    try:
        return list(ast.parse(snippet, "<issue>").body)
    except (SyntaxError, ValueError):
        return []


def _quietly(code):
    # type: (Any) -> None
    """`code` run with its output dropped and any exception swallowed."""
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = io.StringIO()
    try:
        exec(code, {"__name__": "__main__"})
    except BaseException:  # noqa: BLE001 (the child says what fails; here nothing is said)
        pass
    finally:
        sys.stdout, sys.stderr = saved


def _preimport(snippets):
    # type: (List[str]) -> None
    """The example's imports made once, before any child: each child starts from them."""
    for snippet in snippets:
        for node in _statements(snippet):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                _quietly(compile(ast.Module(body=[node], type_ignores=[]), "<issue>", "exec"))


def _show(value):
    # type: (Any) -> None
    """The console's echo of an expression's value, `None` included (a mutant returning None
    where the fix returns a value must print something else)."""
    sys.stdout.write(repr(value) + "\n")


def _run(snippets):
    # type: (List[str]) -> str
    """What each statement of the example prints, run one by one in one namespace: a JSON list
    of [the statement, what it printed]."""
    said = []  # type: List[List[str]]
    space = {"__name__": "__main__"}  # type: Dict[str, Any]
    saved, hook = sys.stdout, sys.displayhook
    sys.displayhook = _show
    try:
        for snippet in snippets:
            for node in _statements(snippet):
                out = io.StringIO()
                sys.stdout = out
                try:
                    exec(compile(ast.Interactive(body=[node]), "<issue>", "single"), space)
                except BaseException as exc:  # noqa: BLE001 (a console says it and goes on)
                    message = str(exc).splitlines()[0][:300] if str(exc) else ""
                    out.write("raised {}: {}\n".format(type(exc).__name__, message))
                finally:
                    sys.stdout = saved
                source = (
                    ast.get_source_segment(snippet, node)
                    if hasattr(ast, "get_source_segment")
                    else None
                )
                said.append([(source or "")[:200], _ADDRESS.sub("0x…", out.getvalue())])
    finally:
        sys.stdout, sys.displayhook = saved, hook
    return json.dumps(said)


def _child(snippets, state, write_end):
    # type: (List[str], Optional[str], int) -> None
    channel = getattr(_SUPPORT, "_OUT", None)
    if channel is not None:
        channel.close()  # the example cannot write to the run's channel
    if state is None:
        os.environ.pop("SPICE_MUTANT", None)
    else:
        os.environ["SPICE_MUTANT"] = state
    printed = _run(snippets)
    left = memoryview(printed.encode("utf-8", "replace"))
    while left:  # the parent reads as it comes: a long output fills the pipe, never blocks it
        left = left[os.write(write_end, left) :]
    os.close(write_end)


def _in_child(snippets, state, limit):
    # type: (List[str], Optional[str], float) -> Tuple[str, Optional[str]]
    """(status, output): `ok` with what the child printed, or `timeout` / `crashed`."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        code = 0
        try:
            _child(snippets, state, write_end)
        except BaseException:  # noqa: BLE001
            code = 1
        os._exit(code)
    os.close(write_end)
    chunks = []  # type: List[bytes]
    ends = time.time() + limit
    status = "ok"
    while True:
        left = ends - time.time()
        if left <= 0:
            status = "timeout"
            os.kill(pid, signal.SIGKILL)
            break
        ready, _, _ = select.select([read_end], [], [], left)
        if ready:
            chunk = os.read(read_end, 65536)
            if not chunk:
                break
            chunks.append(chunk)
    os.close(read_end)
    _, code = os.waitpid(pid, 0)
    if status == "ok" and code != 0:
        status = "crashed"
    return status, b"".join(chunks).decode("utf-8", "replace") if status == "ok" else None


def main():
    # type: () -> None
    settings = _settings()
    snippets = settings["snippets"]  # type: List[str]
    if "" not in sys.path:
        sys.path.insert(0, "")  # the tree first, as `python -c` in it has
    if settings.get("preimport", True):  # not where the example's imports are what it tests
        _preimport(snippets)
    ends = time.time() + float(settings["budget_s"])
    limit = float(settings["per_state_s"])
    for state in settings["states"]:
        left = ends - time.time()
        if left < 1:
            break
        t0 = time.time()
        status, printed = _in_child(snippets, state, min(limit, left))
        seconds = time.time() - t0
        if state is None and status == "ok":  # a state may take a few times the fix's own
            limit = min(limit, max(5.0, 3 * seconds + 2))
        message = {"state": state, "status": status, "seconds": round(seconds, 3)}
        if printed is not None:
            try:
                keep = int(settings.get("keep", KEEP))
                said = [[str(a)[:200], str(b)[:keep]] for a, b in json.loads(printed)][:200]
            except (ValueError, TypeError):  # the child's pipe held something else
                message["status"] = "garbled"
            else:
                digest = hashlib.sha256(printed.encode("utf-8", "replace")).hexdigest()
                message.update(digest=digest, statements=said)
        send(message)
