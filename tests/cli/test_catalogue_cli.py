"""`refuge catalogue` and the reference pages: docs/catalogue.md is what the command prints, and
every clarification the program cites ("rule C16") is stated in docs/rules.md."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

from click.testing import CliRunner

from advisor.cli.main import cli
from positions.kernel.routes import ROUTES
from positions.kernel.rulesets import DEFAULT_RULESET
from positions.kernel.tiles import TILES

PROJECT = Path(__file__).resolve().parents[2]
CITATION = re.compile(r"\bC(\d+)\b")
COLOUR = re.compile(r"C\d")
"""A matplotlib colour ("C0", "C1"), not a citation."""


def _run(*args: str) -> str:
    result = CliRunner().invoke(cli, ["catalogue", *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_the_docs_page_is_what_the_command_prints() -> None:
    page = (PROJECT / "docs" / "catalogue.md").read_text(encoding="utf-8")
    assert page == _run(), "regenerate it: refuge catalogue > docs/catalogue.md"


def test_json_lists_the_start_bag_every_tile_and_each_route_from_the_tables() -> None:
    data = json.loads(_run("--json"))
    assert data["format"] == "refuge-catalogue/1"
    tiles = {t["name"]: t for t in data["tiles"]}
    assert len(tiles) == len(TILES) == 31
    for tile in TILES:
        entry = tiles[tile.name]
        assert entry["kind"] == tile.category and entry["paw"] == tile.paw
        assert entry["cost"] == (None if tile.is_start or tile.name == "storm" else tile.cost)
    assert tiles["bear"]["cost"] == 12 and tiles["cave"]["effect"] == "discard 1–2 or +4 VP"  # C11
    default = data["rulesets"][0]
    assert sum(default["start_bag"].values()) == len(DEFAULT_RULESET.start_bag) == 11  # C1
    assert default["storm_thresholds"] == {"2": 6, "3": 7, "4": 9}  # C5
    assert [r["name"] for r in data["routes"]] == list(ROUTES)
    meadows = data["routes"][0]
    assert meadows["objects"] == ["compass", "shepherd", "sunglasses", "canteen"]


def test_the_text_shows_costs_effects_and_markets() -> None:
    text = _run()
    assert re.search(r"\| bear +\| Bear +\| animal +\| 12 +\| 6 +\| +\| \+6 VP, paw 6", text)
    assert "| forest    | camera, backpack, hiker, big_orientation_table |" in text
    assert "2 storm, 2 sign, 2 signpost, 1 small_orientation_table" in text


def _citations() -> dict[int, set[str]]:
    """Every clarification number cited in a string of the program (messages, help, docs of code)."""
    cited: dict[int, set[str]] = {}
    for root in ("advisor", "positions", "search"):
        for path in sorted((PROJECT / root).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                        and not COLOUR.fullmatch(node.value):
                    for number in CITATION.findall(node.value):
                        cited.setdefault(int(number), set()).add(str(path.relative_to(PROJECT)))
    return cited


def _stated() -> set[int]:
    """The clarifications docs/rules.md states in words (``- **C16 ...**`` entries)."""
    text = (PROJECT / "docs" / "rules.md").read_text(encoding="utf-8")
    return {int(n) for n in re.findall(r"^- \*\*C(\d+)\b", text, flags=re.MULTILINE)}


def test_every_cited_clarification_is_stated_in_docs_rules() -> None:
    cited = _citations()
    assert 16 in cited and 18 in cited  # the CLI's "rule C16" (Storm facts) and "rule C18" (ties)
    missing = {f"C{n}": sorted(where) for n, where in cited.items() if n not in _stated()}
    assert missing == {}


def test_docs_rules_states_each_of_c1_to_c20_once() -> None:
    text = (PROJECT / "docs" / "rules.md").read_text(encoding="utf-8")
    numbers = [int(n) for n in re.findall(r"^- \*\*C(\d+)\b", text, flags=re.MULTILINE)]
    assert numbers == list(range(1, 21))
