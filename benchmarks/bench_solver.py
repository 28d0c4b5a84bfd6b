"""Two-walker exact solver speed: a simultaneous step solved from scratch (docs/search.md).

Run with ``make bench``; under ``make test`` (benchmarks disabled) each function still runs once
and checks its exact result against the stored one.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from positions.saved import parse_position
from search.equilibrium import EquilibriumSolver

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "two_walker_positions.json"
ENTRIES = json.loads(DATA.read_text())["positions"]
MIXED = next(e for e in ENTRIES if "/" in e["exact"]["seats"][0]["mix"])
LARGEST = max(ENTRIES, key=lambda e: e["exact"]["nodes"])


@pytest.mark.parametrize("entry", [MIXED, LARGEST], ids=["mixed", "largest"])
def test_two_walker_step(benchmark, entry: dict) -> None:  # type: ignore[no-untyped-def]
    """One two-walker return-or-draw step solved from scratch (a fresh memo each round)."""
    pos = parse_position(entry["position"]).position
    result = benchmark.pedantic(lambda: EquilibriumSolver().solve_step(pos), rounds=3, iterations=1)
    assert result.nodes == entry["exact"]["nodes"]
    assert result.value.wins[0] == Fraction(entry["exact"]["value"][0]["win_exact"])
