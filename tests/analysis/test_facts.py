"""The facts behind a return-or-draw decision (C5, C13, C15, C16)."""

from __future__ import annotations

import pytest

from advisor.analysis.facts import return_facts
from positions.kernel.rules import weather_hit_chance
from advisor.cli.files import load_position_arg
from positions import TILES, Position


def test_weather_alone_hits_with_the_decks_storm_share_one_storm_away() -> None:
    """C13/C5: one Storm short, the turned tile hits with probability storms / tiles left."""
    pos = load_position_arg("storm-one-away")
    assert pos.storms_to_hit() == 1
    assert weather_hit_chance(pos) == pytest.approx(pos.deck_storms / (pos.deck_suns + pos.deck_storms))


def test_weather_cannot_hit_two_storms_away_and_the_reserve_always_hits_one_away() -> None:
    pos = Position.new_game(2)
    assert weather_hit_chance(pos) == 0.0
    pos.track_storms, pos.deck_suns, pos.deck_storms = pos.threshold - 1, 0, 0
    assert weather_hit_chance(pos) == 1.0  # C13: an empty deck adds a reserve Storm


def test_facts_count_paws_steps_and_vp_at_risk() -> None:
    """C15 scores the paw values; C16 costs a Step per tile and a VP per missing Step (floor 0)."""
    pos = load_position_arg("storm-one-away")
    me = pos.current_player()
    facts = return_facts(pos, samples=300, seed=1)
    assert facts is not None
    path = pos.paths[me]
    assert facts.animal_points == sum(TILES[k].paw for k in path)
    # C16 with the default ruleset penalises every walk tile: the path and the tile a draw plays.
    assert facts.tiles_at_risk == len(path) + 1
    assert facts.steps_at_risk == min(len(path) + 1, pos.steps[me])
    assert facts.vp_at_risk == min(max(0, len(path) + 1 - pos.steps[me]), pos.vp[me])
    assert 0.0 <= facts.hit_chance_walk <= 1.0 and not facts.hit_chance_this_turn_exact
    # Drawing can only add Storms before the weather tile, so the chance is at least the tile's own.
    assert facts.hit_chance_this_turn >= facts.hit_chance_weather_only - 0.05
    assert 0.0 <= facts.hit_chance_this_turn <= 1.0


def test_the_turns_hit_chance_is_exact_when_no_draw_can_reach_the_threshold() -> None:
    """C5/C13: with more Storms missing than the walkers' bags and the weather tile hold, no hit."""
    pos = load_position_arg("storm-one-away")
    pos.track_storms = 0
    pos.owned_storms = [0] * pos.players
    facts = return_facts(pos, samples=50, seed=1)
    assert facts is not None and facts.hit_chance_this_turn_exact
    assert facts.hit_chance_this_turn == 0.0


def test_no_facts_away_from_a_return_or_draw_decision() -> None:
    assert return_facts(load_position_arg("which-tile")) is None
