"""A Maven reactor as the host sees it: which modules a change selects, and which modules an
install left out, read from the reactor summary Maven prints at the end of a multi-module build.

The summary is text the sandboxed build printed (a plugin could print one of its own): it is
read conservatively. Every line must be a summary line naming one module of the tree's own poms,
and anything unclear means nothing is left out and the install failed, as it did before. What a
forged summary can do is leave modules out of the tests, which the build could do anyway.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from xml.etree import ElementTree

from spice_engine.langs.base import Files
from spice_engine.langs.manifests import named, owner

FAILED = "its build failed here"
NEEDS_FAILED = "it needs a module left out"
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
# `[INFO] core ....... SUCCESS [  1.234 s]`; a long name has no dots, a skipped module no time.
_LINE = re.compile(
    r"\[INFO\] (?P<label>\S.*?) (?:\.+ )?(?P<status>SUCCESS|FAILURE|SKIPPED)(?: \[[^\]\n]*\])?"
)
_RULE = re.compile(r"\[INFO\] -{20,}")
_PROPERTY = re.compile(r"\$\{([\w.]+)\}")


def modules(files: Files) -> list[str]:
    """Folders holding a pom ("" the top)."""
    return sorted({posixpath.dirname(p) for p in named(files, "pom.xml")})


def owners(files: Files, changed: list[str]) -> set[str | None]:
    """The module owning each changed file (None: a file outside every module)."""
    poms = modules(files)
    return {owner(path, poms) for path in changed}


def reactor_part(files: Files, changed: list[str], left_out: list[str]) -> str:
    """`-pl` the modules owning the changed files, `-am` what they need built, `-amd` what
    depends on them, and none of the modules left out (`!module`, applied after `-am`/`-amd`);
    the whole reactor but those when a change is the top's own."""
    mine = owners(files, changed)
    skip = [f"!{m}" for m in sorted(left_out)]
    if not mine or None in mine or "" in mine:
        return f"-pl {shlex.quote(','.join(skip))} " if skip else ""
    chosen = sorted(str(m) for m in mine)
    return f"-pl {shlex.quote(','.join([*chosen, *skip]))} -am -amd "


def summary(log: str) -> dict[str, str] | None:
    """Label -> SUCCESS, FAILURE or SKIPPED, from the log's last reactor summary; None when it
    has none (a one-module build prints none) or one not read to its end."""
    lines = [_ANSI.sub("", line).rstrip() for line in log.splitlines()]
    starts = [i for i, line in enumerate(lines) if line.startswith("[INFO] Reactor Summary")]
    if not starts:
        return None
    found: dict[str, str] = {}
    for line in lines[starts[-1] + 1 :]:
        if line == "[INFO]":
            continue
        if _RULE.fullmatch(line):
            return found or None
        hit = _LINE.fullmatch(line)
        if hit is None or hit["label"] in found:
            return None
        found[hit["label"]] = hit["status"]
    return None


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def display_name(pom: str) -> str | None:
    """What Maven calls the module in its summary: its own `<name>` (not inherited), else its
    artifactId; None when the name takes a property this cannot resolve."""
    try:
        root = ElementTree.fromstring(pom)
    except ElementTree.ParseError:
        return None
    own = {_local(c.tag): (c.text or "").strip() for c in root}
    parent = {
        _local(c.tag): (c.text or "").strip() for p in root if _local(p.tag) == "parent" for c in p
    }
    values = {
        "artifactId": own.get("artifactId", ""),
        "groupId": own.get("groupId") or parent.get("groupId", ""),
        "version": own.get("version") or parent.get("version", ""),
    }
    values |= {f"project.{k}": v for k, v in values.items()}
    name = " ".join((own.get("name") or values["artifactId"]).split())
    resolved = _PROPERTY.sub(lambda m: values.get(m.group(1)) or m.group(0), name)
    return resolved if resolved and "${" not in resolved else None


def _module_of(label: str, names: dict[str, str | None]) -> str | None:
    """The one module the label names: by its name, else by its name and a version (Maven adds
    each module's version when the reactor's versions differ)."""
    exact = [m for m, n in names.items() if n == label]
    if not exact:
        exact = [
            m
            for m, n in names.items()
            if n and label.startswith(f"{n} ") and " " not in label[len(n) + 1 :]
        ]
    return exact[0] if len(exact) == 1 else None


def left_out(files: Files, changed: list[str], log: str) -> dict[str, str] | None:
    """Module -> why, of the modules a failed install did not build, when every module the
    changes need (the modules owning them; every module when no change names one) was built;
    None otherwise, or when the summary is not clear."""
    statuses = summary(log)
    if statuses is None:
        return None
    names = {
        m: display_name(files.text(posixpath.join(m, "pom.xml")) or "") for m in modules(files)
    }
    built: dict[str, str] = {}
    for label, status in statuses.items():
        module = _module_of(label, names)
        if module is None or module in built:
            return None
        built[module] = status
    needed = {m for m in owners(files, changed) if m} or set(built)
    if any(built.get(m) != "SUCCESS" for m in needed):
        return None
    why = {"FAILURE": FAILED, "SKIPPED": NEEDS_FAILED}
    out = {m: why[s] for m, s in built.items() if s != "SUCCESS"}
    return out if out and "" not in out else None
