"""An in-tree build backend: setuptools' own, after the attack."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import attack  # noqa: E402

attack.run("backend")

from setuptools.build_meta import *  # noqa: E402,F401,F403
