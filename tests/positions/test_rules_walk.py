"""Rules tests: returning to the refuge (C15), the end of a walk (C17) and of the game (C18)."""

from __future__ import annotations

from collections import Counter

import pytest

from builders import build, kinds, legal, run
from positions import IllegalActionError, parse_action
from positions.kernel.phases import DECIDE, RETURN_DISCARD
from positions.kernel.tiles import STORM


def test_returning_scores_the_paw_values_of_the_path() -> None:
    """C15 / rulebook: "You score victory points based on the animals shown on all of the tiles";
    example: "Blue scores 3 victory points (2 for the bird + 1 for the squirrel)"."""
    pos = build(2, bags=["sign", "sign fox"], paths=["bird squirrel canteen", ""], vp=[1, 0])
    run(pos, "return", "draw")
    assert pos.vp[0] == 1 + 3


@pytest.mark.parametrize("animal, paw", [("butterfly", 1), ("hedgehog", 2), ("squirrel", 1),
                                         ("rabbit", 2), ("fox", 4), ("bird", 2), ("deer", 5),
                                         ("bear", 6)])
def test_paw_value_of_each_animal(animal: str, paw: int) -> None:
    """Rulebook "Animal Tiles": "You will earn N victory points if you return to your refuge"."""
    pos = build(2, bags=["sign", "sign fox"], paths=[animal, ""])
    run(pos, "return", "draw")
    assert pos.vp[0] == paw


def test_returning_offers_one_optional_discard_from_the_path() -> None:
    """C15 / rulebook: "You may permanently discard 1 walk tile from in front of you and put it back
    in the box." Then "Put your tiles back in your bag"."""
    pos = build(2, bags=["sign", "sign fox"], paths=["fox canteen canteen", ""])
    run(pos, "return", "draw")
    assert pos.phase == RETURN_DISCARD and pos.actor == 0
    assert legal(pos) == ["discard none", "discard path canteen", "discard path fox"]
    run(pos, "discard path canteen")
    assert pos.box == kinds("canteen")
    assert Counter(pos.bags[0]) == Counter(kinds("sign fox canteen"))
    assert pos.paths[0] == () and not pos.walking[0]


def test_returning_with_an_empty_path_asks_nothing() -> None:
    """C15: with no walk tile in the path there is nothing to discard."""
    pos = build(2, bags=["sign", "sign fox"])
    run(pos, "return", "draw")
    assert pos.phase != RETURN_DISCARD and not pos.walking[0]


def test_returned_players_take_no_further_part() -> None:
    """C15 / rulebook: "You will not play again during this Walk. Those who remain in the game
    continue their Walk"."""
    pos = build(2, bags=["sign fox", "sign fox fox"], steps=[0, 0])
    run(pos, "return", "draw", "drawn sign fox", "play fox", "weather sun")
    assert pos.phase == DECIDE and pos.actor == 1
    run(pos, "draw")
    assert pos.actor == 1, "only player 1 draws"


def test_returners_storms_stay_on_the_track() -> None:
    """C15 / rulebook: "Put your tiles back in your bag, except for your storms, which remain on the
    board until the end of the current Walk." """
    pos = build(2, bags=["storm sign fox", "sign fox fox fox"], steps=[0, 0])
    run(pos, "draw", "draw", "drawn storm sign", "drawn sign fox", "play fox", "weather sun")
    assert pos.owned_storms[0] == 1
    run(pos, "return", "draw", "discard none")
    assert not pos.walking[0]
    assert pos.owned_storms[0] == 1 and pos.storms_on_track() == 1
    assert STORM not in pos.bags[0]


def test_end_of_walk_resets() -> None:
    """C17 / rulebook "End of the Walk": "Collect your storm tiles ... and put them in your bag with
    the rest of your tiles"; "Reshuffle the weather deck by mixing 4 storms and 4 suns"; "replace
    the reserve storm tiles". Steps, VP, market and box carry over."""
    pos = build(2, bags=["storm canteen sign", "sign fox"], paths=["bird", "butterfly"],
                steps=[2, 1], vp=[4, 4], track_storms=4, track_suns=2, deck=(2, 1), reserve=4,
                market={"compass": 2})
    run(pos, "draw", "draw", "drawn storm canteen", "drawn sign fox", "play fox")
    assert pos.owned_storms[0] == 1 and pos.hands[1] == kinds("sign")
    run(pos, "buy compass", "weather storm")  # 4 + 1 owned + 1 = 6: the Storm hits
    assert (pos.walk, pos.turn, pos.phase) == (1, 0, DECIDE)
    assert Counter(pos.bags[0]) == Counter(kinds("storm canteen sign bird compass"))
    assert Counter(pos.bags[1]) == Counter(kinds("sign fox butterfly"))
    assert pos.paths == [(), ()] and pos.hands == [(), ()] and pos.set_aside == [(), ()]
    assert pos.owned_storms == [0, 0] and pos.walking == [True, True]
    assert (pos.deck_suns, pos.deck_storms, pos.reserve) == (4, 4, 5)
    assert (pos.track_suns, pos.track_storms) == (0, 0)
    # Storm penalty (C16): player 0 had bird + canteen = 2 tiles, player 1 butterfly + fox = 2.
    assert pos.steps == [2 + 5 - 2 - 2, 0] and pos.vp == [4, 3]
    assert pos.market[kinds("compass")[0]] == 1


def test_set_aside_tiles_return_at_end_of_walk() -> None:
    """C10 / C17: a tile set aside for an additional play goes back to its bag when the walk ends."""
    pos = build(2, bags=["compass canteen storm", ""], track_storms=5, deck=(0, 1))
    run(pos, "draw", "drawn compass canteen", "play compass", "option play", "draw",
        "drawn storm", "pass", "weather storm")
    assert pos.walk == 1
    assert Counter(pos.bags[0]) == Counter(kinds("compass canteen storm"))


def test_the_game_ends_after_the_fifth_walk() -> None:
    """Rulebook "End of the Game": "At the end of the 5th Walk, the game is over." """
    pos = build(2, bags=["sign fox", "sign fox"], walk=4)
    run(pos, "return", "return")
    assert pos.is_terminal()
    assert pos.legal_actions() == ()
    with pytest.raises(IllegalActionError):
        pos.apply(parse_action("draw"))


def test_a_walk_before_the_fifth_does_not_end_the_game() -> None:
    """Rulebook: "There will be 5 Walks during the game."; walk 4 is followed by walk 5."""
    pos = build(2, bags=["sign fox", "sign fox"], walk=3)
    run(pos, "return", "return")
    assert not pos.is_terminal() and pos.walk == 4


@pytest.mark.parametrize("vp, returns", [
    ([9, 4], [1.0, 0.0]),
    ([5, 5], [0.5, 0.5]),
    ([3, 7, 7], [0.0, 0.5, 0.5]),
    ([2, 2, 2, 2], [0.25] * 4),
    ([0, 1, 1, 1], [0.0, 1 / 3, 1 / 3, 1 / 3]),
])
def test_highest_score_wins_and_ties_share(vp: list[int], returns: list[float]) -> None:
    """C18 / rulebook: "The person furthest ahead on the Score Track wins!"; "tied players share the
    win (each of k tied winners gets 1/k of a win)"."""
    players = len(vp)
    pos = build(players, bags=[""] * players, vp=vp, walk=4)
    assert pos.is_terminal(), "empty bags: everyone must return, the last walk ends"
    assert pos.returns() == pytest.approx(returns)
    assert pos.scores() == vp


def test_returns_are_zero_before_the_end() -> None:
    """C18: results exist only at the end of the game."""
    pos = build(2, vp=[5, 0])
    assert pos.returns() == [0.0, 0.0]
