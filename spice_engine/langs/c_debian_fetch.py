"""Inside the install's sandbox: Debian packages fetched and unpacked into the environment.

`python3 -I -S c_debian_fetch.py ROOT CACHE MIRROR SUITE ARCH HOST_PACKAGES NAME...` fetches
the suite's signed release file (checked with `gpgv` against the machine's Debian keyring),
its package list (checked against the release file's SHA-256), each package named and every
dependency the machine does not have (checked against the list's SHA-256), unpacks them with
`dpkg-deb -x` (no maintainer script runs) into ROOT, points the absolute paths of their
scripts, configuration and links at ROOT where only ROOT has the file, and writes ROOT/env.sh
for the tests' shell. A name the suite does not have ends the install with one line,
`missing_dependency: <name>`.

It runs none of the repository's code and reads none of its settings (only HOST_PACKAGES, the
machine's own list, written by the host): what it leaves in CACHE may serve every environment
of the repository. The standard library only.
"""

from __future__ import annotations

import hashlib
import lzma
import os
import re
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"
_PATH = re.compile(rb"(?<![\w./+@-])/usr/[\w.+@/-]+")
_SCRIPT_LIMIT = 4 << 20
_MERGED_LIMIT = 500
_ASSIGN = re.compile(r"^\s*(\w+)=[\"']?([\w.+-]+)[\"']?\s*$", re.M)
Index = dict[str, dict[str, str]]


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=120) as answer:
        data: bytes = answer.read()
        return data


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _release(mirror: str, suite: str, arch: str) -> str:
    """The SHA-256 of the suite's `main` package list, from its signed release file."""
    signed = _get(f"{mirror}/dists/{suite}/InRelease")
    with tempfile.TemporaryDirectory() as home:
        (Path(home) / "InRelease").write_bytes(signed)
        subprocess.run(
            ["gpgv", "--homedir", home, "--keyring", KEYRING, f"{home}/InRelease"],
            check=True,
            capture_output=True,
        )
    wanted = f"main/binary-{arch}/Packages.xz"
    in_sha256 = False
    for line in signed.decode("utf-8", "replace").splitlines():
        if not line.startswith(" "):
            in_sha256 = line.strip() == "SHA256:"
        elif in_sha256 and line.split()[-1] == wanted:
            return line.split()[0]
    raise SystemExit(f"the release file of {suite} lists no {wanted}")


def _index(mirror: str, suite: str, arch: str, cache: Path) -> Index:
    """Package name (and each name it provides) -> its fields, from the checked list."""
    digest = _release(mirror, suite, arch)
    kept = cache / f"Packages-{suite}-{arch}-{digest[:16]}.xz"
    data = kept.read_bytes() if kept.is_file() else b""
    if _sha256(data) != digest:
        data = _get(f"{mirror}/dists/{suite}/main/binary-{arch}/Packages.xz")
        if _sha256(data) != digest:
            raise SystemExit("the package list does not match its signed release file")
        kept.write_bytes(data)
    found: Index = {}
    for para in lzma.decompress(data).decode("utf-8", "replace").split("\n\n"):
        fields = dict(
            (k, v.strip()) for k, _, v in (ln.partition(":") for ln in para.splitlines()) if k
        )
        name = fields.get("Package")
        if not name:
            continue
        found.setdefault(name, fields)
        for virtual in _names(fields.get("Provides", "")):
            found.setdefault(virtual, fields)
    return found


def _names(field: str) -> list[str]:
    return [re.split(r"[\s:(]", a.strip(), maxsplit=1)[0] for a in field.split(",") if a.strip()]


def _closure(wanted: list[str], index: Index, host: set[str]) -> list[dict[str, str]]:
    """The packages to fetch: those named and their dependencies, less what the machine has."""
    chosen: dict[str, dict[str, str]] = {}
    todo = list(wanted)
    while todo:
        name = todo.pop()
        if name in host:
            continue
        fields = index.get(name)
        if fields is None:
            print(f"missing_dependency: {name}")
            raise SystemExit(3)
        if fields["Package"] in chosen:
            continue
        chosen[fields["Package"]] = fields
        for group in f"{fields.get('Pre-Depends', '')},{fields.get('Depends', '')}".split(","):
            options = _names(group.replace("|", ","))
            if options and not any(o in host or o in chosen for o in options):
                todo.append(next((o for o in options if o in index), options[0]))
    return list(chosen.values())


def _fetch(mirror: str, fields: dict[str, str], cache: Path) -> Path:
    kept = cache / Path(fields["Filename"]).name
    if kept.is_file() and _sha256(kept.read_bytes()) == fields["SHA256"]:
        return kept
    data = _get(f"{mirror}/{fields['Filename']}")
    if _sha256(data) != fields["SHA256"]:
        raise SystemExit(f"{fields['Filename']} does not match the package list")
    kept.write_bytes(data)
    return kept


def _relocated(root: Path, path: bytes) -> bytes:
    """`path` (an absolute /usr path in a file of ROOT) moved into ROOT where ROOT has its
    longest existing part and the machine does not. The whole path may end in part of a name
    (`'/usr/share/aclocal-' . $APIVERSION`): a name starting so counts. A folder both have
    (`/usr/share/aclocal`: the machine's macros and libtool's) becomes ROOT's, holding links
    to the machine's files too."""
    parts = path.split(b"/")
    for n in range(len(parts), 3, -1):
        head = b"/".join(parts[:n])
        partial = n == len(parts)
        if not _has(bytes(root) + head, partial):
            continue
        if not _has(head, partial):
            return bytes(root) + path
        if partial and _merged(Path(os.fsdecode(head)), Path(os.fsdecode(bytes(root) + head))):
            return bytes(root) + path
        return path
    return path


def _merged(theirs: Path, ours: Path) -> bool:
    """`ours` given a link to each entry of `theirs` it lacks, when both are small folders."""
    if not (theirs.is_dir() and ours.is_dir()) or theirs.is_symlink() or ours.is_symlink():
        return False
    entries = os.listdir(theirs)
    if len(entries) > _MERGED_LIMIT:
        return False
    for name in entries:
        if not os.path.lexists(ours / name):
            (ours / name).symlink_to(theirs / name)
    return True


def _has(path: bytes, partial: bool) -> bool:
    if os.path.lexists(path):
        return True
    folder, _, start = path.rpartition(b"/")
    try:
        return partial and bool(start) and any(n.startswith(start) for n in os.listdir(folder))
    except OSError:
        return False


def relocate(root: Path) -> None:
    """Links and text files of ROOT that name /usr paths only ROOT has, pointed into ROOT."""
    for folder, _, names in os.walk(root):
        for name in names:
            path = Path(folder, name)
            if path.is_symlink():
                _relink(root, path)
            elif name.endswith(".m4f") or path.stat().st_size > _SCRIPT_LIMIT:
                continue  # frozen m4 state counts its bytes: a longer path would break it
            else:
                data = path.read_bytes()
                if b"\0" in data[:8192]:
                    continue
                new = _PATH.sub(lambda m: _relocated(root, m.group(0)), data)
                if name.endswith(".pc"):
                    new = re.sub(rb"(?m)^prefix=/usr", b"prefix=" + bytes(root) + b"/usr", new)
                if new != data:
                    path.write_bytes(new)


def _relink(root: Path, link: Path) -> None:
    target = os.readlink(link)
    if target.startswith("/"):
        if os.path.lexists(f"{root}{target}") and not os.path.lexists(target):
            link.unlink()
            link.symlink_to(f"{root}{target}")
        return
    if link.exists():
        return
    seen = os.path.normpath(os.path.join("/", os.path.relpath(link.parent, root), target))
    if os.path.exists(seen):  # the library is the machine's, its development link is ours
        link.unlink()
        link.symlink_to(seen)


def alternatives(deb: Path, root: Path) -> None:
    """The links Debian's alternatives would make (`/usr/bin/aclocal` -> `aclocal-1.16`):
    read from the package's `postinst`, never run, the links made in ROOT."""
    with tempfile.TemporaryDirectory() as control:
        subprocess.run(["dpkg-deb", "-e", str(deb), control], check=True)
        script = Path(control, "postinst")
        text = script.read_text(errors="replace") if script.is_file() else ""
    lines = [ln for ln in text.replace("\\\n", " ").splitlines() if not ln.lstrip().startswith("#")]
    values = dict(_ASSIGN.findall("\n".join(lines)))
    for line in lines:
        if "update-alternatives" not in line or "--install" not in line:
            continue
        line = re.sub(r"\$\{?(\w+)\}?", lambda m: values.get(m.group(1), m.group(0)), line)
        pairs = re.findall(r"--install\s+(/\S+)\s+\S+\s+(/\S+)", line)
        pairs += re.findall(r"--slave\s+(/\S+)\s+\S+\s+(/\S+)", line)
        for link, target in pairs:
            made = Path(f"{root}{link}")
            if "$" not in link + target and not os.path.lexists(made):
                made.parent.mkdir(parents=True, exist_ok=True)
                made.symlink_to(target)


def env_script(root: Path, arch_dir: str) -> str:
    """The tests' shell settings for what ROOT holds."""
    usr = root / "usr"
    lines = [f'PATH="{usr}/bin:$PATH"']
    lists = {
        "CPATH": [usr / "include", usr / "include" / arch_dir],
        "LIBRARY_PATH": [usr / "lib" / arch_dir, usr / "lib"],
        "LD_LIBRARY_PATH": [usr / "lib" / arch_dir, usr / "lib"],
        "PKG_CONFIG_PATH": [usr / "lib" / arch_dir / "pkgconfig", usr / "share" / "pkgconfig"],
        "PYTHONPATH": [usr / "lib" / "python3" / "dist-packages"],
    }
    for name, folders in lists.items():
        there = ":".join(str(f) for f in folders if f.is_dir())
        if there:
            lines.append(f'{name}="{there}${{{name}:+:${name}}}"')
    single = {"M4": usr / "bin" / "m4", "BISON_PKGDATADIR": usr / "share" / "bison"}
    lines += [f'{name}="{path}"' for name, path in single.items() if path.exists()]
    lines.append(f'CMAKE_PREFIX_PATH="{usr}${{CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}}"')
    names = [line.split("=", 1)[0] for line in lines]
    return "\n".join([*lines, f"export {' '.join(names)}", ""])


def main(argv: list[str]) -> int:
    root, cache, mirror, suite, arch, host_list, *wanted = argv[1:]
    root_path, cache_path = Path(root), Path(cache)
    root_path.mkdir(parents=True, exist_ok=True)
    cache_path.mkdir(parents=True, exist_ok=True)
    host = set(Path(host_list).read_text().split())
    index = _index(mirror, suite, arch, cache_path)
    fetched = _closure(wanted, index, host)
    for fields in fetched:
        deb = _fetch(mirror, fields, cache_path)
        subprocess.run(["dpkg-deb", "-x", str(deb), root], check=True)
        alternatives(deb, root_path)
        print(f"unpacked {fields['Package']} {fields.get('Version', '')}", flush=True)
    relocate(root_path)
    triplet = {"amd64": "x86_64-linux-gnu", "arm64": "aarch64-linux-gnu"}.get(arch, arch)
    (root_path / "env.sh").write_text(env_script(root_path, triplet))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
