"""The value-accuracy benchmark's data (benchmarks/data/value_positions.json): the positions it
names, their exact values and the coverage issue 12 asks for (>= 60, 2-4 players, three routes,
every decision kind)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from positions import RULES_VERSION, Position, parse_action
from positions.saved import parse_position
from search.solver import solve

DATA = Path(__file__).parent.parent.parent / "benchmarks" / "data" / "value_positions.json"
DOCUMENT = json.loads(DATA.read_text())
ENTRIES = DOCUMENT["positions"]
RESOLVED_AGAIN = 3_000
"""Entries up to this many solver positions are solved again in the test (the rest would be slow)."""


def _replay(entry: dict) -> Position:
    pos = Position.new_game(entry["players"], entry["route"])
    for text in entry["actions"]:
        pos.apply(parse_action(text))
    return pos


def test_coverage_is_what_the_issue_asks_for() -> None:
    assert DOCUMENT["format"] == "refuge-value-positions/1"
    assert DOCUMENT["rules_version"] == RULES_VERSION, "regenerate: lab/scripts/make_value_positions.py"
    assert len(ENTRIES) >= 60
    assert {e["players"] for e in ENTRIES} == {2, 3, 4}
    assert {e["route"] for e in ENTRIES} == {"meadows", "forest", "mountains"}
    assert {"decide", "choose", "option", "discard", "extra", "buy"} <= {e["phase"] for e in ENTRIES}
    assert len({e["id"] for e in ENTRIES}) == len(ENTRIES)


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e["id"])
def test_each_entry_is_the_position_it_names_with_consistent_exact_values(entry: dict) -> None:
    """The action list and the saved document give the same last-walk single-walker decision; the
    floats are the fractions; win shares sum to 1 (C18); best is the top (win, score)."""
    pos = _replay(entry)
    loaded = parse_position(entry["position"]).position
    assert loaded.solver_key() == pos.solver_key()
    assert pos.walk == pos.ruleset.walks - 1 and sum(pos.walking) == 1
    assert pos.current_player() == entry["player"]
    assert [o["action"] for o in entry["options"]] == [str(a) for a in pos.legal_actions()]
    for option in entry["options"]:
        assert float(Fraction(option["win_exact"])) == option["win_probability"]
        assert float(Fraction(option["score_exact"])) == option["expected_score"]
        assert sum(Fraction(p["win_exact"]) for p in option["players"]) == 1
        assert option["players"][entry["player"]]["win_exact"] == option["win_exact"]
    ranked = max(entry["options"], key=lambda o: (Fraction(o["win_exact"]), Fraction(o["score_exact"])))
    best = next(o for o in entry["options"] if o["action"] == entry["best"])
    assert (best["win_exact"], best["score_exact"]) == (ranked["win_exact"], ranked["score_exact"])
    assert entry["chances"] == best["players"]


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e["nodes"] <= RESOLVED_AGAIN],
                         ids=lambda e: e["id"])
def test_the_stored_values_are_the_solvers(entry: dict) -> None:
    result = solve(_replay(entry))
    assert result.nodes == entry["nodes"]
    assert [(str(o.win), str(o.score)) for o in result.options] == [
        (o["win_exact"], o["score_exact"]) for o in entry["options"]]
