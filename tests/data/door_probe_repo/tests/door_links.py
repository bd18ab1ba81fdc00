"""Row 2 of issue 34: once the tests are done, the fixed source file becomes a link to a host
file, so that the host, writing a mutant or the fix back into the tree, writes through it.

The link may name the host path itself, climb to it from wherever the tree is (`../` past the
root, then the path: no need to know where the host keeps the tree), or name a file not there
yet, which the host's write then creates (a `.pth` in the App's venv runs at every start)."""

import os

from door_find import probe, tree

SOURCE = "victim/__init__.py"
UP = "../" * 40


def _link(target, name):
    path = os.path.join(tree(), SOURCE)
    try:
        if os.path.lexists(path):
            os.remove(path)
        os.symlink(target, path)
        probe(name, "linked")
    except OSError as exc:
        probe(name, f"blocked: {exc.strerror}")


def to_host_file(targets):
    _link(targets["victim"], "link_abs")


def up_to_host_file(targets):
    _link(UP + targets["victim"].lstrip("/"), "link_rel")


def to_app_venv(targets):
    _link(targets["pth"], "link_pth")
