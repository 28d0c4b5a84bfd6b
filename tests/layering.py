"""The import rules of docs/architecture.md, read from the code: which package may import which.

An AST walk over every module of ``positions``, ``search``, ``advisor`` and ``lab`` collects each import
(at module level, in functions, under ``TYPE_CHECKING`` alike) and checks it against :data:`ALLOWED`;
:func:`import_cycles` finds circles between files; :func:`reachable` finds what the entry points load;
:func:`rederivations` finds facts of the game worked out again outside ``positions/`` (:data:`FACTS`).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, NamedTuple

import networkx as nx

ROOTS = ("positions", "search", "advisor", "lab")
"""Our top-level packages; imports of anything else (the standard library, numpy, ...) are free."""
PRODUCT = ("positions", "search", "advisor")
"""The packages `refuge` ships; ``lab`` (experiments and their scripts) may import them, never the reverse."""
ENTRY_POINTS = ("advisor.__main__", "advisor.api")
"""Where the product starts: `refuge` (whose commands include `refuge serve`) and the Python API."""

ALLOWED: dict[str, tuple[str, ...]] = {
    "positions": ("positions",),
    "positions.kernel": ("positions.kernel", "positions.errors"),
    "search": ("search",),
    "advisor": ("advisor", "positions"),  # advisor/__init__.py and the entry point advisor/__main__.py
    "advisor.players": ("advisor.players", "search", "positions"),
    "advisor.analysis": ("advisor.analysis", "advisor.players", "search", "positions"),
    "advisor.arena": ("advisor.arena", "advisor.players", "search", "positions"),
    "advisor.openspiel": ("advisor.openspiel", "advisor.players", "search", "positions"),
    "advisor.insights": ("advisor.insights", "advisor.players", "search", "positions"),
    "advisor.web": ("advisor.web", "advisor.analysis", "advisor.arena", "advisor.insights",
                    "advisor.openspiel", "advisor.players", "search", "positions"),
    "advisor.api": ("advisor.api", "advisor.analysis", "advisor.players", "search", "positions"),
    "advisor.cli": ("advisor",  "search", "positions"),
    "lab": ("lab", "advisor", "search", "positions"),
}
"""For each layer, the packages its modules may import (a layer is the longest matching key)."""


@dataclass(frozen=True)
class Import:
    """One import statement: the file, its line and the module it names."""

    path: Path
    line: int
    module: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line} imports {self.module}"


def module_name(root: Path, path: Path) -> str:
    """The dotted name of the module in `path` under the project `root`."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_of(module: str) -> str | None:
    """The layer (a key of :data:`ALLOWED`) a module of ours belongs to, or ``None`` if not ours."""
    matches = [key for key in ALLOWED if module == key or module.startswith(key + ".")]
    return max(matches, key=len) if matches else None


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def imports_in(root: Path, path: Path, ours_only: bool = True) -> Iterator[Import]:
    """Every import of one of our packages in one file (relative imports resolved); with
    ``ours_only=False`` every other import too."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    here = module_name(root, path).split(".")
    if path.name != "__init__.py":
        here.pop()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(here[:len(here) - node.level + 1] + ([base] if base else []))
            names = [f"{base}.{alias.name}" if _is_module(root, f"{base}.{alias.name}") else base
                     for alias in node.names]
        else:
            continue
        for name in dict.fromkeys(names):
            if name.split(".")[0] in ROOTS or not ours_only:
                yield Import(path.relative_to(root), node.lineno, name)


def _is_module(root: Path, dotted: str) -> bool:
    path = root.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def source_files(root: Path) -> list[Path]:
    """Every Python module of our packages under `root`."""
    return sorted(p for package in ROOTS for p in (root / package).rglob("*.py"))


def violations(root: Path) -> list[str]:
    """Each import that breaks :data:`ALLOWED`, as ``file:line imports module: rule``."""
    found = []
    for path in source_files(root):
        layer = layer_of(module_name(root, path))
        if layer is None:
            continue
        allowed = ALLOWED[layer]
        for item in imports_in(root, path):
            target = layer_of(item.module)
            if layer == "advisor.cli" and target == "advisor.web":
                continue  # `refuge serve` starts the web app
            if layer.startswith("advisor.") and target in ("advisor.cli",) and layer != "advisor.cli":
                found.append(f"{item}: only advisor/cli/ imports the commands")
                continue
            if not any(_within(item.module, package) for package in allowed):
                found.append(f"{item}: {layer.replace('.', '/')}/ may import only "
                             + ", ".join(p.replace(".", "/") + "/" for p in allowed))
    return found


def import_graph(root: Path) -> nx.DiGraph:
    """Modules of ours as nodes, an edge for each import between two of them."""
    graph = nx.DiGraph()
    for path in source_files(root):
        source = module_name(root, path)
        graph.add_node(source)
        for item in imports_in(root, path):
            if item.module != source and _is_module(root, item.module):
                graph.add_edge(source, item.module, where=str(item))
    return graph


def import_cycles(root: Path) -> list[list[str]]:
    """Every circle of imports between files, each as the ``file:line imports module`` steps around it."""
    graph = import_graph(root)
    cycles = []
    for cycle in nx.simple_cycles(graph):
        steps = zip(cycle, cycle[1:] + cycle[:1])
        cycles.append([graph.edges[a, b]["where"] for a, b in steps])
    return cycles


def reachable(root: Path, entries: tuple[str, ...] = ENTRY_POINTS) -> set[str]:
    """Every module of ours the `entries` load: by static imports (in functions too), the packages
    above each module, and plug-in modules named as strings in tables (e.g. ``agents.PLUGINS``)."""
    graph = import_graph(root)
    modules = set(graph.nodes)
    for path in source_files(root):
        source = module_name(root, path)
        for named in re.findall(r'"((?:%s)\.[\w.]+)"' % "|".join(ROOTS), path.read_text(encoding="utf-8")):
            if named in modules and named != source:
                graph.add_edge(source, named)
    for module in modules:
        parts = module.split(".")
        for end in range(1, len(parts)):
            if ".".join(parts[:end]) in modules:
                graph.add_edge(module, ".".join(parts[:end]))
    found = {entry for entry in entries if entry in modules}
    for entry in list(found):
        found |= nx.descendants(graph, entry)
    return found


def product_modules(root: Path) -> set[str]:
    """Every module of the shipped packages (:data:`PRODUCT`)."""
    return {module_name(root, p) for package in PRODUCT for p in (root / package).rglob("*.py")}


# --- facts of the game asked of positions/, never derived again ---------------------------------------

class Fact(NamedTuple):
    """A fact of the game with its one home: a pattern that re-derives it, and who may hold it."""

    name: str
    pattern: str
    owners: tuple[str, ...]
    """Files (relative to the root) where the fact is defined."""
    ask: str
    """What to call instead."""
    suffixes: tuple[str, ...] = (".py",)


FACTS = (
    Fact("Storms to hit", r"threshold\s*-|-\s*[\w.]*storms_on_track\(|track_storms\s*\+\s*sum\(",
         ("positions/kernel/rules.py",), "positions.kernel.rules.storms_to_hit / Position.storms_to_hit()"),
    Fact("an effect's gain", r"\.(vp|steps)_per_(sun|path_tile|paw)\b", ("positions/kernel/rules.py",
         "positions/kernel/tiles.py"), "positions.kernel.rules.effect_gain"),
    Fact("the supply of a kind", r"start_bag\.count\([\w.]+\)\s*\*", ("positions/kernel/rules.py",),
         "positions.kernel.rules.supply"),
    Fact("the walk number to show", r"walks\s*-\s*1\)\s*\+\s*1|min\([\w.]*walk\s*\+\s*1\s*,",
         ("positions/kernel/view.py",), "positions.kernel.view.walk_number"),
    Fact("a revealed choice", r"in RESOLVING and|in phases\.RESOLVING and", ("positions/kernel/rules.py",),
         "positions.kernel.rules.choice_revealed"),
    Fact("the player counts", r"<=\s*players\s*<=|players\s+in\s+\(2,\s*3,\s*4\)", (),
         "Ruleset.player_counts (pages: /api/catalogue)"),
    Fact("the phase names", r'"return-discard"\s*,\s*"deal"', ("positions/kernel/phases.py",),
         "positions.kernel.phases.NAMES (pages: /api/catalogue)", (".py", ".js", ".html")),
    Fact("a paw total", r"sum\(\s*PAW\[", ("positions/kernel/rules.py",), "positions.kernel.rules.paw_total"),
    Fact("the penalised tiles", r"\bpenalised_kinds\b",
         ("positions/kernel/rules.py", "positions/kernel/rulesets.py", "positions/kernel/encoding.py",
          "positions/saved.py", "positions/catalogue.py"),  # the catalogue prints the data
         "positions.kernel.rules.penalised_count / storm_penalty"),
    Fact("the Storm's penalty as the path's length", r"penalty\s*=\s*len\(", ("positions/kernel/rules.py",),
         "positions.kernel.rules.storm_penalty / penalised_count"),
    Fact("a VP per missing Step", r"max\(0(\.0)?,\s*\w+\s*-\s*\w*steps\b", ("positions/kernel/rules.py",),
         "positions.kernel.rules.storm_vp_loss"),
)
"""The re-derivations a test can see (issue 23): arithmetic on the Storm threshold, an effect's
fields, the supply, the walk shown, which choices are public, player counts and phase names; the
paw total, which tiles the Storm penalises and the VP it takes for want of Steps (issue 52)."""


def rederivations(root: Path) -> list[str]:
    """Each line outside a fact's home that derives it again, as ``file:line: fact (ask ...)``."""
    found = []
    for path in sorted(p for package in (*ROOTS, "scripts", "benchmarks") if (root / package).is_dir()
                       for p in (root / package).rglob("*") if p.is_file()):
        relative = path.relative_to(root).as_posix()
        facts = [f for f in FACTS if path.suffix in f.suffixes and relative not in f.owners]
        if not facts:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for fact in facts:
                if re.search(fact.pattern, line):
                    found.append(f"{relative}:{number}: {fact.name} derived again (ask {fact.ask})")
    return found
