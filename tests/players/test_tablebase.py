"""Exact endgames inside the search: scope, every player's values (C18), the cache, the marks."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from advisor.analysis.annotate import annotate_decision
from advisor.players.tablebase import ExactEndgames, single_walker, solved_positions
from advisor.cli import cli
from advisor.cli.files import load_position_arg
from advisor.players.presets import advisor_request
from positions import Position, parse_action
from solver_positions import load_entries, replay


def test_exact_options_match_the_stored_solver_values_for_every_player() -> None:
    """Last walk, one walker: the walker's values are the solver's; the home player with the best
    score gets the rest of the win (C18), and the players' shares sum to 1."""
    for entry in load_entries()[:5]:
        pos = replay(entry)
        walker = single_walker(pos)
        assert walker == pos.current_player()
        options = ExactEndgames().exact_options(pos)
        assert options is not None
        for stored in entry["exact"]:
            returns, scores = options[int(parse_action(stored["action"]))]
            assert returns[walker] == pytest.approx(stored["win"])
            assert scores[walker] == pytest.approx(stored["score"])
            assert sum(returns) == pytest.approx(1.0)
            assert [s for p, s in enumerate(scores) if p != walker] == \
                [pos.vp[p] for p in range(pos.players) if p != walker]


def test_out_of_scope_or_over_budget_positions_have_no_exact_value() -> None:
    """Two walkers, or more positions than the budget: the search rolls out instead."""
    assert ExactEndgames().exact_value(Position.new_game(2)) is None
    pos = replay(max(load_entries(), key=lambda e: e["nodes"]))
    small = ExactEndgames(max_nodes=3, leaf_max_nodes=3)
    assert small.exact_value(pos) is None and small.exact_options(pos) is None
    before = solved_positions()
    assert small.exact_value(pos) is None  # cached, not solved again
    assert solved_positions() == before


def test_an_unshared_oracle_learns_alone_and_forgets_at_a_new_game() -> None:
    """shared=False (agents): a refused probe is remembered by this oracle only, forget() clears it,
    and a pickled copy starts empty, so whether a probe is tried never depends on other games."""
    import pickle

    pos = replay(max(load_entries(), key=lambda e: e["nodes"]))
    small = ExactEndgames(max_nodes=3, leaf_max_nodes=3, shared=False)
    before = solved_positions()
    assert small.exact_options(pos) is None
    assert solved_positions() == before  # the process's shared solvers are untouched
    roomy = ExactEndgames(max_nodes=3, leaf_max_nodes=3, shared=False)
    assert roomy._probes.in_budget(pos, 3) is not None  # another oracle has not learnt it
    assert small._probes.in_budget(pos, 3) is None  # this one has: not probed again
    assert pickle.loads(pickle.dumps(small))._probes.in_budget(pos, 3) is not None
    small.forget()
    assert small._probes.in_budget(pos, 3) is not None


def test_best_move_marks_exact_values() -> None:
    """endgame-solo is inside the solver's scope: every option exact, the interval a point."""
    result = CliRunner().invoke(cli, ["best-move", "endgame-solo", "--iterations", "200", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert all(o["exact"] and o["ci95"] == [o["win_probability"]] * 2 for o in doc["options"])
    assert sum(p["win_probability"] for p in doc["players"]) == pytest.approx(1.0)
    text = CliRunner().invoke(cli, ["best-move", "endgame-solo", "--iterations", "200"]).output
    assert "exact" in text
    assert single_walker(load_position_arg("opening-2p")) is None


def test_an_annotated_endgame_decision_is_exact_and_labelled_without_noise() -> None:
    """In the solver's scope the annotation compares exact values: no noise, the exact mark, and
    every player's chances after the move summing to 1 (C18)."""
    entry = next(e for e in load_entries() if len({o["win"] for o in e["exact"]}) > 1)
    pos = replay(entry)
    worst = min(entry["exact"], key=lambda o: (o["win"], o["score"]))
    request = advisor_request(iterations=100, seed=1, root_selection="uniform", oracle=ExactEndgames())
    note = annotate_decision(pos, int(parse_action(worst["action"])), 0, request)
    assert note.exact and note.noise == 0.0
    assert note.played_win == pytest.approx(worst["win"])
    assert note.best_win == pytest.approx(max(o["win"] for o in entry["exact"]))
    assert sum(note.chances) == pytest.approx(1.0)


# --- two walkers (issue 22) --------------------------------------------------------------------

def _two_walker_entry() -> dict:
    from two_walker_positions import load_two_walker_entries
    return min(load_two_walker_entries(), key=lambda e: e["exact"]["nodes"])


def test_two_walker_options_are_valued_against_the_other_seats_equilibrium() -> None:
    """C6: seat 1 decides return or draw without seeing seat 0's choice, so its options are the
    same whatever seat 0 chose, and both seats' options are the stored values against the other's
    equilibrium mix; every player's shares sum to 1 (C18)."""
    from advisor.players.tablebase import step_start
    from two_walker_positions import position_of
    entry = _two_walker_entry()
    start = position_of(entry)
    oracle = ExactEndgames()
    first = oracle.exact_options(start)
    assert first is not None
    seats = entry["exact"]["seats"]
    for stored in seats[0]["options"]:
        returns, _ = first[int(parse_action(stored["action"]))]
        assert returns[0] == pytest.approx(stored["win_probability"]) and sum(returns) == pytest.approx(1)
    views = []
    for choice in start.legal_actions():
        after = start.copy()
        after.apply(choice)
        assert step_start(after).solver_key() == start.solver_key()  # type: ignore[union-attr]
        views.append(oracle.exact_options(after))
    assert views[0] == views[1] and views[0] is not None
    for stored in seats[1]["options"]:
        returns, _ = views[0][int(parse_action(stored["action"]))]
        assert returns[1] == pytest.approx(stored["win_probability"])


def test_two_walker_leaf_values_are_the_steps_equilibrium() -> None:
    """Inside the search: at the step's start, the step's value; after seat 0's (hidden) choice,
    that choice's value against seat 1's equilibrium strategy."""
    from two_walker_positions import position_of
    entry = _two_walker_entry()
    start = position_of(entry)
    oracle = ExactEndgames()
    value = oracle.exact_value(start)
    assert value is not None and value[0][0] == pytest.approx(entry["exact"]["value"][0]["win_probability"])
    for stored in entry["exact"]["seats"][0]["options"]:
        after = start.copy()
        after.apply(parse_action(stored["action"]))
        leaf = oracle.exact_value(after)
        assert leaf is not None and leaf[0][0] == pytest.approx(stored["win_probability"])


def test_large_two_walker_positions_are_not_probed() -> None:
    """A played two-walker last walk holds far more tiles than TWO_WALKER_MAX_TILES: no probe."""
    from lab.endgames import two_walker_stops
    from advisor.players.tablebase import TWO_WALKER_MAX_TILES, walker_tiles
    _, pos = next(two_walker_stops("meadows", 1))
    assert walker_tiles(pos) > TWO_WALKER_MAX_TILES
    before = solved_positions()
    oracle = ExactEndgames()
    assert oracle.exact_options(pos) is None and oracle.exact_value(pos) is None
    assert solved_positions() == before


def test_solve_answers_a_two_walker_step_with_its_equilibrium(tmp_path) -> None:
    """`refuge solve` at either seat of the step: the equilibrium mixes, the option values (against
    the other seat's mix) and the definition, as text and JSON; a small budget is refused in one line."""
    entry = _two_walker_entry()
    path = tmp_path / "step.json"
    path.write_text(json.dumps(entry["position"]))
    text = CliRunner().invoke(cli, ["solve", str(path)])
    assert text.exit_code == 0, text.output
    assert "against the other seat's equilibrium strategy" in text.output
    assert f"player 0 {entry['exact']['seats'][0]['mix']}" in text.output
    doc = json.loads(CliRunner().invoke(cli, ["solve", str(path), "--json"]).stdout)
    assert doc["equilibrium"]["seats"] == entry["exact"]["seats"]
    assert doc["best"] == entry["exact"]["seats"][0]["best"]
    from positions.saved import position_to_data
    from two_walker_positions import position_of
    second = position_of(entry)
    second.apply(second.legal_actions()[0])  # hidden: the saved file does not keep it
    path.write_text(json.dumps(position_to_data(second)))
    doc = json.loads(CliRunner().invoke(cli, ["solve", str(path), "--json"]).stdout)
    assert doc["player"] == 1 and doc["equilibrium"]["seats"] == entry["exact"]["seats"]
    assert doc["best"] == entry["exact"]["seats"][1]["best"]
    refused = CliRunner().invoke(cli, ["solve", str(path), "--max-nodes", "5"])
    assert refused.exit_code == 1 and "max_nodes=5" in refused.output and "Traceback" not in refused.output
