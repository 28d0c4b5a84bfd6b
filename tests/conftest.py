"""Test suite root: its folders mirror the packages; the shared builders and data live here.

pytest puts this folder on ``sys.path`` (rootdir conftest, prepend import mode), so test modules in
sub-folders import ``builders``, ``toy_games`` and ``solver_positions`` directly.
"""
