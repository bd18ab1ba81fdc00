#!/usr/bin/env python
"""The project's own test runner, in the manner of sympy's `bin/test`: no pytest, one line per
test in verbose mode (`test_name ok`, `F` for a failed assertion, `E` for any other error)."""

import sys
from optparse import OptionParser

from get_calc import path_hack  # from its own folder, as sympy's `get_sympy`

path_hack()

parser = OptionParser()
parser.add_option("-v", "--verbose", action="store_true", default=False)
parser.add_option("-C", "--no-cache", action="store_true", default=False)
options, paths = parser.parse_args()

import calc  # noqa: E402

sys.exit(not calc.test(*paths, verbose=options.verbose))
