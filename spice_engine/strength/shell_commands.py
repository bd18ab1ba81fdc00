"""The shell commands an issue gives as its example, for a project that builds a program: what
a reporter typed (`$ jq -n '[1,2,3] | .[1.5] = 42'`, `echo needle | rg -w needle`), read from
the issue's text, to be run again with the program built from the fix and from each survivor
(spice_engine.strength.shell_examples).

A command counts when it is typed after a prompt (`$ `, `% `, `> `) in a code block, or, in a block
naming a shell or nothing and in inline code, when one of the commands of its line runs a
program the project builds (`programs`, by name: `./jq`, `target/debug/rg` and `rg` alike).
Prompted commands that only prepare (`mkdir`, `echo needle > file`, `cd`) are kept in their
order: they run in one folder, one after another, as the reporter's session did; a prompted
`cat FILE` followed by what it printed writes FILE with it (the reporter's input shown). The issue's
whole session is dropped when no command runs one of the programs. Installs, fetches and
builds (`cargo install`, `git clone`, `make`) are left out: the sandbox has no network and the
program is ours to build. The text is hostile: it only ever runs in the sandbox, like the
repository's tests.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Iterable
from typing import NamedTuple

from markdown_it import MarkdownIt

SHELL_FENCES = {"", "sh", "shell", "bash", "console", "zsh", "shell-session", "shellsession"}
MAX_COMMANDS = 24
MAX_CHARS = 2000
"""What one command may hold (a reporter's pasted input included)."""
LEFT_OUT = {
    "git", "wget", "curl", "brew", "apt", "apt-get", "dnf", "yum", "pacman", "sudo", "cargo",
    "rustup", "make", "cmake", "meson", "ninja", "gcc", "cc", "clang", "go", "npm", "npx",
    "pip", "pip3", "docker", "gdb", "lldb", "valgrind", "vim", "vi", "nano", "emacs", "less",
    "more", "man", "open", "ssh", "scp", "ls",
}  # fmt: skip
"""Commands that install, fetch, build, debug, edit or browse: no part of an example here."""
SETUP = {"mkdir", "cd", "echo", "printf", "touch", "cat", "export", "cp", "mv", "rm", "ln"}
"""What a script's lines besides the program's may do: make the files and folders it reads
(a line of another kind in a shell's block is more likely output: `astroid 2.9.0`)."""
_PROMPT = re.compile(r"^\s*[$%>]\s+(.*)$")
_CONTENT_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_./-]*$")
HEREDOC_END = "SPICE_EXAMPLE_EOF"
_FILE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_./-]*\.[A-Za-z0-9]{1,5}$")
_FENCES = {
    ".py": {"python", "py", "python3"},
    ".json": {"json"},
    ".toml": {"toml"},
    ".ini": {"ini"},
    ".cfg": {"ini", "cfg"},
    ".yaml": {"yaml", "yml"},
    ".yml": {"yaml", "yml"},
    ".txt": {"text", "txt"},
    ".rst": {"rst", "rest"},
    ".c": {"c"},
    ".rs": {"rust", "rs"},
}
"""A file's extension -> the fences a block holding it may name (when no prose names it)."""
_SEPARATORS = {"|", "||", "&&", ";", "&", "(", ")", "|&", ";;", "!"}
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_VERSION = re.compile(r"^v?\d+(\.\d+)+[\w.+-]*,?$")


def shell_commands(problem: str, programs: Iterable[str]) -> list[str]:
    """The issue's commands in its order, each program written by its bare name ([] when
    none runs one of `programs`, the names of what the project builds)."""
    names = {p for p in programs if p}
    if not names:
        return []
    found: list[str] = []
    blocks: list[Block] = []  # the blocks that hold no command: a file's text, or output
    said = ""  # the prose last read before a block
    for token in MarkdownIt("commonmark").parse(problem):
        if token.type in ("fence", "code_block"):
            info = token.info.strip().split(maxsplit=1)[0].lower() if token.info.strip() else ""
            commands = _block(token.content, info, names)
            found += commands
            if not commands:
                blocks.append(Block(info, token.content, said))
        elif token.type == "inline":
            said = token.content
            for child in token.children or []:
                # A bare name in inline code is prose about the program, not a command; so is
                # a version (`pylint 2.12.2`).
                text = child.content.strip()
                inline = child.type == "code_inline" and " " in text
                if inline and _runs(text, names) and not _banner(text):
                    found.append(text)
    kept = [_bare(c, names) for c in found if len(c) <= MAX_CHARS and _kept(c)]
    if not any(_runs(c, names) for c in kept):
        return []
    return _with_files(list(dict.fromkeys(kept))[:MAX_COMMANDS], blocks)


class Block(NamedTuple):
    info: str
    content: str
    said: str
    """The prose right before it (where a reporter names the file it holds)."""


def _with_files(commands: list[str], blocks: list[Block]) -> list[str]:
    """`commands` with each file they name and none makes written first, from the block that
    holds it: one the prose before it, or its own first line, names (`# content of
    test_x.py`), else the one block in the file's language (a reporter's `test.py` shown in
    the issue's one Python block)."""
    out: list[str] = []
    made: set[str] = set()
    left = list(blocks)
    for command in commands:
        words = _arguments(command)
        made |= {w for w in words if f"> {w}" in command or command.startswith(("touch", "mkdir"))}
        for name in [w for w in words if _FILE.match(w) and ".." not in w.split("/")]:
            if name in made:
                continue
            block = _holding(name, left)
            # A block holding our heredoc's end would end the file there, the rest run.
            if block is not None and HEREDOC_END not in block.content:
                left.remove(block)
                out.append(_writing(name, block.content.rstrip("\n").split("\n")))
            made.add(name)
        out.append(command)
    return out


def _holding(name: str, blocks: list[Block]) -> Block | None:
    base = posixpath.basename(name)
    named = [b for b in blocks if base in b.said or base in b.content.split("\n", 1)[0]]
    if named:
        return named[0]
    fences = _FENCES.get(posixpath.splitext(name)[1].lower())
    same = [b for b in blocks if fences is not None and b.info in fences]
    return same[0] if len(same) == 1 else None


def _arguments(command: str) -> list[str]:
    try:
        return shlex.split(command)[1:]
    except ValueError:
        return []


def _block(content: str, info: str, names: set[str]) -> list[str]:
    """A block's commands: its prompted lines, or, in a shell's block, the lines that run a
    program (a backslash at a line's end joins the next). A prompted `cat FILE` followed by
    what it printed (the reporter showing their input) writes that file first."""
    lines = _joined(content.splitlines())
    commands: list[str] = []
    shown: dict[int, list[str]] = {}  # a prompted command's index -> the lines it printed
    for line in lines:
        match = _PROMPT.match(line)
        if match and match.group(1).strip():
            commands.append(match.group(1).strip())
        elif commands:
            shown.setdefault(len(commands) - 1, []).append(line)
    if commands:  # what sets up the program's input, and the program's runs (`tox --version`,
        # `lsb_release -a`: the reporter's environment, the same under every survivor)
        written = [_written(c, shown.get(n, [])) for n, c in enumerate(commands)]
        return [c for c in written if _runs(c, names | SETUP)]
    if info not in SHELL_FENCES:
        return []
    lines = [line for line in lines if not _banner(line)]
    if info and any(_runs(line, names) for line in lines):  # a script: its setup with it
        return [line.strip() for line in lines if _runs(line, names | SETUP)]
    return [line.strip() for line in lines if _runs(line, names)]


def _written(command: str, printed: list[str]) -> str:
    """`cat FILE` and what it printed as the command writing FILE (any other unchanged)."""
    try:
        parts = shlex.split(command)
    except ValueError:
        return command
    if len(parts) != 2 or parts[0] != "cat":
        return command
    name = parts[1]
    if not _CONTENT_NAME.match(name) or ".." in name.split("/") or not printed:
        return command
    return _writing(name, printed) if HEREDOC_END not in "\n".join(printed) else command


def _writing(name: str, lines: list[str]) -> str:
    """The command writing `lines` to the file `name` (its folder made first)."""
    body = "\n".join(lines).rstrip("\n")
    folder = posixpath.dirname(name)
    make = f"mkdir -p {shlex.quote(folder)} && " if folder else ""
    return f"{make}cat > {shlex.quote(name)} <<'{HEREDOC_END}'\n{body}\n{HEREDOC_END}"


def _joined(lines: list[str]) -> list[str]:
    out: list[str] = []
    carry = ""
    for line in lines:
        if line.rstrip().endswith("\\"):
            carry += line.rstrip()[:-1] + " "
            continue
        out.append(carry + line)
        carry = ""
    return out + ([carry] if carry else [])


def _words(command: str) -> list[str] | None:
    """The words that run something (each pipeline's and list's first, past `VAR=value`), or
    None where the line is no shell (an unclosed quote: output, or prose)."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:
        return None
    words: list[str] = []
    start = True
    for token in tokens:
        if token in _SEPARATORS:
            start = True
        elif start and not _ASSIGNMENT.match(token):
            words.append(token)
            start = False
    return words


def _runs(command: str, names: set[str]) -> bool:
    words = _words(command.strip())
    return bool(words) and any(posixpath.basename(w) in names for w in words or [])


def _kept(command: str) -> bool:
    """Not an install, a fetch, a build, and a whole command (a quote the block's line break
    left open is none)."""
    words = _words(command)
    return words is not None and bool(words) and posixpath.basename(words[0]) not in LEFT_OUT


def _banner(line: str) -> bool:
    """Whether an unprompted line is what `--version` printed (`pylint 2.12.2` in a shell's
    block of an issue's "version" section): a program's name and version numbers only."""
    arguments = _arguments(line)
    return bool(arguments) and all(_VERSION.match(a) for a in arguments)


def _bare(command: str, names: set[str]) -> str:
    """`command` with each program written by a path (`./jq`, `target/debug/rg`, the reporter's
    `/usr/bin/jq`) written by its name: the one on the sandbox's PATH is the build's."""
    for word in set(_words(command) or []):
        base = posixpath.basename(word)
        if base in names and word != base:
            command = re.sub(rf"(?<![^\s|;&(]){re.escape(word)}(?=[\s|;&)]|$)", base, command)
    return command
