"""Compile the rollout hot path (``NATIVE_GROUPS``) with mypyc, in place; ``positions/native.py``
keeps the build out once a source changes.

Run by ``make``; safe to run again. Without mypyc or a C compiler it says so and leaves the
Python sources in charge (exit status 0: the compiled build is only a speed-up). ``--clean``
removes the build.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the one sys.path edit in scripts/: compile this tree, whatever copy of
# the package the environment holds (an arena's rev: checkout builds its own tree this way)
os.environ["REFUGE_PURE_PYTHON"] = "1"  # never load the build being replaced

from positions import native

NATIVE_GROUPS = (("positions.kernel.state", "positions.kernel.rules", "positions.kernel.position"), ("positions.kernel.heuristics",))
"""The modules on the rollout hot path, by compilation group: the modules of a group call each other
directly, so a group is used whole or not at all; a later group is compiled against the earlier
groups' native classes, so it runs compiled only while they do (``positions.native.build_state``)."""
NATIVE_MODULES = tuple(module for group in NATIVE_GROUPS for module in group)


def clean() -> None:
    """Remove every compiled module and the build record."""
    built = set(native.built_files())
    built.update(path for group in NATIVE_GROUPS for path in native.group_files(group) if path is not None)
    for path in built:
        path.unlink()
    native.BUILD_RECORD.unlink(missing_ok=True)


def build() -> int:
    """Compile each group of modules on its own and record the sources' digests."""
    try:
        from mypyc.build import mypycify
        from setuptools import setup
    except ImportError as error:
        print(f"build_native: skipped, {error.name} is not installed (running the Python sources)")
        return 0
    clean()
    digests = {module: native.source_digest(module) for module in NATIVE_MODULES}
    groups = [([str(native.source_path(m).relative_to(ROOT)) for m in group], native.library_name(group))
              for group in NATIVE_GROUPS]
    sources = [source for group, _ in groups for source in group]
    with tempfile.TemporaryDirectory() as scratch:
        try:
            setup(name="refuge-native", script_args=["-q", "build_ext", "--inplace", "--build-temp", scratch,
                                                        "--build-lib", scratch],
                  ext_modules=mypycify(sources, opt_level="3", separate=groups, target_dir=scratch))
        except (SystemExit, Exception) as error:  # a compiler error must not stop the install
            clean()
            print(f"build_native: compiling failed ({error}); running the Python sources")
            return 0
    record = {"groups": [list(group) for group in NATIVE_GROUPS], "digests": digests}
    native.BUILD_RECORD.write_text(json.dumps(record, indent=1) + "\n")
    print("build_native: compiled " + ", ".join(NATIVE_MODULES))
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--clean"]:
        clean()
        sys.exit(0)
    os.chdir(ROOT)
    sys.exit(build())
