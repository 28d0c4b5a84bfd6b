"""The exact solver on stored Refuge positions: golden values, refusals with clear messages."""

from __future__ import annotations

import pytest

from advisor.players.bots import position_key
from positions import Position, parse_action
from search.errors import SearchConfigError, SolverLimitError
from search.solver import solve
from solver_positions import load_entries, replay

ENTRIES = load_entries()


def test_enough_stored_positions() -> None:
    """The issue asks for at least 10 solver positions."""
    assert len(ENTRIES) >= 10


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: f"seed{e['seed']}-{e['phase']}")
def test_solver_reproduces_the_stored_exact_values(entry: dict) -> None:
    """Last walk, one walker (C17: the game ends with the walk): the exact values are stable."""
    pos = replay(entry)
    assert sum(pos.walking) == 1 and pos.walk == pos.ruleset.walks - 1
    result = solve(pos, position_key)
    assert [str(o.action) for o in result.options] == [e["action"] for e in entry["exact"]]
    for option, stored in zip(result.options, entry["exact"]):
        assert option.win == pytest.approx(stored["win"], abs=1e-9)
        assert option.score == pytest.approx(stored["score"], abs=1e-9)
    assert str(result.best) == entry["best"]
    assert result.nodes == entry["nodes"]


def test_return_in_the_last_walk_ends_the_game_with_the_animals_scored() -> None:
    """C15/C17/C18: returning as the last walker ends the game; the return option's value is the
    certain result of scoring the path's paws."""
    entry = next(e for e in ENTRIES if e["exact"][0]["action"] == "return")
    pos = replay(entry)
    player = pos.current_player()
    after = pos.copy()
    after.apply(parse_action("return"))
    while not after.is_terminal():  # only the optional discard can remain
        after.apply(after.legal_actions()[0])
    stored = entry["exact"][0]
    assert after.returns()[player] == stored["win"]
    assert after.scores()[player] == stored["score"]


def test_solver_refuses_too_large_naming_the_size() -> None:
    """A node budget stops the solver with a message naming the size it met."""
    pos = replay(max(ENTRIES, key=lambda e: e["nodes"]))
    with pytest.raises(SolverLimitError, match="more than 50 distinct positions"):
        solve(pos, position_key, max_nodes=50)


def test_solver_refuses_two_walkers() -> None:
    """At the start both players decide (C6): not a single-decider problem."""
    with pytest.raises(SolverLimitError, match="also decides"):
        solve(Position.new_game(2), position_key)


def test_solver_refuses_chance_root_and_bad_budget() -> None:
    """The root must be a decision; the budget must be a positive int."""
    pos = Position.new_game(2)
    pos.apply(parse_action("draw"))
    pos.apply(parse_action("draw"))
    assert pos.is_chance()
    with pytest.raises(SolverLimitError, match="root must be a player's decision"):
        solve(pos, position_key)
    with pytest.raises(SearchConfigError, match="max_nodes"):
        solve(Position.new_game(2), position_key, max_nodes=0)
