"""Commands next to the issue's own: each of the reporter's program calls again with one of its
arguments left out. A reporter shows the input that goes wrong (`jq -n --jsonargs '$ARGS' 123
'invalid json'`); the fix must still do right by the input beside it (`… '$ARGS' 123`), which
the tests may never give: jq-2658's fix dies on invalid JSON, and a wrong fix that also drops
every valid argument from `$ARGS` passes its tests. A survivor whose output differs from the
fix's on such a neighbour is wrong on input one step from the issue's, as the differential
run's neighbours of the tests' calls are (spice_engine.strength.shell_examples runs them
after the issue's commands, each bounded in time: an argument left out may make a program wait).

Only calls the shell reads as plain words: a pipeline's program segment with its arguments,
perhaps fed by `<` or `<<<`; a command with anything else (another redirection, `$(…)`,
`&&`, a heredoc) is left as the reporter wrote it. A feed's target is never left out, nor an
option that may take the word after it, nor that word.
"""

from __future__ import annotations

import posixpath
import shlex
from collections.abc import Collection, Sequence

PER_COMMAND = 6
MOST = 12
"""How many neighbours one command, and the whole session, may add (each is one more run of
the program under the fix, twice, and under each survivor)."""
_PIPE = "|"
_FEEDS = {"<", "<<<"}
"""The redirections a neighbour keeps as written, with their targets."""


def neighbours(commands: Sequence[str], names: Collection[str]) -> list[str]:
    """Each command of `commands` that runs one of the programs `names` with one of its
    arguments left out, in order, none already among `commands`."""
    found: list[str] = []
    for command in commands:
        for near in _left_out(command, set(names))[:PER_COMMAND]:
            if near not in commands and near not in found:
                found.append(near)
    return found[:MOST]


def _left_out(command: str, names: set[str]) -> list[str]:
    tokens = _tokens(command)
    if tokens is None:
        return []
    out: list[str] = []
    start = 0
    for end in [i for i, t in enumerate(tokens) if t == _PIPE] + [len(tokens)]:
        segment = range(start, end)
        if segment and _unquoted(tokens[start]) in names:
            for i in _arguments(tokens, segment):
                out.append(" ".join(tokens[:i] + tokens[i + 1 :]))
        start = end + 1
    return out


def _arguments(tokens: list[str], segment: range) -> list[int]:
    """The indexes of a program segment's arguments that stand alone (past its name, not a
    feed's target): an option the next word does not follow, and a word no bare option
    precedes. Which options take a value is the program's to say: `rg -m 1` left without `-m`
    searches for `1`, so an option before a word, and the word, stay."""
    fed = {i + 1 for i in segment if tokens[i] in _FEEDS}
    words = [i for i in segment[1:] if tokens[i] not in _FEEDS and i not in fed]
    alone: list[int] = []
    for i in words:
        after = tokens[i + 1] if i + 1 in words else ""
        if _option(tokens[i]):
            if "=" in tokens[i] or not after or _option(after):
                alone.append(i)
        elif not (i - 1 in words and _option(tokens[i - 1]) and "=" not in tokens[i - 1]):
            alone.append(i)
    return alone


def _option(word: str) -> bool:
    return word.startswith("-") and word not in ("-", "--")


def _tokens(command: str) -> list[str] | None:
    """The command's words as written (quotes kept), or None when it is more than words, pipes
    and feeds, or when its words joined again would not read as the shell read the original."""
    lexer = shlex.shlex(command, posix=False, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
        again = shlex.split(" ".join(tokens))
        words = shlex.split(command)
    except ValueError:
        return None
    if "\n" in command or again != words:
        return None
    for token in tokens:
        if _punctuation(token) and token != _PIPE and token not in _FEEDS:
            return None
        if "$(" in token or "`" in token:
            return None
    return tokens


def _punctuation(token: str) -> bool:
    return bool(token) and all(c in "();<>|&" for c in token)


def _unquoted(word: str) -> str:
    try:
        parts = shlex.split(word)
    except ValueError:
        return ""
    return posixpath.basename(parts[0]) if len(parts) == 1 else ""
