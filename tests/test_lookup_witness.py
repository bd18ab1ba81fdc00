"""The sandbox notes the host names a test run looks up and cannot have (issue 48), in the
real sandbox: the note lands in the log between the lines printed around the lookup, names in
`/etc/hosts` and the users' database answer as they do without it, and the command's status
and results channel are its own. Then a googletest project whose `Net.Online` test fails for
want of the network, saying only `Value of: ...`, is validated end to end: that test is
reported as needing the network, apart from a test that fails both for another reason."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from spice_engine.langs.executor import Executor
from spice_engine.runs.session import Status
from spice_engine.runs.validator import validate
from spice_engine.validate.bubblewrap import Bubblewrap
from spice_engine.validate.lookup_witness import NOTE
from spice_engine.validate.offline import offline_line
from spice_engine.validate.sandbox_root import WITNESS_PYTHON
from tests.lang_projects import lang_job, project_instance

DATA = Path(__file__).parent / "data" / "lang_c" / "gtest_online"
LOOKUPS = """
import json, os, pwd, socket, sys

def ask(what, *args):
    try:
        return getattr(socket, what)(*args)
    except OSError as exc:
        return type(exc).__name__

print("[ RUN      ] Net.Online", file=sys.stderr, flush=True)
online = ask("getaddrinfo", "example.com", 80)
print("[  FAILED  ] Net.Online", file=sys.stderr, flush=True)
found = {
    "online": online,
    "local": sorted({a[4][0] for a in ask("getaddrinfo", "localhost", 80)}),
    "by_name": ask("gethostbyname_ex", "localhost"),
    "by_address": ask("gethostbyaddr", "127.0.0.1"),
    "user": pwd.getpwuid(os.getuid()).pw_name,
}
print(json.dumps(found))
sys.exit(3)
"""


def _sandbox(tmp_path: Path) -> Bubblewrap:
    box = Bubblewrap()
    if why := box.problem(tmp_path):
        pytest.skip(f"bubblewrap cannot run here: {why}")
    if not WITNESS_PYTHON.exists():
        pytest.skip(f"no {WITNESS_PYTHON}: no witness of lookups on this machine")
    return box


@pytest.mark.parametrize("channel", [False, True])
def test_a_lookup_is_noted_where_it_happens_and_nothing_else_changes(
    tmp_path: Path, channel: bool
) -> None:
    box = _sandbox(tmp_path)
    cmd = [str(WITNESS_PYTHON), "-I", "-c", LOOKUPS]
    runs = {
        lookups: box.run(
            cmd, binds=[], cwd=Path("/"), env={}, timeout_s=60, channel=channel, lookups=lookups
        )
        for lookups in (False, True)
    }
    for done in runs.values():
        assert done.returncode == 3, done.log
    said = {
        k: json.loads((d.channel if channel else d.log).splitlines()[-1]) for k, d in runs.items()
    }
    # Names the sandbox's /etc/hosts has, and the users' database, answer as without it.
    assert said[True] | {"online": ""} == said[False] | {"online": ""}
    assert said[True]["local"] and said[True]["user"]
    assert said[True]["online"] == said[False]["online"] == "gaierror"
    noted = runs[True].log.splitlines()
    assert noted.index(f"{NOTE}example.com]") == noted.index("[ RUN      ] Net.Online") + 1
    assert noted.count(f"{NOTE}example.com]") == 1  # localhost is not noted
    assert NOTE not in runs[False].log and NOTE not in runs[True].channel


def test_a_test_needing_the_network_is_reported_apart_end_to_end(tmp_path: Path) -> None:
    box = _sandbox(tmp_path)
    if shutil.which("g++") is None or not any(Path("/usr/lib").rglob("libgtest.a")):
        pytest.skip("no g++ or googletest (Debian's libgtest-dev) on this machine")
    row = project_instance(DATA, tmp_path / "repo", "acme/calcnet")
    job = lang_job(row, tmp_path / "repo", "cpp")
    done = validate(job, Executor(tmp_path / "envs", box), tmp_path / "scratch")
    record = done.validation
    assert record.status == Status.VALID, record.detail
    assert done.fail_to_pass == ["test/test::Calc.Mul"]
    assert "test/test::Net.Local" in done.pass_to_pass
    assert record.tests is not None
    assert record.tests.needs_network == ["test/test::Net.Online"]
    assert record.tests.failing_both == ["test/test::Calc.Wrong"]
    assert record.detail == offline_line(1)
