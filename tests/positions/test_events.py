"""Event lines (positions/events.py): seats, short forms, reasons for refusals, the movetext."""

from __future__ import annotations

import pytest

from positions import Position, parse_action
from positions.errors import IllegalActionError, InvalidActionError
from positions.events import event_line, explain_illegal, movetext, read_event, split_event_line
from positions.kernel.phases import CHANCE_PLAYER


def test_a_line_names_its_seat_by_number_name_or_chance() -> None:
    names = ("Ann", "Ben")
    assert split_event_line("1: buy bear", names, 2) == (1, "buy bear")
    assert split_event_line("ann: draw", names, 2) == (0, "draw")
    assert split_event_line("P1: pass", names, 2) == (1, "pass")
    assert split_event_line("chance: sun", names, 2) == (CHANCE_PLAYER, "sun")
    assert split_event_line("draw", names, 2) == (None, "draw")
    with pytest.raises(InvalidActionError, match="'Bne' is not a player.*did you mean 'Ben'"):
        split_event_line("Bne: draw", names, 2)


def test_a_draw_reads_in_any_order_with_or_without_the_verb() -> None:
    # C7: two tiles are drawn together; their order means nothing.
    pos = Position.new_game(2, "meadows")
    pos.apply(parse_action("draw"))
    pos.apply(parse_action("draw"))
    expected = parse_action("drawn storm sign")
    for text in ("drawn sign storm", "draw storm sign", "sign, storm", "Sign Storm"):
        assert read_event(text, pos) == expected


def test_a_bare_tile_is_the_play_or_the_buy_the_step_allows() -> None:
    pos = Position.new_game(2, "meadows")
    for text in ("draw", "draw", "drawn sign butterfly", "drawn sign hedgehog"):
        pos.apply(parse_action(text))
    assert read_event("butterfly", pos) == parse_action("play butterfly")
    pos.apply(parse_action("play butterfly"))
    pos.apply(parse_action("play hedgehog"))
    assert read_event("compass", pos) == parse_action("buy compass")


def test_weather_short_forms() -> None:
    pos = Position.new_game(2, "meadows")
    for text in ("draw", "draw", "drawn sign butterfly", "drawn sign hedgehog", "play butterfly",
                 "play hedgehog", "pass", "pass"):
        pos.apply(parse_action(text))
    assert read_event("sun", pos) == parse_action("weather sun")
    assert event_line(pos, parse_action("weather sun")) == "weather sun"


def test_refusals_say_why() -> None:
    # C12: a tile costs its price in Steps; the start Steps are 2.
    pos = Position.new_game(2, "meadows")
    assert "tiles are bought at the end of the turn" in explain_illegal(pos, 0, parse_action("buy bird"))
    for text in ("draw", "draw", "drawn sign butterfly", "drawn sign hedgehog", "play butterfly",
                 "play hedgehog"):
        pos.apply(parse_action(text))
    with pytest.raises(IllegalActionError, match="buy bird: costs 6 Steps, you have 2"):
        read_event("buy bird", pos)
    with pytest.raises(IllegalActionError, match="map is not on this route's market"):
        read_event("buy map", pos)


def test_movetext_heads_each_turn_and_names_the_actor() -> None:
    pos = Position.new_game(2, "meadows")
    steps = []
    for text in ("draw", "return", "drawn sign butterfly"):
        action = parse_action(text)
        steps.append((pos.copy(), action))
        pos.apply(action)
    assert movetext(steps) == ["# walk 1, turn 1", "0: draw", "1: return",
                               "0: drawn sign butterfly"]
