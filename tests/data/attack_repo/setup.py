import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attack  # noqa: E402

attack.run("setup_py")

from setuptools import setup  # noqa: E402

setup(install_requires=[])
