"""The layout's import rules hold (docs/architecture.md), and the checker catches a broken rule."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from layering import ROOTS, import_cycles, imports_in, rederivations, source_files, violations

PROJECT = Path(__file__).resolve().parent.parent


def test_every_import_runs_one_way() -> None:
    assert violations(PROJECT) == []


def test_no_import_circle_between_files() -> None:
    assert import_cycles(PROJECT) == []


def test_the_games_facts_are_asked_of_positions_not_derived_again() -> None:
    found = rederivations(PROJECT)
    assert found == []


def test_a_rederived_fact_is_named_with_its_file_and_line(copy_of_tree: Path) -> None:
    (copy_of_tree / "advisor" / "players" / "leak.py").write_text(
        "def close(pos):\n    return pos.threshold - pos.storms_on_track() <= 1\n")
    found = [line for line in rederivations(copy_of_tree) if "leak" in line]
    assert found == ["advisor/players/leak.py:2: Storms to hit derived again "
                     "(ask positions.kernel.rules.storms_to_hit / Position.storms_to_hit())"]


def test_advisor_holds_packages_only() -> None:
    modules = sorted(p.name for p in (PROJECT / "advisor").glob("*.py"))
    assert modules == ["__init__.py", "__main__.py"]
    # __main__.py is the `refuge` entry point, above cli/: it may only load the command line (guarded)
    entry = (PROJECT / "advisor" / "__main__.py").read_text(encoding="utf-8")
    imported = re.findall(r"^\s*(?:from (\S+) import|import (\S+))", entry, re.MULTILINE)
    assert sorted({a or b for a, b in imported}) == ["__future__", "advisor.cli.main", "sys"]
    for package in (p for p in (PROJECT / "advisor").iterdir() if (p / "__init__.py").is_file()):
        doc = (package / "__init__.py").read_text(encoding="utf-8").lstrip()
        assert doc.startswith('"""'), f"{package.name}/__init__.py needs a docstring saying what it may import"


@pytest.fixture()
def copy_of_tree(tmp_path: Path) -> Path:
    """The project's packages copied to a scratch root (sources only)."""
    for package in ROOTS:
        shutil.copytree(PROJECT / package, tmp_path / package,
                        ignore=shutil.ignore_patterns("*.so", "__pycache__", "*.json"))
    return tmp_path


@pytest.mark.parametrize("where, text, rule", [
    ("positions/leak.py", "import search.ismcts\n", "positions/ may import only positions/"),
    ("search/leak.py", "from positions.kernel.position import Position\n", "search/ may import only search/"),
    ("advisor/players/leak.py", "def f():\n    from advisor.arena import stats\n",
     "advisor/players/ may import only"),
    ("advisor/analysis/leak.py", "from advisor.arena.store import ArenaStore\n",
     "advisor/analysis/ may import only"),
    ("advisor/arena/leak.py", "from ..cli import errors\n", "only advisor/cli/ imports the commands"),
])
def test_a_forbidden_import_is_named_with_its_file_and_line(copy_of_tree: Path, where: str, text: str,
                                                           rule: str) -> None:
    (copy_of_tree / where).write_text(text)
    found = violations(copy_of_tree)
    assert len(found) == 1 and found[0].startswith(where) and rule in found[0]


def test_a_circle_is_reported_step_by_step(copy_of_tree: Path) -> None:
    (copy_of_tree / "positions" / "first.py").write_text("from positions import second\n")
    (copy_of_tree / "positions" / "second.py").write_text("\n\nimport positions.first\n")
    (cycle,) = import_cycles(copy_of_tree)
    assert sorted(cycle) == ["positions/first.py:1 imports positions.second",
                             "positions/second.py:3 imports positions.first"]


TERMINAL_LIBRARIES = ("click", "tqdm")
"""What draws on the terminal: only the commands (advisor/cli/) and the web app use them."""


def test_only_the_commands_and_the_web_app_use_the_terminal() -> None:
    found = [str(item) for path in source_files(PROJECT)
             if not path.relative_to(PROJECT).as_posix().startswith(("advisor/cli/", "advisor/web/"))
             for item in imports_in(PROJECT, path, ours_only=False)
             if item.module.split(".")[0] in TERMINAL_LIBRARIES]
    assert found == []


@pytest.mark.parametrize("line, fact", [
    ("paws = sum(PAW[k] for k in pos.paths[p])", "a paw total"),
    ("bad = k in pos.ruleset.penalised_kinds", "the penalised tiles"),
    ("penalty = len(path) + 1", "the Storm's penalty as the path's length"),
    ("lost = max(0, penalty - steps)", "a VP per missing Step"),
])
def test_a_rederived_storm_or_paw_fact_is_caught(copy_of_tree: Path, line: str, fact: str) -> None:
    """Issue 52: the heuristic and everything above the kernel ask the rules for paws and the Storm."""
    (copy_of_tree / "advisor" / "players" / "leak.py").write_text(f"def f(pos, path, penalty, steps, p, k):\n    {line}\n")
    found = [entry for entry in rederivations(copy_of_tree) if "leak" in entry]
    assert len(found) == 1 and found[0].startswith(f"advisor/players/leak.py:2: {fact} derived again")
