"""Which failing tests show that they needed the network the sandbox does not give them.

A language reads each failed test's own failure text from its runner's report (the
`FailureTexts` capability, spice_engine.langs.capabilities); this says which of those texts
show a host name that could not be resolved or an address outside the machine that could not
be reached, as resolvers, runtimes and clients word it, or the sandbox's own note of a lookup
(spice_engine.validate.lookup_witness). A refused connection is not among them: a local
server that did not start says the same.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping

from spice_engine.validate.lookup_witness import NOTE

SIGNS = re.compile(
    "|".join(
        [
            re.escape(NOTE),
            # glibc's and musl's resolver (Python's gaierror, Rust's, curl's, Java's message)
            r"Temporary failure in name resolution",
            r"Name or service not known",
            r"No address associated with hostname",
            r"Name does not resolve",
            r"nodename nor servname provided",
            r"\bgaierror\b",
            r"failed to lookup address information",
            r"Could not resolve host",
            # Node.js
            r"\bgetaddrinfo\b.{0,40}\b(?:ENOTFOUND|EAI_AGAIN|EAI_NONAME|EAI_FAIL)\b",
            # Java
            r"\bjava\.net\.UnknownHostException\b",
            # Go's resolver
            r"\blookup \S+ on \S+: (?:no such host|.{0,80}\b(?:connection refused|i/o timeout))",
            r"\bdial (?:tcp|udp)\S*: lookup \S+",
            # an address outside the machine: the sandbox's namespace has no route there
            r"Network is unreachable",
            r"\bENETUNREACH\b",
        ]
    )
)
"""What a failure says when it tried to reach another machine."""


def tried_the_network(text: str) -> bool:
    return SIGNS.search(text) is not None


def needing_network(texts: Mapping[str, str]) -> set[str]:
    """The tests (of `texts`, test id -> its failure text) whose failure shows a network
    attempt."""
    return {test for test, text in texts.items() if tried_the_network(text)}


def sole_holders(tests: Iterable[str], name: Callable[[str], str]) -> dict[str, str]:
    """`name(test)` -> the test, for each name only one of `tests` has: a log section headed
    by a short name belongs to a test only when no other test shares that name."""
    holders: dict[str, list[str]] = {}
    for test in tests:
        holders.setdefault(name(test), []).append(test)
    return {short: found[0] for short, found in holders.items() if len(found) == 1}


def offline_line(count: int) -> str:
    """The row's one line about them."""
    tests = "1 test needs" if count == 1 else f"{count} tests need"
    return (
        f"{tests} the network, which the sandbox does not give: failing before and after "
        "the fix, in neither list (validation.tests.needs_network)"
    )
