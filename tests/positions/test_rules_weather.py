"""Rules tests: the weather (C4, C5, C13) and the Storm hitting (C16, C19)."""

from __future__ import annotations

from typing import Any

import pytest

from builders import build, kinds, run, solo
from positions import DEFAULT_RULESET, Position
from positions.kernel.phases import BUY, DECIDE, WEATHER
from positions.kernel.rules import penalised_count, storm_vp_loss
from positions.kernel.tiles import KIND_BY_NAME


def _at_weather(players: int = 2, **facts: Any) -> Position:
    """Player 0 alone on the walk plays a Fox (no effect) with 0 Steps: the weather is next."""
    pos = build(players, bags=["sign fox fox"] + [""] * (players - 1), steps=[0] * players,
                **facts)
    return solo(pos, "drawn sign fox", "play fox")


def test_weather_tile_probabilities_follow_the_deck() -> None:
    """C4 / C13: the top tile of the shuffled deck is turned: a chance event over its Suns and
    Storms."""
    pos = _at_weather(deck=(3, 1))
    assert pos.phase == WEATHER and pos.is_chance()
    assert [(str(a), p) for a, p in pos.chance_outcomes()] == [
        ("weather sun", 0.75), ("weather storm", 0.25)]


def test_sun_and_storm_go_onto_the_track() -> None:
    """Rulebook "Checking the Weather": a storm goes on "the first empty storm space", a sun on "any
    empty sun space"."""
    pos = _at_weather(deck=(3, 1))
    sunny = run(pos.copy(), "weather sun")
    assert (sunny.track_suns, sunny.deck_suns, sunny.track_storms) == (1, 2, 0)
    stormy = run(pos.copy(), "weather storm")
    assert (stormy.track_storms, stormy.deck_storms, stormy.track_suns) == (1, 0, 0)


def test_empty_deck_adds_a_reserve_storm() -> None:
    """C13 / rulebook: "If the deck is empty, add 1 reserve storm tile to the weather track." No
    chance event is needed."""
    pos = _at_weather(deck=(0, 0), track_suns=4, track_storms=1, reserve=5)
    assert pos.phase == DECIDE and pos.turn == 1
    assert (pos.reserve, pos.track_storms) == (4, 2)


@pytest.mark.parametrize("players, threshold", [(2, 6), (3, 7), (4, 9)])
def test_storm_thresholds_by_player_count(players: int, threshold: int) -> None:
    """C5 / rulebook: the Storm hits at "6 storms if 2 players. 7 storms if 3 players. 9 storms if 4
    players." One Storm short does not hit."""
    assert DEFAULT_RULESET.storm_threshold(players) == threshold
    pos = _at_weather(players, track_storms=threshold - 2, deck=(2, 2))
    short = run(pos.copy(), "weather storm")
    assert short.walk == 0 and short.turn == 1 and short.storms_on_track() == threshold - 1
    run(short, "draw", "drawn sign fox", "play fox")
    assert short.phase == WEATHER
    run(short, "weather storm")
    assert short.walk == 1 and short.turn == 0, "the Storm hit and the walk ended"


def test_storms_from_every_bag_count_towards_the_threshold() -> None:
    """C5: counting Storms "from the deck, the reserve and every player's bag, including Storms of
    players already home"."""
    pos = _at_weather(track_storms=2, owned_storms=[0, 3], deck=(2, 2))
    assert pos.walking == [True, False]
    assert pos.storms_on_track() == 5
    run(pos, "weather storm")
    assert pos.walk == 1


def test_the_storm_is_checked_only_after_the_weather() -> None:
    """Rulebook: "Once everyone has completed their purchase, turn over the weather tile ... Finally,
    check to see if the Storm hits." A drawn Storm that reaches the threshold does not stop the
    turn: the other tile is played and the buy and weather steps still happen."""
    pos = build(2, bags=["storm canteen", ""], track_storms=5, deck=(4, 0))
    solo(pos, "drawn storm canteen")
    assert pos.storms_on_track() == 6
    assert pos.paths[0] == kinds("canteen") and pos.phase == BUY
    run(pos, "pass")
    assert pos.phase == WEATHER and pos.walk == 0
    run(pos, "weather sun")
    assert pos.walk == 1


def test_no_weather_when_everyone_has_returned() -> None:
    """C13: "if at least one player is still walking, the top weather tile is turned"; rulebook:
    "A Walk can end ... either everyone returns to safety ... or the Storm hits." """
    pos = build(2, bags=["sign fox", "sign fox"], deck=(1, 0), track_suns=3)
    run(pos, "return", "return")
    assert not pos.is_chance(), "no weather tile turned"
    assert pos.walk == 1 and pos.phase == DECIDE


def test_a_walk_ends_when_the_last_walker_returns() -> None:
    """C13 / C17: a walk ends when every player has returned, over several turns."""
    pos = build(2, bags=["sign fox", "sign fox"], steps=[0, 0])
    run(pos, "return", "draw", "drawn sign fox", "play fox", "weather sun")
    assert pos.walk == 0 and pos.turn == 1 and pos.actor == 1
    run(pos, "return")  # player 1's path holds the Fox: the discard choice comes up
    run(pos, "discard none")
    assert pos.walk == 1 and pos.vp == [0, 4]


# --- C16 / C19 the Storm hits ---------------------------------------------------------------------------

def _storm_hits(steps: int, vp: int, path: str = "sign fox butterfly", **facts: Any) -> Position:
    """Player 0 walks with `path`, plays a Fox; the weather Storm then hits (2 players)."""
    pos = build(2, bags=["sign fox", ""], paths=[path, ""], steps=[steps, 0], vp=[vp, 0],
                track_storms=5, deck=(0, 1), **facts)
    solo(pos, "drawn sign fox", "play fox")
    if pos.phase == BUY:
        run(pos, "pass")
    return run(pos, "weather storm")


def test_storm_penalty_one_step_per_walk_tile() -> None:
    """C16 / rulebook Storm Warning: "Pay 1 Step for each forest tile in your path"; default: every
    walk tile. Walkers "Do not score points for the animals on your path"."""
    pos = _storm_hits(steps=6, vp=3)
    assert pos.steps[0] == 6 - 4
    assert pos.vp[0] == 3, "no animal points"


def test_storm_penalty_with_too_few_steps_costs_points() -> None:
    """C16 / rulebook: "If you do not have enough Steps, lose 1 victory point for each Step you are
    unable to pay." """
    pos = _storm_hits(steps=1, vp=10)
    assert (pos.steps[0], pos.vp[0]) == (0, 7)


def test_storm_penalty_never_takes_points_below_zero() -> None:
    """C16 / C19 / rulebook: "If you are at 0 on the Score Track, you pay nothing."; "Victory points
    never go below 0." """
    pos = _storm_hits(steps=0, vp=2)
    assert (pos.steps[0], pos.vp[0]) == (0, 0)


def test_storm_penalty_with_a_forest_ruleset() -> None:
    """C16 [ruleset]: "a ruleset may name a set of forest tile kinds instead"."""
    forest = DEFAULT_RULESET._replace(name="forest-only", penalised_kinds=(KIND_BY_NAME["fox"],))
    pos = _storm_hits(steps=5, vp=0, path="sign fox butterfly", ruleset=forest)
    assert pos.steps[0] == 5 - 2


def test_players_at_home_pay_no_storm_penalty() -> None:
    """Rulebook Storm Warning: "If you haven't already returned to your refuge ... you must rush
    back"; players at home are not penalised."""
    pos = build(2, bags=["sign fox", "sign fox"], paths=["", "sign sign"], steps=[0, 3], vp=[0, 0],
                track_storms=5, deck=(0, 1))
    run(pos, "draw", "return", "discard none", "drawn sign fox", "play fox", "weather storm")
    assert pos.walk == 1
    assert (pos.steps[1], pos.vp[1]) == (3, 0)
    assert pos.steps[0] == 0


def test_the_storm_penalty_facts_everything_else_asks() -> None:
    """C16: "pays 1 Step per penalised tile in their path, and loses 1 VP for every Step they cannot
    pay"; "Default: every walk tile in the path is penalised; a ruleset may name a set of forest tile
    kinds instead." (rules.penalised_count, rules.storm_vp_loss: the heuristic and the facts ask them)."""
    path = tuple(KIND_BY_NAME[name] for name in ("sign", "fox", "butterfly", "fox"))
    forest = DEFAULT_RULESET._replace(name="forest-only", penalised_kinds=(KIND_BY_NAME["fox"],))
    assert penalised_count(DEFAULT_RULESET, path) == 4
    assert penalised_count(forest, path) == 2
    assert [storm_vp_loss(4, steps) for steps in (0, 1, 4, 9)] == [4, 3, 0, 0]
