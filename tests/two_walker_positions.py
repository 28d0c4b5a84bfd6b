"""The held-out two-walker positions (tests/data/two_walker_positions.json), loaded as positions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from positions import RULES_VERSION, Position
from positions.saved import parse_position

DATA = Path(__file__).parent / "data" / "two_walker_positions.json"


def load_two_walker_entries() -> list[dict[str, Any]]:
    """Every stored entry: seed, route, phase, trim, the position and its exact equilibrium."""
    data = json.loads(DATA.read_text())
    assert data["rules_version"] == RULES_VERSION, "regenerate with lab/scripts/make_two_walker_positions.py"
    return list(data["positions"])


def position_of(entry: dict[str, Any]) -> Position:
    """The stored position (the step's first decider to act)."""
    return parse_position(entry["position"], f"two_walker_positions.json seed {entry['seed']}").position
