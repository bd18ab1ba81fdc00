"""Tests that fail for want of the network are told apart by what their runner reports of the
failure (issue 48): each language's `failure_texts` on a synthetic report of its runner, the
one matcher of network attempts (spice_engine.validate.offline), and the accounting that keeps
them out of `failing_both` and of both lists."""

from __future__ import annotations

import json

import pytest

from spice_engine.langs import languages
from spice_engine.langs.base import Plan, Toolchain
from spice_engine.langs.c_reports import MARK
from spice_engine.langs.capabilities import failure_texts
from spice_engine.langs.java import REPORT
from spice_engine.langs.python_env import LOG_PARSER, RUNNER
from spice_engine.validate.lookup_witness import NOTE
from spice_engine.validate.offline import needing_network, offline_line, tried_the_network
from spice_engine.validate.outcomes import Lists, TestStatus, account

P, F = TestStatus.PASSED, TestStatus.FAILED


@pytest.mark.parametrize(
    "text",
    [
        "socket.gaierror: [Errno -3] Temporary failure in name resolution",
        "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='httpbin.org', port=443):"
        " Max retries exceeded (Caused by NameResolutionError(... Name or service not known))",
        "Error: getaddrinfo ENOTFOUND registry.example.com",
        "Error: getaddrinfo EAI_AGAIN httpbin.org",
        "java.net.UnknownHostException: repo.example.org",
        'Get "https://example.com": dial tcp: lookup example.com on 127.0.0.1:53: read udp'
        " 127.0.0.1:41234->127.0.0.1:53: read: connection refused",
        "curl: (6) Could not resolve host: example.com",
        "failed to lookup address information: Name or service not known",
        "OSError: [Errno 101] Network is unreachable",
        f"{NOTE}www.httpwatch.com]",
    ],
)
def test_what_resolvers_runtimes_and_clients_say_is_a_network_attempt(text: str) -> None:
    assert tried_the_network(text)


@pytest.mark.parametrize(
    "text",
    [
        # a local server that did not start says the same as a remote one that is not there
        "ConnectionRefusedError: [Errno 111] Connection refused",
        "urllib3.exceptions.NewConnectionError: Failed to establish a new connection: "
        "[Errno 111] Connection refused",
        "Which is: Could not establish connection (2)",
        "Value of: res\n  Actual: false\nExpected: true",
        "AssertionError: assert 'network' == 'offline'",
    ],
)
def test_a_local_failure_or_a_bare_assertion_is_not(text: str) -> None:
    assert not tried_the_network(text)


def test_tests_needing_the_network_are_neither_failing_both_nor_in_a_list() -> None:
    before = {"a": F, "net": F, "gone": F, "p": P}
    after = {"a": F, "net": F, "gone": P, "p": P}
    lists = Lists(fail_to_pass=["gone"], pass_to_pass=["p"])
    done = account(before, after, lists, offline={"net", "p"})
    assert done.needs_network == ["net"] and done.failing_both == ["a"]
    assert done.counts["needs_network"] == 1 and done.counts["failing_both"] == 1
    assert account(before, after, lists).failing_both == ["a", "net"]
    assert offline_line(1).startswith("1 test needs the network, which the sandbox does not")
    assert offline_line(3).startswith("3 tests need the network")


def _texts(language: str, channel: str, log: str, plan: Plan | None = None) -> dict[str, str]:
    return failure_texts(languages()[language], channel, log, plan)


PYTEST_LOG = """\
=================================== FAILURES ===================================
_____________________________ TestClient.test_get ______________________________

    def test_get(self):
>       requests.get("http://httpbin.org/get")
E       requests.exceptions.ConnectionError: HTTPConnectionPool(host='httpbin.org', port=80):
E       Max retries exceeded (Caused by NewConnectionError('Failed to establish a new
E       connection: [Errno -3] Temporary failure in name resolution'))
__________________________________ test_math ___________________________________

    def test_math():
>       assert 1 == 2
E       assert 1 == 2
=========================== short test summary info ============================
PASSED tests/test_client.py::test_local
FAILED tests/test_client.py::TestClient::test_get - requests.exceptions.Connecti...
FAILED tests/test_client.py::test_math - assert 1 == 2
========================= 2 failed, 1 passed in 0.12s ==========================
"""


def test_pytest_failures_are_read_from_the_summary_and_the_report_sections() -> None:
    plan = Plan(
        language="python",
        toolchain=Toolchain(name="python3.11"),
        key=(),
        settings={RUNNER: "pytest", LOG_PARSER: "parse_log_pytest"},
    )
    texts = _texts("python", "", PYTEST_LOG, plan)
    get, math = "tests/test_client.py::TestClient::test_get", "tests/test_client.py::test_math"
    assert set(texts) == {get, math}
    assert "Temporary failure in name resolution" in texts[get]
    assert texts[math].startswith("assert 1 == 2")
    assert needing_network(texts) == {get}


GTEST_XML = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="3" failures="2" name="AllTests">
  <testsuite name="Net" tests="3" failures="2">
    <testcase name="Online" status="run" result="completed" classname="Net">
      <failure message="test.cc:9&#x0A;Value of: res&#x0A;  Actual: false" type=""/>
    </testcase>
    <testcase name="Broken" status="run" result="completed" classname="Net">
      <failure message="test.cc:12&#x0A;Value of: res&#x0A;  Actual: false" type=""/>
    </testcase>
    <testcase name="Local" status="run" result="completed" classname="Net" />
  </testsuite>
</testsuites>
"""
GTEST_LOG = f"""\
[ RUN      ] Net.Online
{NOTE}www.httpwatch.com]
test.cc:9: Failure
Value of: res
  Actual: false
[  FAILED  ] Net.Online (2 ms)
[ RUN      ] Net.Broken
test.cc:12: Failure
Value of: res
  Actual: false
[  FAILED  ] Net.Broken (0 ms)
[ RUN      ] Net.Local
[       OK ] Net.Local (0 ms)
"""
CTEST_XML = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="(empty)" tests="3" failures="2">
  <testcase name="fetch" classname="fetch" status="fail"><failure message=""/>
    <system-out>curl: (6) Could not resolve host: example.com</system-out></testcase>
  <testcase name="online" classname="online" status="fail"><failure message=""/>
    <system-out></system-out></testcase>
  <testcase name="math" classname="math" status="fail"><failure message=""/>
    <system-out>1 != 2</system-out></testcase>
</testsuite>
"""
CTEST_LOG = f"""\
Test project /spice/job/cmake
    Start 1: fetch
1/3 Test #1: fetch ............................***Failed    0.01 sec
    Start 2: online
{NOTE}example.org]
2/3 Test #2: online ...........................***Failed    0.00 sec
    Start 3: math
3/3 Test #3: math .............................***Failed    0.00 sec
"""


@pytest.mark.parametrize("language", ["c", "cpp"])
def test_googletest_and_ctest_failures_with_the_lookups_noted_in_their_stretch_of_the_log(
    language: str,
) -> None:
    channel = f"\n{MARK}gtest test/test\n{GTEST_XML}\n{MARK}ctest\n{CTEST_XML}"
    texts = _texts(language, channel, GTEST_LOG + CTEST_LOG)
    online = "test/test::Net.Online"
    assert set(texts) == {online, "test/test::Net.Broken", "fetch", "online", "math"}
    assert "Value of: res" in texts[online] and "www.httpwatch.com" in texts[online]
    assert needing_network(texts) == {online, "fetch", "online"}


def test_a_googletest_stretch_two_binaries_share_goes_to_neither() -> None:
    channel = f"\n{MARK}gtest a/test\n{GTEST_XML}\n{MARK}gtest b/test\n{GTEST_XML}"
    texts = _texts("cpp", channel, GTEST_LOG)
    assert needing_network(texts) == set()
    assert texts["a/test::Net.Online"].startswith("test.cc:9")


SUREFIRE = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="com.acme.ClientTest" tests="2">
  <testcase name="fetches" classname="com.acme.ClientTest" time="0.01">
    <error message="repo.example.org" type="java.net.UnknownHostException">
java.net.UnknownHostException: repo.example.org
	at java.base/java.net.InetAddress.getAllByName0(InetAddress.java:1530)</error>
  </testcase>
  <testcase name="adds" classname="com.acme.ClientTest" time="0.01">
    <failure message="expected: &lt;2&gt; but was: &lt;3&gt;" type="AssertionFailedError"/>
  </testcase>
</testsuite>
"""


def test_surefire_failures_and_errors_are_read_from_the_reports() -> None:
    channel = f"\n{REPORT}core/target/surefire-reports/TEST-com.acme.ClientTest.xml\n{SUREFIRE}"
    texts = _texts("java", channel, "")
    fetches = "core/src/test/java/com/acme/ClientTest.java::com.acme.ClientTest#fetches"
    assert len(texts) == 2 and "UnknownHostException" in texts[fetches]
    assert needing_network(texts) == {fetches}


def test_go_failures_are_what_each_failed_test_printed() -> None:
    events = [
        {"Action": "run", "Package": "example.com/a", "Test": "TestFetch"},
        {
            "Action": "output",
            "Package": "example.com/a",
            "Test": "TestFetch",
            "Output": '    a_test.go:9: Get "https://example.com": dial tcp: lookup example.com'
            " on 127.0.0.1:53: read udp 127.0.0.1:5->127.0.0.1:53: read: connection refused\n",
        },
        {"Action": "fail", "Package": "example.com/a", "Test": "TestFetch"},
        {"Action": "output", "Package": "example.com/a", "Test": "TestSum", "Output": "1 != 2"},
        {"Action": "fail", "Package": "example.com/a", "Test": "TestSum"},
        {"Action": "pass", "Package": "example.com/a", "Test": "TestOk"},
    ]
    channel = "\n".join(json.dumps(e) for e in events)
    texts = _texts("go", channel, "")
    assert set(texts) == {"example.com/a::TestFetch", "example.com/a::TestSum"}
    assert needing_network(texts) == {"example.com/a::TestFetch"}
