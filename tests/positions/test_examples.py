"""The curated example positions: at least 10, each valid, with a story, covering the brief."""

from __future__ import annotations

import json

import pytest

from positions import MalformedFileError
from positions.kernel import phases
from positions.examples import example_names, example_text, load_example
from positions.saved import parse_position, position_to_data
from positions.validation import Problems, check_position

NAMES = example_names()


def test_at_least_ten_examples_ship() -> None:
    assert len(NAMES) >= 10
    assert "opening-2p" in NAMES


@pytest.mark.parametrize("name", NAMES)
def test_example_loads_validates_and_round_trips(name: str) -> None:
    saved = load_example(name)
    assert saved.story and "\n" not in saved.story
    problems = Problems()
    check_position(saved.position, problems)
    assert not problems, problems.lines()
    data = position_to_data(saved.position, saved.names, saved.title, saved.story)
    again = parse_position(json.loads(json.dumps(data)))
    assert position_to_data(again.position, again.names, again.title, again.story) == data
    assert saved.position.current_player() >= 0
    assert len(saved.position.legal_actions()) >= 2


def _positions():
    return {name: load_example(name).position for name in NAMES}


def test_examples_cover_the_situations_of_the_brief() -> None:
    positions = _positions()
    players = {pos.players for pos in positions.values()}
    assert {2, 3, 4} <= players
    assert any(pos.route.name == "custom" for pos in positions.values())
    decided = {phases.NAMES[pos.phase] for pos in positions.values()}
    assert {"decide", "choose", "option", "discard", "extra", "buy"} <= decided
    away = {pos.storms_to_hit() for pos in positions.values() if pos.phase == phases.DECIDE}
    assert {1, 2} <= away
    tiles = {pos.tile for pos in positions.values() if pos.tile >= 0}
    assert {9, 14, 25, 7} <= tiles  # cairn, hiker, cave, compass
    last = positions["last-walk-last-turn"]
    assert last.walk == last.ruleset.walks - 1 and last.storms_to_hit() == 1


def test_endgame_solo_has_a_single_walker_on_the_last_walk() -> None:
    """For the exact solver: the last walk, one player still walking."""
    pos = load_example("endgame-solo").position
    assert pos.walk == pos.ruleset.walks - 1
    assert sum(pos.walking) == 1


def test_unknown_example_name_suggests_the_closest() -> None:
    with pytest.raises(MalformedFileError, match="did you mean 'opening-2p'"):
        example_text("opening2p")
