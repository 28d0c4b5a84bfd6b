"""Test suite root: its folders mirror the packages; the shared builders and data live here.

pytest puts this folder on ``sys.path`` (rootdir conftest, prepend import mode), so test modules in
sub-folders import ``builders``, ``toy_games`` and ``solver_positions`` directly.
"""

import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
# The lab's scripts (lab/scripts/, run as files by tests) import `lab`, which is not installed: the
# project root on PYTHONPATH lets every subprocess import this checkout's packages.
os.environ["PYTHONPATH"] = os.pathsep.join(
    p for p in (str(PROJECT_ROOT), os.environ.get("PYTHONPATH", "")) if p)
