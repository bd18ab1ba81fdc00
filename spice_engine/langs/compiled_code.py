"""What the compiled languages' check of a mutant's code shares: the one line its command
prints to the channel, and where in a source a changed line's code sits.

A language offering the check (`CompiledCode`, spice_engine.langs.capabilities) compiles the
unit a file belongs to as its build does, optimised where its compiler optimises, writes that
unit's code without what only says where it came from (line tables, debug information, file
paths), and prints the code's SHA-256 to its channel: the host compares the fix's and the
mutant's, and reads nothing the tree could have written in place of the command's own output.
"""

from __future__ import annotations

import re
from typing import Any

from spice_engine.langs.base import JOB

MARK = "@@spice-code "
CODE = f"{JOB}/code"
"""The check's scratch: emptied by each command before it compiles."""
DUMP = f"{CODE}/dump"
"""Where each command writes the unit's code, normalised, before it is digested."""
START = f"set -u\nrm -rf {CODE} && mkdir -p {CODE} || exit 1\n"
_DIGEST = re.compile(r"[0-9a-f]{64}")


def digest_lines() -> str:
    """Shell lines printing the digest of `DUMP` to the channel (nothing when it is empty)."""
    return (
        f"[ -s {DUMP} ] || {{ echo 'no code written' >&2; exit 1; }}\n"
        f"d=$(sha256sum < {DUMP}) || exit 1\n"
        f'printf "\\n{MARK}%s\\n" "${{d%% *}}"\n'
    )


def read_digest(channel: str) -> str | None:
    """The unit's digest from one run of a code command (None: no single digest came)."""
    found = [line[len(MARK) :].strip() for line in channel.splitlines() if line.startswith(MARK)]
    if len(found) != 1 or not _DIGEST.fullmatch(found[0]):
        return None
    return found[0]


def enclosing(source: str, line: int, grammar: str) -> list[Any]:
    """The syntax nodes holding the first token of `line` (1-based), innermost first."""
    from tree_sitter_language_pack import get_parser

    rows = source.splitlines()
    if not 0 < line <= len(rows):
        return []
    text = rows[line - 1]
    column = len(text.encode()) - len(text.lstrip().encode())
    tree = get_parser(grammar).parse(source.encode())  # type: ignore[arg-type]
    node = tree.root_node.descendant_for_point_range((line - 1, column), (line - 1, column))
    chain = []
    while node is not None:
        chain.append(node)
        node = node.parent
    return chain


def attributes(node: Any) -> str:
    """The text of the attributes (`#[...]`, `@...`) written right before `node`."""
    found = []
    sibling = node.prev_named_sibling
    while sibling is not None and sibling.type in ("attribute_item", "line_comment"):
        found.append(sibling.text.decode("utf-8", "replace"))
        sibling = sibling.prev_named_sibling
    return " ".join(found)
