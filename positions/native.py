"""The compiled hot path: mypyc builds of the rules and the heuristic player, loaded only while current.

``make`` runs ``scripts/build_native.py``, which compiles ``NATIVE_MODULES`` with mypyc next to
their sources and records each source's SHA-256 in ``BUILD_RECORD``. A compiled module whose source
has changed since its build is never loaded (its Python source is), so an edit cannot hide behind a
stale build; ``REFUGE_PURE_PYTHON=1`` turns every compiled module off. Both run the same code, so
they give the same results for the same seed (``tests/test_native.py``).
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Sequence

NATIVE_GROUPS = (("positions.state", "positions.rules", "positions.position"), ("advisor.players.heuristics",))
"""The modules on the rollout hot path that ``make`` compiles, by compilation group: the modules of
a group call each other directly, so a group is used whole or not at all; a later group is compiled
against the earlier groups' native classes, so it runs compiled only while they do."""
NATIVE_MODULES = tuple(module for group in NATIVE_GROUPS for module in group)
PURE_ENV = "REFUGE_PURE_PYTHON"
"""Set to 1 to run every module from its Python source."""
ROOT = Path(__file__).resolve().parent.parent
BUILD_RECORD = Path(__file__).resolve().with_name("_native_build.json")
"""Written by the build: ``{module: SHA-256 of the source it was compiled from}``."""


def source_path(module: str) -> Path:
    """The Python source file of one of ``NATIVE_MODULES``."""
    return ROOT.joinpath(*module.split(".")).with_suffix(".py")


def source_digest(module: str) -> str:
    """SHA-256 of a module's Python source as it is now."""
    return hashlib.sha256(source_path(module).read_bytes()).hexdigest()


def library_name(group: Sequence[str]) -> str:
    """The module name of a group's shared library, beside the group's first module."""
    return group[0] + "_group"


def _extension(name: str) -> Path | None:
    stem = source_path(name).with_suffix("")
    found = [path for suffix in importlib.machinery.EXTENSION_SUFFIXES
             if (path := stem.with_name(stem.name + suffix)).exists()]
    return found[0] if found else None


def _group_files(group: Sequence[str]) -> list[Path | None]:
    return [_extension(name) for name in (*group, library_name(group) + "__mypyc")]


def built_files() -> list[Path]:
    """Every compiled file the build made: each module's and each group's shared library."""
    return [path for group in NATIVE_GROUPS for path in _group_files(group) if path is not None]


def _recorded() -> dict[str, str]:
    try:
        record = json.loads(BUILD_RECORD.read_text())
    except (OSError, ValueError):
        return {}
    return record if isinstance(record, dict) else {}


def build_state(module: str) -> str:
    """``compiled``, or why the module runs from source: ``disabled``, ``not built`` or ``stale``."""
    if os.environ.get(PURE_ENV, "") not in ("", "0"):
        return "disabled"
    group = next(g for g in NATIVE_GROUPS if module in g)
    if None in _group_files(group):
        return "not built"
    recorded = _recorded()
    if any(recorded.get(member) != source_digest(member) for member in group):
        return "stale"
    earlier = NATIVE_GROUPS[:NATIVE_GROUPS.index(group)]
    if any(build_state(member) != "compiled" for g in earlier for member in g):
        return "stale"  # compiled against the earlier groups' native classes: never mixed with their sources
    return "compiled"


class _SourceFirst(importlib.abc.MetaPathFinder):
    """Finds the listed modules in their ``.py`` sources, ahead of any compiled build beside them."""

    def __init__(self, modules: Sequence[str]):
        self.modules = frozenset(modules)

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        """A source spec for a listed module, else None (the usual finders decide)."""
        if fullname not in self.modules:
            return None
        return importlib.util.spec_from_file_location(fullname, source_path(fullname))


def install() -> None:
    """Make every native module that is not ``compiled`` load from its source (once per process)."""
    if any(isinstance(finder, _SourceFirst) for finder in sys.meta_path):
        return
    from_source = [m for m in NATIVE_MODULES if build_state(m) != "compiled"]
    if from_source:
        sys.meta_path.insert(0, _SourceFirst(from_source))


def summary() -> str:
    """One line on what runs compiled, e.g. ``positions.rules compiled, advisor.players.heuristics stale``."""
    return ", ".join(f"{m} {build_state(m)}" for m in NATIVE_MODULES)


def running_compiled(module: ModuleType) -> bool:
    """Whether an imported module is a compiled build rather than Python source."""
    return not str(getattr(module, "__file__", "")).endswith(".py")
