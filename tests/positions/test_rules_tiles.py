"""Rules tests: the catalogue and every tile effect (rulebook "The Tiles in Detail"; C9-C11, C20)."""

from __future__ import annotations

import pytest

from builders import build, kinds, legal, run, solo
from positions import Position
from positions.kernel.phases import BUY, DISCARD, EXTRA, EXTRA_DRAW, OPTION
from positions.kernel.tiles import BUYABLE_KINDS, KIND_BY_NAME, START_KINDS, TILES


def played(kind: str, *notations: str, second: str = "sign", rest: str = "", path: str = "",
           steps: int = 0, vp: int = 0, suns: int = 0) -> Position:
    """Player 0 alone on the walk draws `kind` and `second` (bag also holds `rest`), plays `kind`,
    then the `notations` are applied."""
    pos = build(2, bags=[f"{kind} {second} {rest}", ""], paths=[path, ""], steps=[steps, 0],
                vp=[vp, 0], track_suns=suns, deck=(4 - suns, 4))
    solo(pos, f"drawn {kind} {second}")
    if f"play {kind}" in legal(pos) and len(legal(pos)) > 1:
        run(pos, f"play {kind}")
    return run(pos, *notations)


# --- the catalogue ------------------------------------------------------------------------------

COSTS = {"compass": 2, "camera": 2, "cairn": 2, "shepherd": 3, "backpack": 3, "hiking_poles": 3,
         "sunglasses": 4, "hiker": 4, "toasted_marshmallows": 4, "canteen": 5,
         "big_orientation_table": 5, "map": 5, "rabbit": 4, "fox": 4, "bird": 6, "deer": 8,
         "bear": 12, "suspension_bridge": 4, "cave": 6, "big_lake": 6, "observation_hut": 8,
         "the_summit": 8, "magnificent_tree": 12, "starry_night": 12}


def test_catalogue_has_31_kinds_6_start_24_buyable() -> None:
    """Rulebook "The Tiles in Detail": 6 start kinds, Storm, 12 objects, 5 animals, 7 landscapes."""
    assert len(TILES) == 31
    assert sorted(TILES[k].name for k in START_KINDS) == sorted(
        ["sign", "signpost", "small_orientation_table", "butterfly", "hedgehog", "squirrel"])
    assert len(BUYABLE_KINDS) == 24
    categories = [TILES[k].category for k in BUYABLE_KINDS]
    assert (categories.count("object"), categories.count("animal"),
            categories.count("landscape")) == (12, 5, 7)


def test_costs_match_the_rulebook() -> None:
    """Rulebook: each walk tile's cost, e.g. "Compass (cost 2)", "Bear (cost 12)"."""
    assert {TILES[k].name: TILES[k].cost for k in BUYABLE_KINDS} == COSTS


def test_only_marshmallows_and_bridge_have_priority() -> None:
    """C8: "A tile with priority (Toasted Marshmallows, Suspension Bridge; no other tile)"."""
    assert {t.name for t in TILES if t.priority} == {"toasted_marshmallows", "suspension_bridge"}


# --- simple gains ---------------------------------------------------------------------------------

GAINS = [
    # (kind, option or "", steps gained, VP gained, rulebook sentence)
    ("sign", "", 1, 0, "Sign (start tile). Gain 1 Step."),
    ("signpost", "", 2, 0, "Signpost (start tile). Gain 2 Steps."),
    ("small_orientation_table", "vp", 0, 3, "Earn 3 victory points OR gain 3 Steps."),
    ("small_orientation_table", "steps", 3, 0, "Earn 3 victory points OR gain 3 Steps."),
    ("compass", "steps", 3, 0, "You must play 1 additional tile OR gain 3 Steps."),
    ("backpack", "", 4, 0, "Backpack (cost 3). Gain 4 Steps."),
    ("canteen", "", 5, 0, "Canteen (cost 5). Gain 5 Steps."),
    ("big_orientation_table", "vp", 0, 3, "Earn 3 victory points OR gain 5 Steps."),
    ("big_orientation_table", "steps", 5, 0, "Earn 3 victory points OR gain 5 Steps."),
    ("butterfly", "", 0, 1, "Butterfly (start tile). Earn 1 victory point."),
    ("hedgehog", "", 0, 1, "Hedgehog (start tile). Earn 1 victory point."),
    ("squirrel", "", 0, 2, "Squirrel (start tile). Earn 2 victory points."),
    ("rabbit", "", 0, 2, "Rabbit (cost 4). Earn 2 victory points."),
    ("fox", "", 0, 0, "Fox (cost 4). You will earn 4 victory points if you return (no effect)."),
    ("deer", "", 0, 3, "Deer (cost 8). Earn 3 victory points."),
    ("bear", "", 0, 6, "Bear (cost 12). Earn 6 victory points."),
    ("suspension_bridge", "", 0, 4, "Suspension Bridge (cost 4). Earn 4 victory points."),
    ("cave", "vp", 0, 4, "Cave: discard 1 or 2 walk tiles OR earn 4 victory points."),
    ("big_lake", "", 0, 5, "Big Lake (cost 6). Earn 5 victory points."),
    ("magnificent_tree", "", 0, 10, "Magnificent Tree (cost 12). Earn 10 victory points."),
]


@pytest.mark.parametrize("kind, option, steps, vp, sentence", GAINS,
                         ids=[f"{g[0]}-{g[1]}" if g[1] else g[0] for g in GAINS])
def test_boot_and_heart_gains(kind: str, option: str, steps: int, vp: int, sentence: str) -> None:
    """Rulebook "Tile Effects": "Boot icon: Gain the indicated number of Steps"; "Heart icon: Earn
    the indicated number of victory points"; "X OR Y": the player picks exactly one (C9)."""
    pos = played(kind, path="sign")  # a path tile, so Cave's discard option exists
    if option:
        assert pos.phase == OPTION and f"option {option}" in legal(pos)
        run(pos, f"option {option}")
    assert (pos.steps[0], pos.vp[0]) == (steps, vp), sentence
    assert pos.paths[0] == kinds(f"sign {kind}"), "the tile joins the path after its effect"


# --- counting effects (C9) ---------------------------------------------------------------------------

def test_camera_counts_paw_values_of_animals_in_the_path() -> None:
    """C9: Camera gains "the sum of the paw (return) values of the animal tiles in the path. Tiles
    in hand do not count." Fox 4 + Bird 2 in the path; the Deer in hand does not count."""
    pos = played("camera", second="deer", path="fox bird sign")
    assert pos.steps[0] == 6


def test_observation_hut_counts_paw_values_of_animals_in_the_path() -> None:
    """C9: Observation Hut earns the paw values of the animals in the path (Hedgehog 2 + Bear 6)."""
    pos = played("observation_hut", second="fox", path="hedgehog bear canteen")
    assert pos.vp[0] == 8


def test_camera_with_no_animals_gains_nothing() -> None:
    """C9: with no animal in the path, the sum of paw values is 0."""
    pos = played("camera", path="sign canteen")
    assert pos.steps[0] == 0


def test_hiking_poles_counts_walk_tiles_in_the_path() -> None:
    """C9 / rulebook: Hiking Poles "Gain 1 Step for each walk tile in your path (this tile and your
    refuge do not count)"; start tiles are walk tiles."""
    pos = played("hiking_poles", path="sign fox butterfly")
    assert pos.steps[0] == 3


def test_starry_night_counts_walk_tiles_in_the_path() -> None:
    """C9 / rulebook: Starry Night "Earn 3 victory points AND earn 1 victory point for each walk
    tile in your path (this tile and your refuge do not count)"."""
    assert played("starry_night", path="sign fox butterfly").vp[0] == 3 + 3
    assert played("starry_night").vp[0] == 3


@pytest.mark.parametrize("suns", [0, 1, 3])
def test_sunglasses_gains_three_steps_per_sun(suns: int) -> None:
    """C9 / rulebook: Sunglasses "Gain 3 Steps for each sun tile on the Weather Track"."""
    assert played("sunglasses", suns=suns).steps[0] == 3 * suns


@pytest.mark.parametrize("suns", [0, 2, 4])
def test_bird_earns_two_points_per_sun(suns: int) -> None:
    """C9 / rulebook: Bird "Earn 2 victory points for each sun tile on the Weather Track"."""
    assert played("bird", suns=suns).vp[0] == 2 * suns


# --- conditional payments ------------------------------------------------------------------------------

def test_toasted_marshmallows_swaps_two_points_for_seven_steps() -> None:
    """C9 / rulebook: Toasted Marshmallows "Lose 2 victory points ... AND gain 7 Steps"."""
    pos = played("toasted_marshmallows", vp=2, steps=1)
    assert (pos.vp[0], pos.steps[0]) == (0, 8)


def test_toasted_marshmallows_without_two_points_does_nothing() -> None:
    """C9 / rulebook: "If you cannot lose 2 victory points, this tile has no effect and no Steps are
    gained." It is still played and joins the path."""
    pos = played("toasted_marshmallows", vp=1, steps=1)
    assert (pos.vp[0], pos.steps[0]) == (1, 1)
    assert pos.paths[0] == kinds("toasted_marshmallows")


def test_the_summit_swaps_two_steps_for_eight_points() -> None:
    """C9 / rulebook: The Summit "Spend 2 Steps ... AND earn 8 victory points"."""
    pos = played("the_summit", steps=3, vp=1)
    assert (pos.steps[0], pos.vp[0]) == (1, 9)


def test_the_summit_without_two_steps_does_nothing() -> None:
    """C9 / rulebook: "If you cannot spend 2 Steps, this tile has no effect and no victory points are
    earned." """
    pos = played("the_summit", steps=1, vp=1)
    assert (pos.steps[0], pos.vp[0]) == (1, 1)
    assert pos.paths[0] == kinds("the_summit")


# --- additional plays (C10, C20) -----------------------------------------------------------------------

def test_compass_play_option_offers_second_tile_or_a_new_draw() -> None:
    """C10: "For each additional play, in order, the player picks: play the second tile (if it is
    still in hand), or draw 1 new tile from the bag and play it." """
    pos = played("compass", "option play", second="canteen", rest="backpack")
    assert pos.phase == EXTRA
    assert sorted(legal(pos)) == ["draw", "play canteen"]
    run(pos, "play canteen")
    assert pos.paths[0] == kinds("compass canteen")
    assert pos.steps[0] == 5


def test_drawing_for_an_additional_play_sets_the_second_tile_aside() -> None:
    """C10: "Choosing to draw sets the second tile aside for the rest of the turn (it goes back to
    the bag at the end of the turn). A newly drawn tile must be played, whatever it is." """
    pos = played("compass", "option play", "draw", second="canteen", rest="backpack sign")
    assert pos.phase == EXTRA_DRAW
    assert pos.set_aside[0] == kinds("canteen") and pos.hands[0] == ()
    run(pos, "drawn backpack")
    assert pos.paths[0] == kinds("compass backpack")
    assert pos.steps[0] == 4
    run(pos, "pass", "weather sun")
    assert sorted(pos.bags[0]) == sorted(kinds("canteen sign"))
    assert pos.set_aside[0] == ()


def test_shepherd_gains_steps_then_plays_one_more() -> None:
    """C9 / rulebook: Shepherd "You must play 1 additional tile AND gain 2 Steps" - the gain first;
    with an empty bag the second tile is the only way to play."""
    pos = played("shepherd", second="backpack")
    assert pos.paths[0] == kinds("shepherd backpack")
    assert pos.steps[0] == 2 + 4


def test_map_plays_two_more_tiles() -> None:
    """Rulebook: Map "You must play 2 additional tiles"; C10: after drawing, the second tile is set
    aside, so the next additional play draws again."""
    pos = played("map", "draw", "drawn canteen", second="sign", rest="canteen backpack")
    assert pos.phase == EXTRA_DRAW, "second tile set aside: the next play must be drawn"
    run(pos, "drawn backpack")
    assert pos.paths[0] == kinds("map canteen backpack")
    assert pos.steps[0] == 9
    assert pos.set_aside[0] == kinds("sign")


def test_map_with_an_empty_bag_plays_only_the_second_tile() -> None:
    """C10: "With an empty bag and no second tile, the remaining additional plays are lost." Rulebook:
    "If you don't have enough tiles in your bag, this effect is not or only partially applied." """
    pos = played("map", second="backpack")
    assert pos.paths[0] == kinds("map backpack")
    assert pos.extra_plays == 0
    assert pos.steps[0] == 4


def test_map_as_the_last_tile_plays_nothing_more() -> None:
    """C10: with no second tile and an empty bag, both additional plays of Map are lost."""
    pos = solo(build(2, bags=["map", ""]), "drawn map")
    assert pos.paths[0] == kinds("map")
    assert pos.extra_plays == 0
    assert pos.phase == BUY, "no draw is attempted from the empty bag"


def test_a_storm_drawn_for_an_additional_play_spends_it() -> None:
    """C10: "A newly drawn Storm goes onto the track and that additional play is spent." """
    pos = played("compass", "option play", "draw", "drawn storm", second="canteen", rest="storm")
    assert pos.owned_storms[0] == 1
    assert pos.paths[0] == kinds("compass")
    assert pos.set_aside[0] == kinds("canteen")


def test_additional_plays_chain() -> None:
    """C10: "Effects of additional tiles apply in full, so additional plays can chain": Compass plays
    Shepherd, whose own additional play draws a Backpack."""
    pos = played("compass", "option play", "play shepherd", second="shepherd", rest="backpack sign")
    assert pos.phase == EXTRA_DRAW, "Shepherd's additional play: second tile used, so draw"
    run(pos, "drawn backpack")
    assert pos.paths[0] == kinds("compass shepherd backpack")
    assert pos.steps[0] == 2 + 4


def test_a_tile_joins_the_path_before_its_additional_plays() -> None:
    """C20: "a Hiking Poles played as Compass's additional tile counts the Compass"."""
    pos = played("compass", "option play", "play hiking_poles", second="hiking_poles", rest="sign",
                 path="fox")
    assert pos.steps[0] == 2, "fox + compass"
    assert pos.paths[0] == kinds("fox compass hiking_poles")


def test_effect_applies_before_the_tile_joins_the_path() -> None:
    """C9: "The effect is applied before the tile joins the path, so 'tiles in your path' never
    includes the tile being played"."""
    assert played("hiking_poles").steps[0] == 0


# --- discards (C11) -------------------------------------------------------------------------------------

def test_cairn_discard_targets_second_tile_and_path_not_itself() -> None:
    """C11: targets are "the second tile (if still in hand) and the walk tiles in the path, never the
    tile being played"; Cairn's discard is required once chosen."""
    pos = played("cairn", second="fox", path="sign butterfly")
    assert sorted(legal(pos)) == ["option discard", "option steps"]
    run(pos, "option discard")
    assert pos.phase == DISCARD
    assert sorted(legal(pos)) == ["discard path butterfly", "discard path sign", "discard second"]
    run(pos, "discard second")
    assert pos.box == kinds("fox")
    assert pos.hands[0] == ()
    assert pos.paths[0] == kinds("sign butterfly cairn")


def test_cairn_steps_option() -> None:
    """Rulebook: Cairn "... OR gain 3 Steps"."""
    pos = played("cairn", "option steps", second="fox")
    assert pos.steps[0] == 3 and pos.box == ()


def test_cairn_without_a_target_just_gains_steps() -> None:
    """C11: "their discard option exists only when there is a target"; a Storm is never a target."""
    pos = solo(build(2, bags=["cairn storm", ""], steps=[0, 0]), "drawn cairn storm")
    assert pos.steps[0] == 3
    assert pos.box == ()


def test_hiker_gains_steps_and_may_discard() -> None:
    """C9 / C11: Hiker "AND gain 2 Steps" (gain first); its discard is optional."""
    pos = played("hiker", second="fox", path="sign")
    assert pos.phase == DISCARD
    assert pos.steps[0] == 2
    assert sorted(legal(pos)) == ["discard none", "discard path sign", "discard second"]
    run(pos, "discard path sign")
    assert pos.box == kinds("sign")
    assert pos.paths[0] == kinds("hiker")


def test_hiker_may_keep_everything() -> None:
    """C11: "Hiker's discard is optional"."""
    pos = played("hiker", "discard none", second="fox", path="sign")
    assert pos.box == () and pos.hands[0] == kinds("fox")
    assert pos.paths[0] == kinds("sign hiker")


def test_cave_discards_one_or_two_tiles() -> None:
    """C11: Cave discards "1 or 2 tiles" from the second tile and the path."""
    pos = played("cave", "option discard", second="fox", path="sign butterfly")
    assert "discard none" not in legal(pos), "the first discard is required"
    run(pos, "discard second")
    assert sorted(legal(pos)) == ["discard none", "discard path butterfly", "discard path sign"]
    run(pos, "discard path butterfly")
    assert sorted(pos.box) == sorted(kinds("fox butterfly"))
    assert pos.paths[0] == kinds("sign cave")
    assert pos.vp[0] == 0


def test_cave_may_stop_after_one_discard() -> None:
    """C11: Cave: "1 or 2" - a second discard is optional."""
    pos = played("cave", "option discard", "discard path sign", "discard none", second="fox",
                 path="sign")
    assert pos.box == kinds("sign")
    assert pos.hands[0] == kinds("fox")


def test_discarded_tiles_leave_the_game() -> None:
    """C11: "A discarded tile leaves the game for good": it is not back in the bag next turn."""
    pos = played("cairn", "option discard", second="fox", rest="sign")
    assert pos.box == kinds("fox"), "the only target is discarded without asking"
    run(pos, "weather sun")  # 0 Steps: nothing to buy, so the buy step passes by itself
    assert kinds("fox")[0] not in pos.bags[0]
    assert pos.box == kinds("fox")


def test_every_kind_has_an_effect_test() -> None:
    """All 31 kinds of "The Tiles in Detail" appear in this module (the Storm: test_rules_turn.py)."""
    covered = {g[0] for g in GAINS} | {
        "storm", "camera", "observation_hut", "hiking_poles", "starry_night", "sunglasses", "bird",
        "toasted_marshmallows", "the_summit", "compass", "shepherd", "map", "cairn", "hiker",
        "cave"}
    assert covered == set(KIND_BY_NAME)
