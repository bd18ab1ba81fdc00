"""The calls a traced run recorded (spice_engine.langs.go_trace's lines), read back and compared:
does a survivor's function answer the tests' own calls as the fix's does?

A call is its function's id, what it was given (hashed), what it returned or raised, and what it
left in its receiver and arguments; each hash twice, exactly and with every digit masked (a
time, a counter, a port: what two runs of the fix may not agree on). The fix is run twice: a
given input whose answers the two runs agree on is stable, and only those are compared. The
exact hashes are compared first; where no input is stable exactly (a receiver holding a
timestamp), the masked ones: a difference there is one in more than numbers.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal, NamedTuple


class Call(NamedTuple):
    entry: str
    entry_masked: str
    returned: str
    returned_masked: str
    left: str
    left_masked: str


@dataclass(frozen=True)
class Compared:
    """A survivor's function's calls under it against the fix's."""

    differs: bool | None
    """None: no call both could be compared on (nothing stable, or no call under it)."""
    where: Literal["returned", "stored"] | None = None
    """What differed: what it returned (or raised), or only what it left behind."""
    calls: int = 0
    """The stable inputs compared."""
    why: str = ""
    unpassed: bool = False
    """It answered otherwise, but its callers in its file answered alike (then `differs` is
    False: nothing a caller of theirs sees)."""


@dataclass(frozen=True)
class Recorded:
    calls: dict[str, list[Call]]
    """Function id -> the calls it returned from (or raised out of)."""
    entered: frozenset[str]
    """The functions called at all (one that never returns, a loop serving till the end, too)."""
    received: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    """A test file's call site -> what its calls got back (hashed exactly, and masked)."""


def recorded(output: str, mark: str) -> Recorded:
    """What the traced functions wrote, from a run's output (plain text, or `go test -json`'s
    events)."""
    found: dict[str, list[Call]] = {}
    entered: set[str] = set()
    got: dict[str, list[tuple[str, str]]] = {}
    for text in _texts(output):
        for line in text.splitlines():
            if not line.startswith(mark + "\t"):
                continue
            parts = line.split("\t")
            if len(parts) == 3 and parts[2] == "entered":
                entered.add(parts[1])
            elif len(parts) == 5 and parts[2] == "got":
                got.setdefault(parts[1], []).append((parts[3], parts[4]))
            elif len(parts) == 8:  # else cut short (the run was stopped as it wrote)
                found.setdefault(parts[1], []).append(Call(*parts[2:]))
    return Recorded(found, frozenset(entered | found.keys()), got)


def _texts(output: str) -> Iterable[str]:
    for line in output.splitlines():
        if line.startswith("{"):
            try:
                event = json.loads(line)
            except ValueError:
                event = None
            if isinstance(event, dict):
                yield str(event.get("Output") or "")
                continue
        yield line


Answers = dict[str, set[tuple[str, str]]]


def _answers(calls: list[Call], exact: bool) -> Answers:
    found: Answers = {}
    for c in calls:
        key = c.entry if exact else c.entry_masked
        answer = (c.returned, c.left) if exact else (c.returned_masked, c.left_masked)
        found.setdefault(key, set()).add(answer)
    return found


def compare(fix: list[Call], again: list[Call], mutant: list[Call]) -> Compared:
    """The survivor's calls (`mutant`) against the fix's two runs' (`fix`, `again`)."""
    if not fix:
        return Compared(None, why="no call of its function by the tests returned under the fix")
    if not mutant:
        return Compared(None, why="the tests made no call of its function under it")
    checked = 0
    for exact in (True, False):
        a, b, m = _answers(fix, exact), _answers(again, exact), _answers(mutant, exact)
        stable = [k for k in a.keys() & b.keys() if a[k] == b[k] and k in m]
        for key in sorted(stable):
            if m[key] != a[key]:
                returned = {r for r, _ in m[key]} != {r for r, _ in a[key]}
                where: Literal["returned", "stored"] = "returned" if returned else "stored"
                return Compared(True, where, len(stable))
        checked = checked or len(stable)
        if stable:
            break
    if not checked:
        return Compared(None, why="no input the tests gave it was answered alike by two runs")
    return Compared(False, calls=checked)


def received_alike(fix: Recorded, again: Recorded, mutant: Recorded) -> int | None:
    """How many of the tests' call sites got back the same values under the survivor as under
    the fix, where every site whose values the fix's two runs agree on did (None: one did not,
    or no site is stable). Exact hashes first; where no site is stable exactly, the masked."""
    for hashed in (0, 1):  # the exact hash, then the masked
        a, b, m = (
            {site: {v[hashed] for v in values} for site, values in r.received.items()}
            for r in (fix, again, mutant)
        )
        stable = [s for s in a.keys() & b.keys() if a[s] == b[s]]
        if stable:
            return None if any(m.get(s) != a[s] for s in stable) else len(stable)
    return None
