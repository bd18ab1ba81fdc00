"""SNAPSHOT parent poms outside the tree: their release stands in for them in the local repository.

A project between releases often inherits from its organisation's parent at `X-SNAPSHOT`,
published only to a snapshot repository (oss.sonatype.org's), which the index proxy does not
reach and which drops old snapshots anyway. The release `X` is that snapshot's final state: the
install fetches it from Maven Central and installs it as `X-SNAPSHOT`, so the tree's poms build
unchanged. The build may then differ from the one at the commit's date where the parent moved
between the snapshot and the release (plugin versions, mostly); the install's log says so.
"""

from __future__ import annotations

import re
import shlex

from spice_engine.langs.base import Files
from spice_engine.langs.manifests import named

_PARENT = re.compile(r"<parent>(.*?)</parent>", re.S)
_FIELD = {
    f: re.compile(rf"<{f}>\s*([^<\s]+)\s*</{f}>") for f in ("groupId", "artifactId", "version")
}
# Gives the pom its own `<version>`: the one among the project's first elements (a
# dependency's further down may equal it) replaced, else one added after `</parent>` (a parent
# pom often inherits its version).
OWN_VERSION = r"""{ line[NR] = $0 }
END {
  for (i = 1; i <= NR && !nested; i++) {
    if (line[i] ~ /<parent>/) inp = 1
    if (!inp && line[i] ~ /<(properties|dependencyManagement|dependencies|build|profiles|modules)>/) nested = 1
    if (!nested && !inp && !own && index(line[i], "<version>" rel "</version>")) {
      sub("<version>" rel "</version>", "<version>" snap "</version>", line[i]); own = 1 }
    if (line[i] ~ /<\/parent>/ && !closed) { inp = 0; closed = i }
  }
  for (i = 1; i <= NR; i++) { print line[i]; if (!own && i == closed) print "<version>" snap "</version>" }
}"""
DEPENDENCY = "org.apache.maven.plugins:maven-dependency-plugin:3.6.1"
INSTALL = "org.apache.maven.plugins:maven-install-plugin:3.1.1"


def _field(text: str, name: str) -> str | None:
    found = _FIELD[name].search(text)
    return found.group(1) if found else None


def snapshot_parents(files: Files) -> list[tuple[str, str, str]]:
    """(groupId, artifactId, version) of each SNAPSHOT parent no pom of the tree is."""
    own: set[str] = set()
    parents: set[tuple[str, str, str]] = set()
    for pom in named(files, "pom.xml"):
        text = files.text(pom) or ""
        parent = _PARENT.search(text)
        outside = _PARENT.sub("", text)
        if (artifact := _field(outside, "artifactId")) is not None:
            own.add(artifact)
        if parent is None:
            continue
        coords = [_field(parent.group(1), f) for f in ("groupId", "artifactId", "version")]
        group, artifact, version = coords
        if group and artifact and version and version.endswith("-SNAPSHOT"):
            parents.add((group, artifact, version))
    return sorted(p for p in parents if p[1] not in own)


def stand_ins(files: Files, repo: str, settings: str) -> str:
    """Shell steps installing each SNAPSHOT parent's release under the SNAPSHOT's version (run
    outside the tree: Maven would read its unresolvable pom first)."""
    steps = []
    for group, artifact, snapshot in snapshot_parents(files):
        release = snapshot.removesuffix("-SNAPSHOT")
        released = f"{repo}/{group.replace('.', '/')}/{artifact}/{release}/{artifact}-{release}.pom"
        q = shlex.quote
        steps.append(
            f"echo 'spice: {group}:{artifact}:{snapshot} is no release; {release} stands in'\n"
            f'(cd "$TMPDIR" && mvn -s {settings} {DEPENDENCY}:get '
            f"-Dartifact={q(f'{group}:{artifact}:{release}:pom')} -Dtransitive=false && "
            f"awk -v rel={q(release)} -v snap={q(snapshot)} {q(OWN_VERSION)} {q(released)} "
            f"> stand-in.pom && mvn -s {settings} {INSTALL}:install-file -Dfile=stand-in.pom "
            "-DpomFile=stand-in.pom -Dpackaging=pom)\n"
        )
    return "".join(steps)
