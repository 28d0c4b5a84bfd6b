"""The stored solver positions (tests/data/solver_positions.json), replayed from their actions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from positions import RULES_VERSION, Position, parse_action

DATA = Path(__file__).parent / "data" / "solver_positions.json"


def load_entries() -> list[dict[str, Any]]:
    """Every stored entry: players, route, actions, exact option values, best action."""
    data = json.loads(DATA.read_text())
    assert data["rules_version"] == RULES_VERSION, "regenerate with lab/scripts/make_solver_positions.py"
    return list(data["positions"])


def replay(entry: dict[str, Any]) -> Position:
    """The position an entry's actions lead to from a new game."""
    pos = Position.new_game(entry["players"], entry["route"])
    for text in entry["actions"]:
        pos.apply(parse_action(text))
    return pos
