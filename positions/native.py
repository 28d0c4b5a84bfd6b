"""The guard of the compiled hot path: mypyc builds of our modules, loaded only while current.

``make`` runs ``scripts/build_native.py``, which chooses the modules (its ``NATIVE_GROUPS``),
compiles them with mypyc next to their sources and records the groups and each source's SHA-256 in
``BUILD_RECORD``; this module reads only that record, so it names no module above ``positions/``. A compiled module whose source
has changed since its build is never loaded (its Python source is), so an edit cannot hide behind a
stale build; ``REFUGE_PURE_PYTHON=1`` turns every compiled module off. Both run the same code, so
they give the same results for the same seed (``tests/positions/test_native.py``).
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

PURE_ENV = "REFUGE_PURE_PYTHON"
"""Set to 1 to run every module from its Python source."""
ROOT = Path(__file__).resolve().parent.parent
BUILD_RECORD = Path(__file__).resolve().with_name("_native_build.json")
"""Written by the build (``scripts/build_native.py``, which chooses the modules): ``{"groups": [[module,
...], ...], "digests": {module: SHA-256 of the source it was compiled from}}``. The modules of a
group call each other directly, so a group is used whole or not at all; a later group is compiled
against the earlier groups' native classes, so it runs compiled only while they do."""
PACKAGES = ("positions", "search", "advisor")
"""Where compiled modules may sit beside their sources."""


def source_path(module: str) -> Path:
    """The Python source file of a module of ours."""
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


def group_files(group: Sequence[str]) -> list[Path | None]:
    """The compiled files of a group (``None`` for each one missing): its modules' and its library."""
    return [_extension(name) for name in (*group, library_name(group) + "__mypyc")]


def _read_record() -> tuple[tuple[tuple[str, ...], ...], dict[str, str]]:
    """The recorded groups and digests; an older record (digests only) is one group."""
    try:
        record = json.loads(BUILD_RECORD.read_text())
    except (OSError, ValueError):
        return (), {}
    if not isinstance(record, dict):
        return (), {}
    if isinstance(record.get("groups"), list) and isinstance(record.get("digests"), dict):
        groups = tuple(tuple(str(m) for m in group) for group in record["groups"] if isinstance(group, list))
        return groups, {str(k): str(v) for k, v in record["digests"].items()}
    return (tuple(str(m) for m in record),), {str(k): str(v) for k, v in record.items()}


def _extension_modules() -> list[str]:
    """Every module of ours with a compiled file beside its source (a group's library excepted)."""
    found = []
    for package in PACKAGES:
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            for path in (ROOT / package).rglob("*" + suffix):
                name = path.name[:-len(suffix)]
                if not name.endswith("__mypyc") and path.with_name(name + ".py").exists():
                    found.append(".".join((*path.parent.relative_to(ROOT).parts, name)))
    return sorted(set(found))


def native_groups() -> tuple[tuple[str, ...], ...]:
    """The compiled groups as the build recorded them (none without a build)."""
    return _read_record()[0]


def native_modules() -> tuple[str, ...]:
    """Every module that is, or was, compiled: the recorded ones and any with a compiled file."""
    recorded = tuple(module for group in native_groups() for module in group)
    return recorded + tuple(m for m in _extension_modules() if m not in recorded)


def built_files() -> list[Path]:
    """Every compiled file of ours: each module's and each recorded group's shared library."""
    groups = [*native_groups(), *((m,) for m in _extension_modules())]
    return sorted({path for group in groups for path in group_files(group) if path is not None})


def _recorded() -> dict[str, str]:
    return _read_record()[1]


def build_state(module: str) -> str:
    """``compiled``, or why the module runs from source: ``disabled``, ``not built`` or ``stale``."""
    if os.environ.get(PURE_ENV, "") not in ("", "0"):
        return "disabled"
    groups = native_groups()
    group = next((g for g in groups if module in g), None)
    if group is None:
        return "stale" if _extension(module) is not None else "not built"
    if None in group_files(group):
        return "not built"
    recorded = _recorded()
    if any(recorded.get(member) != source_digest(member) for member in group):
        return "stale"
    earlier = groups[:groups.index(group)]
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
    from_source = [m for m in native_modules() if build_state(m) != "compiled"]
    if from_source:
        sys.meta_path.insert(0, _SourceFirst(from_source))


def summary() -> str:
    """One line on what runs compiled, e.g. ``positions.kernel.rules compiled, positions.kernel.heuristics stale``."""
    return ", ".join(f"{m} {build_state(m)}" for m in native_modules())


def running_compiled(module: ModuleType) -> bool:
    """Whether an imported module is a compiled build rather than Python source."""
    return not str(getattr(module, "__file__", "")).endswith(".py")
