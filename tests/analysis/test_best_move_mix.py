"""best-move at a simultaneous step searched with regret matching: the mean strategy, shown as a
mix when it is genuinely mixed ("return 70% / draw 30%"), in the table and the JSON; at an exactly
solved two-walker step, the solver's equilibrium mix (issue 22)."""

from __future__ import annotations

import dataclasses

import pytest

from advisor.analysis.best_move import (
    MIXED_SHARE, advice_rows, advice_to_data, advise, mix_text,
)
from advisor.players.presets import advisor_request
from advisor.players.tablebase import ExactEndgames
from positions import Position, parse_action
from positions.kernel.actions import action_from_code
from two_walker_positions import load_two_walker_entries, position_of


def two_hidden_choices() -> tuple[Position, Position]:
    """Player 1 to return or draw at the first turn, after player 0's unseen return / draw (C6)."""
    first, second = Position.new_game(2, "meadows"), Position.new_game(2, "meadows")
    first.apply(parse_action("return"))
    second.apply(parse_action("draw"))
    return first, second


def test_regret_matching_gives_every_option_a_share_summing_to_one() -> None:
    first, _ = two_hidden_choices()
    advice = advise(first, advisor_request(iterations=300, seed=2, simultaneous="rm"), with_facts=False)
    shares = [s.share for s in advice.result.actions]
    assert all(share is not None and 0 <= share <= 1 for share in shares)
    assert sum(shares) == pytest.approx(1.0)  # type: ignore[arg-type]
    data = advice_to_data(advice)
    assert [o["share"] is not None for o in data["options"]] == [True] * len(shares)
    assert all(entry["probability"] >= MIXED_SHARE for entry in data["mix"])  # type: ignore[union-attr]


def test_uct_has_no_mix() -> None:
    first, _ = two_hidden_choices()
    advice = advise(first, advisor_request(iterations=200, seed=2, simultaneous="uct"), with_facts=False)
    assert advice.mix == [] and mix_text(advice) == ""
    assert advice_to_data(advice)["mix"] == []
    assert all(o["share"] is None for o in advice_to_data(advice)["options"])  # type: ignore[index, union-attr]


def test_a_mixed_strategy_is_shown_likeliest_first() -> None:
    """return 70 / draw 30: the mix line, the JSON and a note per row; a 95/5 split is not a mix."""
    first, _ = two_hidden_choices()
    advice = advise(first, advisor_request(iterations=100, seed=2, simultaneous="rm"), with_facts=False)
    shares = {parse_action("return"): 0.3, parse_action("draw"): 0.7}
    mixed = dataclasses.replace(advice, result=dataclasses.replace(advice.result, actions=tuple(
        dataclasses.replace(s, share=shares[s.action]) for s in advice.result.actions)))
    assert mix_text(mixed) == "draw 70% / return 30%"
    assert advice_to_data(mixed)["mix"] == [{"action": "draw", "probability": 0.7},
                                            {"action": "return", "probability": 0.3}]
    notes = {row[1]: row[-1] for row in advice_rows(mixed)}
    assert notes["draw"].startswith("mix 70%") and notes["return"].startswith("mix 30%")
    pure = {parse_action("return"): 0.95, parse_action("draw"): 0.05}
    nearly = dataclasses.replace(advice, result=dataclasses.replace(advice.result, actions=tuple(
        dataclasses.replace(s, share=pure[s.action]) for s in advice.result.actions)))
    assert nearly.mix == [] and all("mix" not in row[-1] for row in advice_rows(nearly))


def test_best_move_takes_the_selection_at_simultaneous_steps() -> None:
    """``--simultaneous rm``: every option carries its share of the mean strategy in the JSON."""
    import json

    from click.testing import CliRunner

    from advisor.cli import cli

    result = CliRunner().invoke(cli, ["best-move", "storm-one-away", "--iterations", "100",
                                      "--simultaneous", "rm", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert sum(o["share"] for o in doc["options"]) == pytest.approx(1.0, abs=1e-3)
    plain = json.loads(CliRunner().invoke(cli, ["best-move", "storm-one-away", "--iterations", "100",
                                                "--json"]).output)
    assert all(o["share"] is None for o in plain["options"]) and plain["mix"] == []


def test_an_exactly_solved_mixed_step_shows_the_solvers_equilibrium_mix() -> None:
    """Two walkers in the last walk (C6: both choose unseen): where the solver answers and its
    equilibrium is mixed, best-move's mix is the solver's, whatever the search's selection."""
    mixed = [e for e in load_two_walker_entries()
             if sum(o["probability"] > 0 for o in e["exact"]["seats"][0]["options"]) > 1]
    assert mixed, "the held-out set has mixed equilibria"
    entry = mixed[0]
    position = position_of(entry)
    advice = advise(position, advisor_request(iterations=100, seed=1, oracle=ExactEndgames()), with_facts=False)
    expected = {o["action"]: o["probability"] for o in entry["exact"]["seats"][0]["options"]}
    assert {str(action_from_code(a)): p for a, p in advice.mix} == pytest.approx(expected)
    assert "mix " in " ".join(str(row[-1]) for row in advice_rows(advice))

