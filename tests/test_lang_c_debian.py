"""The Debian packages of a C or C++ environment: which are fetched, their alternatives' links
read from `postinst` (never run), their paths moved into the environment, and the settings the
tests' shell gets. The fetch itself is exercised against Debian's mirror when it is reachable."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from spice_engine.langs import c_debian_fetch as fetch


def test_dependencies_the_machine_has_are_not_fetched(capsys: pytest.CaptureFixture[str]) -> None:
    index = {
        "autoconf": {"Package": "autoconf", "Depends": "perl (>> 5.005), m4 (>= 1.4.13)"},
        "m4": {"Package": "m4", "Depends": "libc6 (>= 2.34)"},
        "libtool": {"Package": "libtool", "Depends": "gcc | c-compiler, autotools-dev"},
        "autotools-dev": {"Package": "autotools-dev"},
        "c-compiler": {"Package": "gcc-12"},
    }
    chosen = fetch._closure(["autoconf", "libtool"], index, {"perl", "libc6", "gcc"})
    assert sorted(f["Package"] for f in chosen) == ["autoconf", "autotools-dev", "libtool", "m4"]
    with pytest.raises(SystemExit) as stop:
        fetch._closure(["no-such-package"], index, set())
    assert stop.value.code == 3
    assert capsys.readouterr().out == "missing_dependency: no-such-package\n"


def test_paths_only_the_environment_has_are_moved_into_it(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "usr/share/spice-tool-1.2").mkdir(parents=True)
    (root / "usr/share/spice-tool-1.2/lib.pm").write_text("")
    (root / "usr/bin").mkdir(parents=True)
    script = root / "usr/bin/spice-tool"
    script.write_text(
        "#!/usr/bin/env perl\n"
        "use lib '/usr/share/spice-tool-1.2';\n"
        "my $dir = '/usr/share/spice-tool-' . $version;\n"
        "my $other = '/usr/share/not-here-either';\n"
    )
    (root / "usr/lib/pkgconfig").mkdir(parents=True)
    (root / "usr/lib/pkgconfig/foo.pc").write_text("prefix=/usr\nlibdir=${prefix}/lib\n")
    (root / "usr/bin/shell").symlink_to("sh")  # the machine's program, our name for it
    fetch.relocate(root)
    assert script.read_text() == (
        "#!/usr/bin/env perl\n"
        f"use lib '{root}/usr/share/spice-tool-1.2';\n"
        f"my $dir = '{root}/usr/share/spice-tool-' . $version;\n"
        "my $other = '/usr/share/not-here-either';\n"
    )
    assert (root / "usr/lib/pkgconfig/foo.pc").read_text().startswith(f"prefix={root}/usr\n")
    assert os.readlink(root / "usr/bin/shell") == "/usr/bin/sh"


def test_a_folder_both_have_becomes_the_environments_with_the_machines_files(
    tmp_path: Path,
) -> None:
    theirs, ours = tmp_path / "machine", tmp_path / "env"
    theirs.mkdir()
    ours.mkdir()
    (theirs / "pkg.m4").write_text("")
    (ours / "libtool.m4").write_text("")
    assert fetch._merged(theirs, ours)
    assert sorted(os.listdir(ours)) == ["libtool.m4", "pkg.m4"]
    assert (ours / "pkg.m4").resolve() == (theirs / "pkg.m4").resolve()


def test_the_tests_shell_gets_the_folders_the_environment_has(tmp_path: Path) -> None:
    (tmp_path / "usr/include").mkdir(parents=True)
    (tmp_path / "usr/bin").mkdir(parents=True)
    (tmp_path / "usr/bin/m4").write_text("")
    text = fetch.env_script(tmp_path, "x86_64-linux-gnu")
    assert f'CPATH="{tmp_path}/usr/include${{CPATH:+:$CPATH}}"' in text
    assert f'M4="{tmp_path}/usr/bin/m4"' in text and "LIBRARY_PATH" not in text
    assert text.splitlines()[-1].startswith("export PATH CPATH")


def test_alternatives_are_read_from_postinst_never_run(tmp_path: Path) -> None:
    if shutil.which("dpkg-deb") is None:
        pytest.skip("no dpkg-deb on this machine")
    package = tmp_path / "pkg"
    (package / "DEBIAN").mkdir(parents=True)
    (package / "DEBIAN/control").write_text(
        "Package: spice-tool\nVersion: 1\nArchitecture: all\nMaintainer: x <x@y>\n"
        "Description: a test\n"
    )
    postinst = package / "DEBIAN/postinst"
    postinst.write_text(
        "#!/bin/sh\nset -e\nver=1.2\ntouch /tmp/spice-postinst-ran\n"
        "update-alternatives --install /usr/bin/tool tool \\\n"
        "\t/usr/bin/tool-$ver 10 \\\n\t--slave /usr/bin/aux aux /usr/bin/aux-$ver\n"
        "# update-alternatives --install /usr/bin/no no /usr/bin/no-1 1\n"
    )
    postinst.chmod(0o755)
    deb = tmp_path / "spice-tool.deb"
    subprocess.run(["dpkg-deb", "--build", str(package), str(deb)], check=True, capture_output=True)
    root = tmp_path / "root"
    fetch.alternatives(deb, root)
    assert os.readlink(root / "usr/bin/tool") == "/usr/bin/tool-1.2"
    assert os.readlink(root / "usr/bin/aux") == "/usr/bin/aux-1.2"
    assert not (root / "usr/bin/no").is_symlink()
