#!/usr/bin/env python
"""The project's own test runner, in the manner of sympy's `bin/test`: no pytest, one line per
test in verbose mode (`test_name ok`, `F` for a failed assertion, `E` for any other error);
`-k NAME...` after the files runs only the tests whose names hold one of them."""

import sys
from optparse import OptionParser

from get_calc import path_hack  # from its own folder, as sympy's `get_sympy`

path_hack()


def names(option, opt_str, value, parser):
    """sympy's `vararg_callback`: every argument up to the next option."""
    found = []
    while parser.rargs and not parser.rargs[0].startswith("-"):
        found.append(parser.rargs.pop(0))
    setattr(parser.values, option.dest, found)


parser = OptionParser()
parser.add_option("-v", "--verbose", action="store_true", default=False)
parser.add_option("-C", "--no-cache", action="store_true", default=False)
parser.add_option("-k", dest="kw", action="callback", callback=names, default=[])
options, paths = parser.parse_args()

import calc  # noqa: E402

sys.exit(not calc.test(*paths, verbose=options.verbose, kw=options.kw))
