"""Rust's and JavaScript's failed tests with what their runner said of each (issue 48: tests
needing the network are told apart by it): libtest's sections, jest's, mocha's and our
`node --test` reporter's errors — the last from a real `node --test` run."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from spice_engine.langs import languages
from spice_engine.langs.capabilities import failure_texts
from spice_engine.langs.js_reports import FILE_MARK, NODE_REPORTER, RUN_MARK
from spice_engine.validate.offline import needing_network


def _texts(language: str, channel: str) -> dict[str, str]:
    return failure_texts(languages()[language], channel, "", None)


ARTIFACT = json.dumps(
    {
        "reason": "compiler-artifact",
        "target": {"src_path": "/testbed/crates/net/tests/fetch.rs"},
        "executable": "/spice/job/target/debug/deps/fetch-0123abcd",
    }
)
LIBTEST = f"""{ARTIFACT}
     Running tests/fetch.rs (/spice/job/target/debug/deps/fetch-0123abcd)

running 3 tests
test fetches_the_index ... FAILED
test sums ... FAILED
test parses ... ok

failures:

---- fetches_the_index stdout ----
thread 'fetches_the_index' panicked at crates/net/tests/fetch.rs:9:5:
called `Result::unwrap()` on an `Err` value: failed to lookup address information: Name or \
service not known

---- sums stdout ----
thread 'sums' panicked at crates/net/tests/fetch.rs:14:5:
assertion `left == right` failed
  left: 1
 right: 2

failures:
    fetches_the_index
    sums

test result: FAILED. 1 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out
"""


def test_libtest_sections_are_each_failed_tests_text_under_its_targets_id() -> None:
    texts = _texts("rust", LIBTEST)
    fetch, sums = "crates/net/tests/fetch.rs::fetches_the_index", "crates/net/tests/fetch.rs::sums"
    assert set(texts) == {fetch, sums}
    assert "assertion `left == right` failed" in texts[sums] and "lookup" not in texts[sums]
    assert needing_network(texts) == {fetch}


def test_jest_and_mocha_failures_are_read_from_their_reports() -> None:
    jest = {
        "testResults": [
            {
                "name": "/testbed/test/client.test.js",
                "status": "failed",
                "assertionResults": [
                    {
                        "fullName": "client fetches",
                        "status": "failed",
                        "failureMessages": ["Error: getaddrinfo ENOTFOUND api.example.com"],
                    },
                    {"fullName": "client parses", "status": "passed", "failureMessages": []},
                ],
            }
        ]
    }
    mocha = {
        "tests": [{"fullTitle": "app gets", "file": "/testbed/test/app.js"}],
        "failures": [
            {
                "fullTitle": "app gets",
                "file": "/testbed/test/app.js",
                "err": {"message": "expected 200, got 500", "stack": "Error: expected 200"},
            }
        ],
    }
    channel = "\n".join(
        [
            json.dumps(jest),
            json.dumps({RUN_MARK: 1, FILE_MARK: "test/app.js"}),
            json.dumps(mocha),
        ]
    )
    texts = _texts("javascript", channel)
    assert set(texts) == {"test/client.test.js::client fetches", "test/app.js::app gets"}
    assert needing_network(texts) == {"test/client.test.js::client fetches"}


def test_our_node_test_reporter_writes_each_failures_error(tmp_path: Path) -> None:
    if shutil.which("node") is None:
        pytest.skip("no Node.js on this machine")
    (tmp_path / "net.test.js").write_text(
        "const { test } = require('node:test')\n"
        "const assert = require('node:assert')\n"
        "test('fetches', () => { throw new Error('getaddrinfo ENOTFOUND api.example.com') })\n"
        "test('sums', () => { assert.strictEqual(1 + 1, 3) })\n"
        "test('parses', () => {})\n"
    )
    done = subprocess.run(
        ["node", "--test", f"--test-reporter={NODE_REPORTER}", "net.test.js"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    texts = {k.split("::", 1)[1]: v for k, v in _texts("javascript", done.stdout).items()}
    assert set(texts) == {"fetches", "sums"}, done.stdout[-2000:]
    assert "ENOTFOUND" in texts["fetches"] and "3" in texts["sums"]
    assert {k.split("::")[1] for k in needing_network(_texts("javascript", done.stdout))} == {
        "fetches"
    }
