"""Where the host's folders are, seen from inside the sandbox, and what each attempt gave.

The worktree's own git files name the worker's paths (`.git` says `gitdir: <host path>`, and
that directory's `gitdir` file names the worktree on the host); the mount table does too."""

import os

JOB = "/spice/job"
"""Where the sandbox shows the job's scratch (the host's worktree lies under it today)."""
PROBES = []


def probe(name, result):
    PROBES.append(f"{name}={result}")


def tree():
    """The worktree, as the tests see it."""
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def mount_sources():
    """Mount point -> what it shows of its file system: the host's path, for a bind."""
    found = {}
    try:
        with open("/proc/self/mountinfo") as fh:
            for line in fh:
                fields = line.split()
                found[fields[4]] = fields[3]
    except OSError:
        pass
    return found


def host_tree():
    """The worktree's path on the host."""
    try:
        with open(os.path.join(tree(), ".git")) as fh:
            gitdir = fh.read().split("gitdir:", 1)[1].strip()
        with open(os.path.join(gitdir, "gitdir")) as fh:
            return os.path.dirname(fh.read().strip())
    except (OSError, IndexError):
        return mount_sources().get(tree())


def walk(top, depth):
    """Every directory under `top` (itself included), `depth` levels down at most."""
    found = [top] if os.path.isdir(top) else []
    for at in found:
        if at.count("/") - top.count("/") >= depth:
            continue
        try:
            names = sorted(os.listdir(at))
        except OSError:
            continue
        found += [
            os.path.join(at, n)
            for n in names
            if os.path.isdir(os.path.join(at, n)) and not os.path.islink(os.path.join(at, n))
        ]
    return found


def tree_in_job():
    """Where the job's scratch shows the worktree (None: it does not)."""
    for place in walk(JOB, 3):
        try:
            if os.path.samefile(place, tree()):
                return place
        except OSError:
            continue
    return None


def host_job():
    """The job's scratch on the host: the worktree's host path less its place in the scratch,
    else the mount table."""
    host, place = host_tree(), tree_in_job()
    rel = os.path.relpath(place, JOB) if place else None
    if host and rel and host.endswith("/" + rel):
        return host[: -len(rel) - 1]
    return mount_sources().get(JOB)


def on_host(path):
    """The host's path of `path` (in the job's scratch), or None."""
    job = host_job()
    if job and (path == JOB or path.startswith(JOB + "/")):
        return job + path[len(JOB) :]
    return None
