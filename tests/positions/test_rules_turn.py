"""Rules tests: setup and the flow of a turn (decide, draw, choose, end of turn): C1-C8, C14."""

from __future__ import annotations

from collections import Counter

import pytest

from builders import build, kinds, legal, run, solo
from positions import Position, parse_action
from positions.kernel.phases import BUY, CHOOSE, DEAL, DECIDE
from positions.kernel.tiles import STORM


# --- setup --------------------------------------------------------------------------------------

def test_start_bag_is_the_ruleset_start_bag() -> None:
    """C1: each player starts with 2 Storm, 2 Sign, 2 Signpost, 1 Small Orientation Table,
    2 Butterfly, 1 Hedgehog, 1 Squirrel (11 start tiles, rulebook "Game Setup")."""
    pos = Position.new_game(3)
    expected = Counter(kinds("storm storm sign sign signpost signpost small_orientation_table "
                             "butterfly butterfly hedgehog squirrel"))
    for bag in pos.bags:
        assert Counter(bag) == expected
        assert len(bag) == 11


def test_players_start_with_two_steps_and_no_points() -> None:
    """C2 / rulebook "Game Setup": "take 2 Step tokens"; every player starts at 0 VP."""
    pos = Position.new_game(4)
    assert pos.steps == [2, 2, 2, 2]
    assert pos.vp == [0, 0, 0, 0]
    assert pos.walking == [True] * 4


def test_weather_starts_with_full_deck_and_reserve() -> None:
    """C4: the deck is 4 Sun + 4 Storm, the reserve holds 5 Storms, the track starts empty."""
    pos = Position.new_game(2)
    assert (pos.deck_suns, pos.deck_storms, pos.reserve) == (4, 4, 5)
    assert (pos.track_suns, pos.track_storms, pos.storms_on_track()) == (0, 0, 0)


@pytest.mark.parametrize("players", [1, 5])
def test_unsupported_player_counts_are_refused(players: int) -> None:
    """Rulebook "Components": the game is for 2 to 4 players (4 colours)."""
    with pytest.raises(ValueError, match=str(players)):
        Position.new_game(players)


# --- C6 decide ---------------------------------------------------------------------------------

def test_each_walking_player_decides_return_or_draw() -> None:
    """C6: each walking player secretly decides: return to the refuge, or draw."""
    pos = Position.new_game(2)
    assert pos.phase == DECIDE and pos.actor == 0
    assert legal(pos) == ["return", "draw"]
    run(pos, "draw")
    assert pos.phase == DECIDE and pos.actor == 1
    assert legal(pos) == ["return", "draw"]


def test_empty_bag_forces_a_return() -> None:
    """C6 / rulebook "End of Turn": "If there are no more tiles in your bag, you must return to your
    refuge at the beginning of the next turn." The forced return is applied without asking."""
    pos = build(2, bags=["", "sign sign"], paths=["fox", ""])
    assert pos.actor == 1, "player 0 has no choice to make"
    run(pos, "draw")
    # Player 0 goes home: scores the Fox (C15) and may discard it.
    assert legal(pos) == ["discard none", "discard path fox"]
    run(pos, "discard none")
    assert pos.walking == [False, True]
    assert pos.vp[0] == 4
    assert pos.bags[0] == kinds("fox")


# --- C7 draw -----------------------------------------------------------------------------------

def test_drawing_takes_two_tiles_into_the_hand() -> None:
    """C7 / rulebook: "secretly draw 2 tiles from your bag, which you keep in your hand"."""
    pos = build(2, bags=["canteen backpack sign", "sign sign"])
    run(pos, "draw", "draw")
    assert pos.phase == DEAL and pos.actor == 0
    outcomes = dict((str(a), p) for a, p in pos.chance_outcomes())
    assert outcomes == pytest.approx({"drawn sign backpack": 1 / 3, "drawn sign canteen": 1 / 3,
                                      "drawn backpack canteen": 1 / 3})
    run(pos, "drawn canteen backpack")
    assert sorted(pos.hands[0]) == sorted(kinds("canteen backpack"))
    assert pos.bags[0] == kinds("sign")


def test_draw_probabilities_follow_the_bag_counts() -> None:
    """C7: a draw is a chance event over the bag multiset: 2 Sign + 1 Fox gives a Sign pair 1/3."""
    pos = build(2, bags=["sign sign fox", "sign sign"])
    run(pos, "draw", "draw")
    outcomes = dict((str(a), p) for a, p in pos.chance_outcomes())
    assert outcomes == pytest.approx({"drawn sign sign": 1 / 3, "drawn sign fox": 2 / 3})


def test_only_one_tile_left_draws_and_plays_it() -> None:
    """C7 / rulebook: "If you want to play tiles, but there is only one left in your bag, you only
    play that one." """
    pos = solo(build(2, bags=["backpack", ""]))
    assert [(str(a), p) for a, p in pos.chance_outcomes()] == [("drawn backpack", 1.0)]
    with pytest.raises(ValueError):
        pos.apply(parse_action("drawn backpack sign"))
    run(pos, "drawn backpack")
    assert pos.paths[0] == kinds("backpack")
    assert pos.steps[0] == 2 + 4


def test_one_storm_drawn_goes_on_the_track_and_the_other_tile_is_played() -> None:
    """C7 / rulebook: "If you draw a storm, immediately add it to a storm space on the weather track
    and play your second tile in your path." """
    pos = solo(build(2, bags=["storm canteen sign", ""]), "drawn storm canteen")
    assert pos.owned_storms[0] == 1
    assert pos.storms_on_track() == 1
    assert pos.paths[0] == kinds("canteen")
    assert pos.steps[0] == 2 + 5
    assert pos.hands[0] == ()


def test_two_storms_drawn_play_nothing_but_the_player_still_walks_and_buys() -> None:
    """C7 / rulebook: "If you draw 2 storms, add them both to the storm spaces, without adding any
    tiles to your path." The player is still walking and may still buy (C7)."""
    pos = solo(build(2, bags=["storm storm sign", ""], steps=[3, 2]), "drawn storm storm")
    assert pos.owned_storms[0] == 2
    assert pos.paths[0] == ()
    assert pos.walking[0]
    assert pos.phase == BUY and pos.actor == 0
    assert "buy compass" in legal(pos)


# --- C8 choose ----------------------------------------------------------------------------------

def test_either_tile_may_be_chosen_without_priority() -> None:
    """C8 / rulebook: "Each player chooses 1 of their tiles to play; the other will be returned to
    the bag at the end of the turn." """
    pos = solo(build(2, bags=["canteen sign fox", ""]), "drawn canteen sign")
    assert pos.phase == CHOOSE
    assert sorted(legal(pos)) == ["play canteen", "play sign"]


@pytest.mark.parametrize("priority", ["toasted_marshmallows", "suspension_bridge"])
def test_a_priority_tile_must_be_played(priority: str) -> None:
    """C8 / rulebook: "If one of your tiles has the priority symbol, you have no choice but to play
    it." Only Toasted Marshmallows and Suspension Bridge have priority."""
    pos = solo(build(2, bags=[f"{priority} canteen sign", ""], vp=[3, 0]),
               f"drawn {priority} canteen")
    assert pos.paths[0] == kinds(priority), "played without a choice"
    assert pos.hands[0] == kinds("canteen")


def test_two_priority_tiles_leave_the_choice() -> None:
    """C8 / rulebook: "If both tiles have this symbol, you choose which one to play." """
    pos = solo(build(2, bags=["toasted_marshmallows suspension_bridge sign", ""]),
               "drawn toasted_marshmallows suspension_bridge")
    assert sorted(legal(pos)) == ["play suspension_bridge", "play toasted_marshmallows"]


def test_two_identical_tiles_are_played_without_asking() -> None:
    """C8 with the engine's rule that a decision with a single legal action is applied at once:
    two tiles of the same kind are one choice."""
    pos = solo(build(2, bags=["sign sign fox", ""]), "drawn sign sign")
    assert pos.paths[0] == kinds("sign")
    assert pos.hands[0] == kinds("sign")


# --- C14 end of turn ----------------------------------------------------------------------------

def test_unplayed_tile_returns_to_the_bag_at_end_of_turn() -> None:
    """C14 / rulebook "End of Turn": "Return your un-played tile to your bag before starting a new
    turn." """
    pos = solo(build(2, bags=["canteen sign fox", ""]), "drawn canteen sign", "play canteen")
    assert pos.hands[0] == kinds("sign")
    run(pos, "pass", "weather sun")
    assert pos.hands[0] == ()
    assert sorted(pos.bags[0]) == sorted(kinds("sign fox"))
    assert pos.turn == 1 and pos.phase == DECIDE


def test_the_played_tile_stays_in_the_path_across_turns() -> None:
    """Rulebook: each turn "place it in front of you to form a path"; the path grows every turn."""
    pos = solo(build(2, bags=["canteen sign backpack", ""]), "drawn canteen sign", "play canteen",
               "pass", "weather sun", "draw", "drawn sign backpack", "play backpack")
    assert pos.paths[0] == kinds("canteen backpack")


# --- simultaneous steps ---------------------------------------------------------------------------

def _both_choices(pos: Position) -> list[Position]:
    """The position after each of the current actor's legal choices."""
    result = []
    for action in pos.legal_actions():
        other = pos.copy()
        other.apply(action)
        result.append(other)
    return result


@pytest.mark.parametrize("step", ["decide", "choose", "buy"])
def test_simultaneous_choices_are_hidden_from_the_others(step: str) -> None:
    """C6, C8, C12 and the note before C6: "nobody sees another's choice before making their own".
    Steps are taken in seat order, so player 1's legal actions and every other player's information
    set key must not depend on what player 0 chose in the same step."""
    pos = build(3, bags=["canteen sign fox", "canteen sign fox", "canteen sign fox"],
                steps=[9, 9, 9])
    if step != "decide":
        run(pos, "draw", "draw", "draw", "drawn canteen sign", "drawn canteen sign",
            "drawn canteen sign")
        if step == "buy":
            run(pos, "play sign", "play sign", "play sign")
    assert pos.actor == 0 and len(pos.legal_actions()) >= 2
    afters = _both_choices(pos)
    assert {after.actor for after in afters} == {1}
    assert len({tuple(after.legal_actions()) for after in afters}) == 1
    for player in (1, 2):
        assert len({after.information_set_key(player) for after in afters}) == 1
    assert len({after.information_set_key(0) for after in afters}) == len(afters), \
        "a player's own unrevealed choice is part of their key"


def test_choices_are_revealed_when_the_step_completes() -> None:
    """C6: decisions are revealed together; once the step completes, every key reflects them."""
    pos = build(2, bags=["canteen sign fox", "canteen sign fox"])
    keys = set()
    for first in ("return", "draw"):
        after = run(pos.copy(), first, "draw")
        keys.add(after.information_set_key(1))
    assert len(keys) == 2


def test_draws_are_revealed_to_everyone() -> None:
    """C7: "Draws are then revealed to all": another player's draw changes my information set."""
    pos = build(2, bags=["canteen sign fox", "canteen sign fox"])
    run(pos, "draw", "draw")
    keys = {run(pos.copy(), drawn).information_set_key(1)
            for drawn in ("drawn canteen sign", "drawn sign fox")}
    assert len(keys) == 2


def test_storm_tiles_are_never_in_a_hand() -> None:
    """C7 / C9: "the refuge tile and Storms are never in a path"; a drawn Storm goes to the track."""
    pos = solo(build(2, bags=["storm sign fox", ""]), "drawn storm sign")
    assert STORM not in pos.hands[0] and STORM not in pos.paths[0]
