"""The heuristic's endgame: the last walker of the last walk plays for the win (C5, C13, C15, C16, C18)."""

from __future__ import annotations

import random

import pytest

from positions.kernel.heuristics import DEFAULT_ROLLOUT, HeuristicPolicy
from positions.kernel.rules import storm_penalty, weather_hit_chance
from positions.kernel.rulesets import DEFAULT_RULESET
from positions.kernel.tiles import ANIMAL, KIND_BY_NAME, TILES
from positions import Position, parse_action
from positions.saved import parse_position

LAST_WALKER = {
    "format": "refuge-position/1", "rules_version": "1.0.0", "name": "last walker, one Storm short, no Steps",
    "ruleset": "default", "route": "forest", "walk": 5, "turn": 6, "decision": {"phase": "decide", "player": 1},
    "weather": {"track_suns": 3, "track_storms": 2, "deck_suns": 1, "deck_storms": 2, "reserve": 5},
    "market": {"camera": 0, "backpack": 1, "hiker": 4, "big_orientation_table": 4, "fox": 3, "cave": 3,
               "observation_hut": 4, "bear": 4},
    "box": {"sign": 2, "signpost": 3, "small_orientation_table": 1, "camera": 1},
    "players": [
        {"status": "home", "vp": 34, "steps": 1, "storms": 1, "path": [], "hand": [], "set_aside": [],
         "bag": {"storm": 1, "signpost": 1, "small_orientation_table": 1, "butterfly": 2, "hedgehog": 1,
                 "squirrel": 1, "camera": 2, "backpack": 2, "fox": 1}},
        {"status": "walking", "vp": 36, "steps": 0, "storms": 2, "path": ["camera", "squirrel", "hedgehog", "cave"],
         "hand": [], "set_aside": [], "bag": {"sign": 2, "butterfly": 2, "backpack": 1}}],
}
"""Player 1 walks alone in walk 5 with 36 VP and no Steps against 34; one more Storm ends the walk."""


def last_walker() -> Position:
    return parse_position(LAST_WALKER, "test").position


def test_weather_hit_chance_is_the_decks_storm_share_one_storm_short() -> None:
    """C5/C13: 5 of 6 Storms on the track, a deck of 1 Sun and 2 Storms: 2/3."""
    assert weather_hit_chance(last_walker()) == pytest.approx(2 / 3)


def test_last_walker_plays_steps_to_pay_the_storm_over_an_animal() -> None:
    """C16: a Storm costs a Step per path tile or a VP per missing Step. With the Storm 2/3 likely,
    the Backpack's 4 Steps keep 36 VP > 34 whatever comes; the Butterfly's VP and paw do not."""
    pos = last_walker()
    pos.apply(parse_action("draw"))
    pos.apply(parse_action("drawn butterfly backpack"))
    assert sorted(pos.legal_actions()) == sorted([parse_action("play butterfly"), parse_action("play backpack")])
    assert DEFAULT_ROLLOUT.choose(pos, random.Random(0)) == parse_action("play backpack")


def test_last_walker_ahead_returns_unless_no_storm_can_come() -> None:
    """C15/C18: ahead once the paws are scored, returning wins for sure; drawing is as sure (and
    scores more) only when its own Storms and the weather tile cannot bring the Storm this turn."""
    pos = last_walker()
    pos.vp[1] = 40
    assert DEFAULT_ROLLOUT.choose(pos, random.Random(0)) == parse_action("return")
    pos.track_storms = 0  # 3 on the track: 3 short, at most 1 more can come (no Storm in its bag)
    assert DEFAULT_ROLLOUT.choose(pos, random.Random(0)) == parse_action("draw")


def test_last_walker_behind_always_draws() -> None:
    """C18: returning behind the leader is a certain loss, so the walker draws even into the Storm."""
    pos = last_walker()
    pos.vp[0] = 60
    assert DEFAULT_ROLLOUT.choose(pos, random.Random(0)) == parse_action("draw")


def test_last_walker_tied_draws_only_while_the_storm_is_unlikely() -> None:
    """C18: tied on return (a half share), draw when the chance of no Storm beats the share."""
    pos = last_walker()
    pos.vp[0] = 39  # 36 + 3 paws: tied
    assert DEFAULT_ROLLOUT.choose(pos, random.Random(0)) == parse_action("return")  # 1/3 < 1/2
    pos.deck_suns, pos.deck_storms = 3, 1
    assert DEFAULT_ROLLOUT.choose(pos, random.Random(0)) == parse_action("draw")  # 3/4 > 1/2


def test_bad_parameters_are_refused_when_built() -> None:
    with pytest.raises(ValueError, match="behind"):
        HeuristicPolicy(behind=1.5)
    with pytest.raises(ValueError, match="draw_gain"):
        HeuristicPolicy(draw_gain=0)


def test_last_walker_buys_only_to_catch_up() -> None:
    """C12/C16: at the end Steps score nothing but pay the Storm's penalty, so a walker who wins on
    return keeps them; one behind even after scoring the path buys the tile that best raises what
    a draw brings (a Fox's 4 paw points), since a later draw may yet catch up."""
    for leader, expected in ((34, "pass"), (45, "buy fox")):
        pos = last_walker()
        pos.vp[0] = leader
        for text in ("draw", "drawn butterfly backpack", "play backpack"):
            pos.apply(parse_action(text))
        assert DEFAULT_ROLLOUT.choose(pos, random.Random(0)) == parse_action(expected)


def test_the_storm_penalty_it_weighs_is_the_rules_one() -> None:
    """C16 as a ruleset corrects it (penalised_kinds): the heuristic asks the rules which path tiles
    the Storm would cost a Step. A path of four objects, no Steps, the Storm 83% likely this turn:
    with every walk tile penalised it returns; with only animals penalised it has little at stake
    (the tile it would play, counted as penalised) and draws."""
    animals = tuple(tile.kind for tile in TILES if tile.category == ANIMAL)
    choices = []
    for ruleset in (DEFAULT_RULESET, DEFAULT_RULESET._replace(name="animals", penalised_kinds=animals)):
        pos = Position.new_game(2, "meadows", ruleset)
        pos.paths[0] = tuple(KIND_BY_NAME[name] for name in ("sign", "sign", "signpost", "compass"))
        pos.bags[0] = tuple(KIND_BY_NAME[name] for name in (
            "storm", "storm", "small_orientation_table", "butterfly", "butterfly", "hedgehog", "squirrel",
            "signpost"))
        pos.steps[0], pos.vp[0], pos.track_storms = 0, 5, 5
        assert storm_penalty(pos, 0) == (4 if ruleset.penalised_kinds is None else 0)
        choices.append(str(DEFAULT_ROLLOUT.choose(pos, random.Random(0))))
    assert choices == ["return", "draw"]
