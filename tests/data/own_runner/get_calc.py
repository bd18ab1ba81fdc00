"""What `bin/test` imports from its own folder, as sympy's imports `get_sympy`: the project put
first on the path."""

import os
import sys


def path_hack():
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
