"""Notation and errors: every form of docs/notation.md reads back, bad input is refused clearly."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from builders import build, kinds, run
from positions import IllegalActionError, InvalidActionError, parse_action
from positions.kernel.actions import action_from_code, drawn_two, is_chance_outcome
from positions.kernel.phases import CHOOSE
from positions.kernel.tiles import KIND_BY_NAME


@pytest.mark.parametrize("text", [
    "return", "draw", "pass", "play canteen", "option steps", "option vp", "option play",
    "option discard", "discard none", "discard second", "discard path fox", "buy bear",
    "drawn fox", "drawn sign compass", "weather sun", "weather storm", "tiebreak 1",
])
def test_documented_forms_round_trip(text: str) -> None:
    """docs/notation.md: each documented form is read and written back unchanged."""
    assert str(parse_action(text)) == text


def test_parsing_is_forgiving_about_case_spacing_hyphens_and_draw_order() -> None:
    """docs/notation.md: case, extra spaces and hyphens for underscores do not matter, and a
    two-tile draw may name its tiles in either order (written in catalogue order)."""
    assert parse_action("  Play   Big-Lake ") == parse_action("play big_lake")
    assert parse_action("drawn compass sign") == parse_action("drawn sign compass")
    assert parse_action("drawn compass sign") == drawn_two(KIND_BY_NAME["sign"],
                                                           KIND_BY_NAME["compass"])


@pytest.mark.parametrize("text, words", [
    ("play dragon", "dragon"), ("buy unicorn", "unicorn"), ("fly away", "fly away"), ("", "''"),
])
def test_unreadable_text_raises_invalid_action_error(text: str, words: str) -> None:
    """STYLE: bad input raises a ValueError subclass that names the bad value."""
    with pytest.raises(InvalidActionError, match=words) as caught:
        parse_action(text)
    assert isinstance(caught.value, ValueError)


def test_unknown_code_raises_invalid_action_error() -> None:
    """Codes outside the action space name no action."""
    with pytest.raises(InvalidActionError, match="99999"):
        action_from_code(99999)


def test_illegal_action_names_the_action_and_the_legal_ones() -> None:
    """STYLE: IllegalActionError says what was wrong and where (player, step, legal actions)."""
    pos = build(2)
    with pytest.raises(IllegalActionError, match=r"buy bear.*player 0.*decide.*return, draw"):
        pos.apply(parse_action("buy bear"))


def test_impossible_chance_outcome_is_refused() -> None:
    """C7: a draw outcome must be in the bag; a weather outcome must be in the deck. A refused
    outcome leaves the position as it was (its information set key included)."""
    pos = build(2, bags=["sign fox", ""])
    run(pos, "draw")
    key, bags = pos.information_set_key(0), pos.bags[:]
    with pytest.raises(IllegalActionError):
        run(pos, "drawn bear bear")
    with pytest.raises(IllegalActionError):
        run(pos, "weather sun")
    with pytest.raises(IllegalActionError):
        pos.apply(10**6)
    assert pos.information_set_key(0) == key and pos.bags == bags
    run(pos, "drawn sign fox")
    assert pos.phase == CHOOSE and sorted(pos.hands[0]) == sorted(kinds("sign fox"))


def test_chance_outcomes_are_marked_as_chance() -> None:
    """Chance outcomes share the action space with decisions (docs/notation.md)."""
    assert is_chance_outcome(parse_action("drawn fox"))
    assert is_chance_outcome(parse_action("drawn sign fox"))
    assert is_chance_outcome(parse_action("weather storm"))
    assert is_chance_outcome(parse_action("tiebreak 0"))
    assert not is_chance_outcome(parse_action("draw"))
    assert not is_chance_outcome(parse_action("buy fox"))


def test_the_documented_example_turn_replays() -> None:
    """docs/notation.md "Example: one turn of a 2-player game" is a legal sequence of actions."""
    doc = (Path(__file__).parent.parent.parent / "docs" / "notation.md").read_text()
    block = doc.split("## Example")[1].split("```")[1]
    lines = [line.split("  ")[0].strip() for line in block.strip().splitlines()]
    pos = build(2, bags=["compass sign backpack", "storm canteen"])
    run(pos, *lines)
    assert pos.turn == 1
    assert Counter(pos.bags[0]) == Counter(kinds("sign shepherd"))
    assert pos.paths == [kinds("compass backpack"), kinds("canteen")]
    assert pos.owned_storms[1] == 1 and pos.track_suns == 1
