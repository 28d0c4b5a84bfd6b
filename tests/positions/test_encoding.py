"""The canonical state encoding (docs/determinism.md, "State encoding"): ``Position.to_ints()`` and
``Position.from_ints()`` round-trip every state of 1,000 random games and every shipped example,
field by field, and refuse bad input with one line naming the offset."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from builders import random_step
from positions import ROUTES, ImpossiblePositionError, Position, Ruleset, parse_route
from positions.examples import example_names, load_example
from positions.kernel.encoding import ENCODING_VERSION
from positions.kernel.rulesets import DEFAULT_RULESET
from positions.kernel.state import FIELDS
from positions.saved import read_position_text

GAMES = 1_000
CUSTOM_ROUTE = parse_route("compass, camera, hiker, map, fox, bird, cave, starry_night")
ROUTE_CYCLE = (*ROUTES.values(), CUSTOM_ROUTE)
HOUSE = DEFAULT_RULESET._replace(name="custom", penalised_kinds=(4, 5, 6, 19, 20), walks=3)
"""A custom ruleset (C16 corrected to penalise animals only, three walks): encoded with its data."""
UNKNOWN_BAGS = Path(__file__).parent.parent / "data" / "unknown-bags-3p.json"


def assert_round_trips(pos: Position) -> None:
    """`pos` encodes to 64-bit ints and decodes to an equal state in every field (same types)."""
    ints = pos.to_ints()
    assert set(map(type, ints)) == {int} and -2**63 <= min(ints) and max(ints) < 2**63
    back = Position.from_ints(ints)
    for field in FIELDS:
        mine, theirs = getattr(pos, field), getattr(back, field)
        assert mine == theirs and type(mine) is type(theirs), f"{field}: {mine!r} became {theirs!r}"
    assert [type(a) for a in back.legal] == [type(a) for a in pos.legal]


def test_every_state_of_random_games_round_trips() -> None:
    """1,000 games, 2-4 players, the three routes and a custom one, one in ten under a custom ruleset."""
    seen_phases: set[int] = set()
    ties = hidden = 0
    for seed in range(GAMES):
        rng = random.Random(seed)
        ruleset = HOUSE if seed % 10 == 9 else DEFAULT_RULESET
        pos = Position.new_game(2 + seed % 3, ROUTE_CYCLE[seed % len(ROUTE_CYCLE)], ruleset)
        while True:
            assert_round_trips(pos)
            seen_phases.add(pos.phase)
            ties += bool(pos.ties)
            if pos.is_terminal():
                break
            if seed % 50 == 0 and not pos.is_chance():
                world = Position.from_ints(pos.to_ints())
                world.hidden_bags = tuple(p for p in range(world.players) if p != world.actor)
                assert_round_trips(world)
                hidden += 1
            random_step(pos, rng, 0.8 if seed % 2 else 0.0)
    assert seen_phases == set(range(12)) and ties and hidden


@pytest.mark.parametrize("name", example_names())
def test_every_shipped_example_round_trips(name: str) -> None:
    assert_round_trips(load_example(name).position)


def test_a_position_with_unknown_bags_round_trips() -> None:
    pos = read_position_text(UNKNOWN_BAGS.read_text()).position
    assert pos.hidden_bags
    assert_round_trips(pos)


def test_shipped_rules_and_routes_come_back_by_name() -> None:
    pos = Position.from_ints(Position.new_game(2, "forest").to_ints())
    assert pos.ruleset is DEFAULT_RULESET and pos.route is ROUTES["forest"]
    custom = Position.from_ints(Position.new_game(3, CUSTOM_ROUTE, HOUSE).to_ints())
    assert custom.route.name == "custom" and custom.ruleset == HOUSE


def test_a_house_ruleset_comes_back_as_custom() -> None:
    """The encoding holds the rule facts, not the name: a house ruleset comes back named "custom"."""
    house: Ruleset = DEFAULT_RULESET._replace(name="house", walks=4)
    back = Position.from_ints(Position.new_game(2, "meadows", house).to_ints())
    assert back.ruleset == house._replace(name="custom")


def _refusal(ints: list[int]) -> str:
    with pytest.raises(ImpossiblePositionError) as error:
        Position.from_ints(ints)
    message = str(error.value)
    assert "\n" not in message
    return message


def test_bad_input_is_refused_naming_the_offset() -> None:
    ints = Position.new_game(2, "meadows").to_ints()
    assert _refusal([ENCODING_VERSION + 1, *ints[1:]]) == "state encoding, int 0: encoding version 2, expected 1"
    assert "ends early" in _refusal(ints[:-1])
    assert "1 ints after the end" in _refusal([*ints, 0])
    bag_length = 1
    assert f"int {bag_length + 1}: a kind in the ruleset's start bag is 99" in _refusal(
        [ints[0], ints[1], 99, *ints[3:]])
    bad_route = list(ints)
    route_start = 1 + len(DEFAULT_RULESET.to_ints())
    bad_route[route_start + 1] = bad_route[route_start + 2]  # two equal kinds
    assert f"int {route_start}: a route needs" in _refusal(bad_route)
    assert "int 1: '11' is not an int" in _refusal([ints[0], "11", *ints[2:]])  # type: ignore[list-item]
    assert "int 1: 18446744073709551616 does not fit" in _refusal([ints[0], 2**64, *ints[2:]])
    players_at = route_start + 9
    assert f"int {players_at}: 5 players" in _refusal([*ints[:players_at], 5, *ints[players_at + 1:]])


def test_the_history_is_written_as_a_signed_64_bit_int() -> None:
    pos = Position.new_game(2, "meadows")
    pos.history = 5
    small = pos.to_ints()
    pos.history = 2**64 - 1
    large = pos.to_ints()
    assert [(a, b) for a, b in zip(small, large) if a != b] == [(5, -1)]
    assert Position.from_ints(large).history == 2**64 - 1
