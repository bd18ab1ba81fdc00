"""What our pytest plugins share, loaded into the project's own Python beside them (as
`_spice_support`, from the plugin's read-only folder; spice_engine.validate.plugin_run): the
sending end of the run's channel, and tests chosen by id inside pytest.

The channel's descriptor is taken at import, before any test runs: duplicated close-on-exec and
the inherited one closed, so no process the tests start holds it, and the tests' own output
goes to the log. Written for Python 3.6 and later (and pytest 3 to 9): type comments, nothing
from this package.
"""

import json
import os
from typing import Any, Dict, List, Optional, TextIO, Tuple  # noqa: F401 (type comments)


def _take():
    # type: () -> Optional[TextIO]
    number = os.environ.pop("SPICE_CHANNEL_FD", "")
    if not number:
        return None
    try:
        mine = os.dup(int(number))
        os.close(int(number))
    except (OSError, ValueError):
        return None
    return os.fdopen(mine, "w")


_OUT = _take()


def send(message):
    # type: (Dict[str, Any]) -> None
    """One message, a JSON object on a line of its own, sent at once."""
    if _OUT is not None:
        _OUT.write(json.dumps(message) + "\n")
        _OUT.flush()


def _names(nodeid):
    # type: (str) -> List[str]
    """The ids a test may be listed under: its node id; pytest 3's with the `::()` of a class
    instance dropped (as later pytests and SWE-bench's lists write it); each cut at its first
    space, as SWE-bench's log parser cuts ids (`test_x[a b]` is `test_x[a`)."""
    plain = nodeid.replace("::()", "")
    return list(dict.fromkeys([nodeid, plain, nodeid.split(" ", 1)[0], plain.split(" ", 1)[0]]))


def named(items, wanted):
    # type: (List[Any], List[str]) -> List[Tuple[str, List[Any]]]
    """(test id, its items) for each wanted id found, in the wanted order (an id cut at a
    space may name several items)."""
    found = {}  # type: Dict[str, List[Any]]
    names = set(wanted)
    for item in items:
        for name in _names(item.nodeid):
            if name in names:
                found.setdefault(name, []).append(item)
                break
    return [(t, found[t]) for t in wanted if t in found]


def select(config, items, wanted):
    # type: (Any, List[Any], List[str]) -> None
    """Only the wanted tests run: chosen here by id, never on the command line, where an id
    with a space, a bracket cut open or an escape pytest cannot find stops the whole run."""
    keep = set(id(i) for _, group in named(items, wanted) for i in group)
    dropped = [i for i in items if id(i) not in keep]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [i for i in items if id(i) in keep]
