"""The exact solver on stored Refuge positions: golden values, exact ties, its memo key, refusals."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from positions import Position, parse_action
from positions.saved import load_position
from search.errors import SearchConfigError, SolverLimitError
from search.solver import ExactSolver, solve
from solver_positions import load_entries, replay

ENTRIES = load_entries()
EQUAL_WIN_SHARES = Path(__file__).parent.parent / "data" / "equal-win-shares.json"


def test_enough_stored_positions() -> None:
    """The issue asks for at least 10 solver positions."""
    assert len(ENTRIES) >= 10


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: f"seed{e['seed']}-{e['phase']}")
def test_solver_reproduces_the_stored_exact_values(entry: dict) -> None:
    """Last walk, one walker (C17: the game ends with the walk): the exact values are stable."""
    pos = replay(entry)
    assert sum(pos.walking) == 1 and pos.walk == pos.ruleset.walks - 1
    result = solve(pos)
    assert [str(o.action) for o in result.options] == [e["action"] for e in entry["exact"]]
    for option, stored in zip(result.options, entry["exact"]):
        assert option.win == Fraction(stored["win_exact"])
        assert option.score == Fraction(stored["score_exact"])
        assert float(option.win) == stored["win"] and float(option.score) == stored["score"]
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
    assert after.exact_returns()[player] == Fraction(stored["win_exact"])
    assert after.scores()[player] == Fraction(stored["score_exact"])


def test_equal_win_shares_are_decided_by_the_exact_expected_score() -> None:
    """Issue 12's position: both options win for sure (exactly 1, not 0.9999999999999999), so the
    higher expected score decides: draw (19.1) over return (17, the path's paws, C15)."""
    result = solve(load_position(str(EQUAL_WIN_SHARES)).position)
    draw, give_up = result.option(parse_action("draw")), result.option(parse_action("return"))
    assert draw.win == give_up.win == 1
    assert (draw.score, give_up.score) == (Fraction(191, 10), 17)
    assert str(result.best) == "draw"


@pytest.mark.parametrize("entry", ENTRIES[:5], ids=lambda e: f"seed{e['seed']}")
def test_every_players_values_are_kept_and_consistent(entry: dict) -> None:
    """Win shares sum to exactly 1 (C18); the players at home keep their VP to the end (C17)."""
    pos = replay(entry)
    for option in solve(pos).options:
        assert sum(option.value.wins) == 1
        assert option.value.wins[pos.current_player()] == option.win
        for player in range(pos.players):
            if not pos.walking[player]:
                assert option.value.scores[player] == pos.vp[player]


def test_the_memo_is_kept_between_calls_and_chance_is_averaged_exactly() -> None:
    """A second question about the same game is answered from the memo; the value of a chance
    event is the exact weighted mean of its outcomes' values."""
    pos = replay(next(e for e in ENTRIES if e["best"] == "draw"))
    solver = ExactSolver()
    first = solver.solve(pos)
    again = solver.solve(pos)
    assert again.nodes == 0 and again.options == first.options
    after = pos.copy()
    after.apply(first.best)
    while not after.is_chance():
        after.apply(after.legal_actions()[0])
    weights = after.chance_weights()
    total = sum(w for _, w in weights)
    expected = Fraction(0)
    for outcome, weight in weights:
        child = after.copy()
        child.apply(outcome)
        expected += Fraction(weight, total) * solver.value(child).wins[first.player]
    assert solver.value(after).wins[first.player] == expected


def test_the_memo_key_holds_only_what_can_change_the_future() -> None:
    """No rule reads the order of a path or bag (C15/C16 count tiles), nor the box, the turn count
    or the history: positions that differ only there share a key; a VP or a Step does not."""
    pos = replay(max(ENTRIES, key=lambda e: len(e["actions"])))
    walker = pos.current_player()
    assert len(set(pos.paths[walker])) > 1
    other = pos.copy()
    other.paths[walker] = other.paths[walker][::-1]
    other.bags[walker] = other.bags[walker][::-1]
    other.box, other.turn, other.history = (), other.turn + 3, 12345
    assert other.solver_key() == pos.solver_key()
    other.vp[walker] += 1
    assert other.solver_key() != pos.solver_key()
    other = pos.copy()
    other.steps[walker] += 1
    assert other.solver_key() != pos.solver_key()


def test_solver_refuses_too_large_naming_the_size() -> None:
    """A node budget stops the solver with a message naming the size it met."""
    pos = replay(max(ENTRIES, key=lambda e: e["nodes"]))
    with pytest.raises(SolverLimitError, match="more than 50 distinct positions"):
        solve(pos, max_nodes=50)


def test_a_solver_refuses_a_root_it_gave_up_on_at_once() -> None:
    """A search asking again about a position beyond the budget gets the same refusal, without
    spending the budget again; what was solved on the way stays in the memo."""
    pos = replay(max(ENTRIES, key=lambda e: e["nodes"]))
    solver = ExactSolver(max_nodes=50)
    with pytest.raises(SolverLimitError, match="max_nodes=50") as first:
        solver.solve(pos)
    kept = len(solver.memo)
    assert kept >= 50
    with pytest.raises(SolverLimitError) as again:
        solver.value(pos)
    assert str(again.value) == str(first.value) and len(solver.memo) == kept


def test_solver_refuses_two_walkers() -> None:
    """At the start both players decide (C6): not a single-decider problem."""
    with pytest.raises(SolverLimitError, match="also decides"):
        solve(Position.new_game(2))


def test_solver_refuses_chance_root_and_bad_budget() -> None:
    """The root must be a decision; the budget must be a positive int."""
    pos = Position.new_game(2)
    pos.apply(parse_action("draw"))
    pos.apply(parse_action("draw"))
    assert pos.is_chance()
    with pytest.raises(SolverLimitError, match="root must be a player's decision"):
        solve(pos)
    with pytest.raises(SearchConfigError, match="max_nodes"):
        solve(Position.new_game(2), max_nodes=0)
