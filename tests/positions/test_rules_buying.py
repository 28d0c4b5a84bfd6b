"""Rules tests: routes and the market (C3) and buying, ties included (C12)."""

from __future__ import annotations

import pytest

from builders import build, kinds, legal, run, solo
from positions import ROUTES, ImpossiblePositionError, Position, make_route, parse_route
from positions.kernel.phases import BUY, DECIDE, TIEBREAK, WEATHER
from positions.kernel.tiles import KIND_BY_NAME


# --- C3 routes and market ---------------------------------------------------------------------------

ROUTE_KINDS = {
    "meadows": "compass shepherd sunglasses canteen rabbit bird deer magnificent_tree",
    "forest": "camera backpack hiker big_orientation_table fox cave observation_hut bear",
    "mountains": "cairn hiking_poles toasted_marshmallows map suspension_bridge big_lake the_summit "
                 "starry_night",
}


@pytest.mark.parametrize("name", sorted(ROUTE_KINDS))
def test_named_routes_match_the_rulebook(name: str) -> None:
    """Rulebook "The Routes": The Charm of the Meadows, In the Shade of the Forest, Climbing in the
    Mountains, each 4 object kinds + 4 landscape/animal kinds."""
    assert ROUTES[name].kinds == kinds(ROUTE_KINDS[name])


def test_market_is_eight_stacks_of_four() -> None:
    """C3 / rulebook: "form 8 stacks, each consisting of 4 identical tiles"."""
    pos = Position.new_game(2, "forest")
    assert sum(pos.market) == 32
    assert {k for k, n in enumerate(pos.market) if n} == set(ROUTES["forest"].kinds)
    assert set(pos.market) == {0, 4}


def test_custom_route() -> None:
    """C3 / rulebook "Creating Your Own Route": "choose 4 types of object tiles and 4 types of
    landscape/animal tiles"."""
    route = parse_route("map, camera, compass, cairn, bear, fox, big_lake, cave")
    pos = Position.new_game(3, route)
    assert set(route.objects) == set(kinds("map camera compass cairn"))
    assert set(route.nature) == set(kinds("bear fox big_lake cave"))
    assert sum(pos.market) == 32


@pytest.mark.parametrize("names", [
    "compass camera cairn shepherd backpack fox bear cave",      # 5 objects, 3 nature
    "compass camera cairn shepherd fox bear cave cave",          # repeated kind
    "compass camera cairn sign fox bear cave big_lake",          # a start tile
])
def test_invalid_custom_routes_are_refused(names: str) -> None:
    """C3: "A route is 4 object kinds + 4 landscape/animal kinds" (buyable kinds only)."""
    with pytest.raises(ImpossiblePositionError):
        make_route(list(kinds(names)))


# --- C12 buying ---------------------------------------------------------------------------------------

def _at_buy(steps: list[int], vp: list[int] | None = None, market: dict[str, int] | None = None,
            players: int = 2) -> Position:
    """Every player has drawn Sign + Fox and played the Fox (no gain); the buy step is next."""
    pos = build(players, bags=["sign fox"] * players, steps=steps, vp=vp or [0] * players,
                market=market)
    run(pos, *["draw"] * players, *["drawn sign fox"] * players, *["play fox"] * players)
    return pos


def test_buy_options_are_affordable_stocked_route_kinds() -> None:
    """C12 / rulebook: "You may now buy 1 tile. To do so, spend the number of Steps indicated on that
    tile"; an empty stack cannot be bought."""
    pos = _at_buy([4, 0], market={"shepherd": 0})
    assert pos.phase == BUY and pos.actor == 0
    assert legal(pos) == ["pass", "buy compass", "buy sunglasses", "buy rabbit"]


def test_buying_pays_steps_and_puts_the_tile_in_the_bag() -> None:
    """C12 / rulebook: "Take the tile and slip it immediately into your bag." """
    pos = _at_buy([5, 0])
    run(pos, "buy canteen")
    assert pos.phase == WEATHER
    assert pos.steps[0] == 0
    assert pos.bags[0].count(KIND_BY_NAME["canteen"]) == 1
    assert pos.market[KIND_BY_NAME["canteen"]] == 3


def test_at_most_one_tile_per_turn() -> None:
    """C12: "may buy at most one tile": after one buy the step is over for that player."""
    pos = _at_buy([20, 20])
    run(pos, "buy compass")
    assert pos.actor == 1 and pos.phase == BUY
    run(pos, "buy compass")
    assert pos.phase == WEATHER
    assert pos.steps == [18, 18]


def test_returned_players_do_not_buy() -> None:
    """C12 / C15: "Players who returned this turn or earlier do not buy." """
    pos = build(2, bags=["sign fox", "sign fox"], steps=[9, 9])
    run(pos, "return", "draw", "drawn sign fox", "play fox")
    assert pos.phase == BUY and pos.actor == 1
    run(pos, "buy compass")
    assert pos.phase == WEATHER
    assert pos.steps[0] == 9


def test_lowest_score_wins_the_last_tile() -> None:
    """C12 / rulebook: "If several of you want to buy the same tile and it's the last one, the player
    with the lowest score on the Score Track takes priority." The other pays nothing."""
    pos = _at_buy([9, 9], vp=[5, 3], market={"canteen": 1})
    run(pos, "buy canteen", "buy canteen")
    assert pos.phase == WEATHER
    assert pos.steps == [9, 4]
    assert pos.market[KIND_BY_NAME["canteen"]] == 0
    assert KIND_BY_NAME["canteen"] not in pos.bags[0]


def test_fewest_steps_breaks_a_score_tie() -> None:
    """C12 / rulebook: "In the event of a tie, the one with the fewest Steps takes precedence." """
    pos = _at_buy([7, 6], vp=[3, 3], market={"canteen": 1})
    run(pos, "buy canteen", "buy canteen")
    assert pos.steps == [7, 1]


def test_ties_are_ranked_after_the_turns_plays() -> None:
    """C12: score and Steps count "as they stand after the turn's plays, before anyone pays": player 0
    starts behind but plays a Deer (+3 VP) this turn, so player 1 now has the lower score."""
    pos = build(2, bags=["deer fox", "sign fox"], steps=[9, 9], vp=[0, 1],
                market={"canteen": 1})
    run(pos, "draw", "draw", "drawn deer fox", "drawn sign fox", "play deer", "play fox")
    run(pos, "buy canteen", "buy canteen")
    assert pos.vp == [3, 1]
    assert pos.steps == [9, 4]


def test_a_full_tie_is_a_chance_event() -> None:
    """C12: "then a random draw (a chance event); a player who misses out pays nothing and buys
    nothing this turn." """
    pos = _at_buy([9, 9], vp=[2, 2], market={"canteen": 1})
    run(pos, "buy canteen", "buy canteen")
    assert pos.phase == TIEBREAK and pos.is_chance()
    assert [(str(a), p) for a, p in pos.chance_outcomes()] == [("tiebreak 0", 0.5),
                                                               ("tiebreak 1", 0.5)]
    run(pos, "tiebreak 1")
    assert pos.steps == [9, 4]
    assert pos.phase == WEATHER


def test_tiebreak_among_three_for_two_tiles() -> None:
    """C12: three tied players want a stack of two: each tie-break draw gives one tile; after the
    first, two players remain for one tile."""
    pos = _at_buy([9, 9, 9], market={"canteen": 2}, players=3)
    run(pos, "buy canteen", "buy canteen", "buy canteen")
    assert [str(a) for a, _ in pos.chance_outcomes()] == ["tiebreak 0", "tiebreak 1", "tiebreak 2"]
    run(pos, "tiebreak 1")
    assert [(str(a), p) for a, p in pos.chance_outcomes()] == [("tiebreak 0", 0.5),
                                                               ("tiebreak 2", 0.5)]
    with pytest.raises(ValueError):
        run(pos, "tiebreak 1")
    run(pos, "tiebreak 2")
    assert pos.steps == [9, 4, 4]
    assert pos.market[KIND_BY_NAME["canteen"]] == 0


def test_enough_tiles_means_no_contest() -> None:
    """C12: a contest happens only "When more players want a stack than it has tiles"."""
    pos = _at_buy([9, 9], vp=[2, 2], market={"canteen": 2})
    run(pos, "buy canteen", "buy canteen")
    assert pos.phase == WEATHER
    assert pos.steps == [4, 4]


def test_a_player_with_no_affordable_tile_passes_without_asking() -> None:
    """C12 with the single-action rule: with no Step to spend the only option is to pass."""
    pos = solo(build(2, bags=["sign fox", ""], steps=[0, 0]), "drawn sign fox", "play fox")
    assert pos.phase == WEATHER


def test_a_new_turn_follows_the_weather() -> None:
    """Rulebook: after the weather, "Otherwise, end the turn"; the next turn starts with C6."""
    pos = _at_buy([0, 0])
    assert pos.phase == WEATHER
    run(pos, "weather sun")
    assert pos.phase == DECIDE and pos.turn == 1
