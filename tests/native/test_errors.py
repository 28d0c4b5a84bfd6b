"""Bad input and failures at the boundary: one-line errors of the project's classes, never an abort."""

from __future__ import annotations

import pytest

from native_trace import refuge_native
from positions.errors import IllegalActionError, ImpossiblePositionError
from positions.kernel.position import Position


def test_illegal_action_raises_the_project_error_and_changes_nothing() -> None:
    nat = refuge_native.State.new_game(2, "meadows")
    before = nat.to_ints()
    with pytest.raises(IllegalActionError, match="is not legal for player 0 at decide"):
        nat.apply(64 + 23)  # buy bear, at the return-or-draw step (C6)
    assert nat.to_ints() == before


def test_an_action_code_beyond_any_int_is_illegal_not_a_crash() -> None:
    nat = refuge_native.State.new_game(2, "meadows")
    with pytest.raises(IllegalActionError):
        nat.apply(2**40)


def test_bad_encodings_are_refused_in_one_line_naming_the_offset() -> None:
    ints = Position.new_game(3, "forest").to_ints()
    for bad, offset in ((ints[:-1], None), (ints + [0], None), ([2] + ints[1:], 0)):
        with pytest.raises(ImpossiblePositionError) as caught:
            refuge_native.State.from_ints(bad)
        message = str(caught.value)
        assert "\n" not in message and "offset" in message
        if offset is not None:
            assert f"offset {offset}" in message


def test_a_game_beyond_the_native_capacities_is_refused_not_truncated() -> None:
    """Stacks of 6: a player could own 11 + 48 tiles, more than a native bag holds (native/README.md)."""
    from positions.kernel.rulesets import DEFAULT_RULESET
    big = Position.new_game(2, "meadows", DEFAULT_RULESET._replace(name="big", stack_size=6))
    with pytest.raises(ImpossiblePositionError, match="too large for the native core"):
        refuge_native.State.from_ints(big.to_ints())


def test_an_unknown_route_or_player_count_is_refused() -> None:
    with pytest.raises(ImpossiblePositionError, match="unknown route"):
        refuge_native.State.new_game(2, "swamp")
    with pytest.raises(ImpossiblePositionError, match="5 players"):
        refuge_native.State.new_game(5, "meadows")


def test_a_panic_becomes_a_one_line_runtime_error() -> None:
    with pytest.raises(RuntimeError) as caught:
        refuge_native._panic_for_test()
    assert str(caught.value) == "refuge_native: internal error: a deliberate panic"


def test_a_seat_out_of_range_is_refused() -> None:
    nat = refuge_native.State.new_game(2, "meadows")
    with pytest.raises(ValueError, match="player 2: the game has 2 players"):
        nat.information_set_key(2)


def test_the_heuristic_is_asked_only_at_a_decision() -> None:
    nat = refuge_native.State.new_game(2, "meadows")
    rng = refuge_native.Rng(1)
    while not nat.is_chance():
        nat.apply(nat.heuristic_choice(rng))
    with pytest.raises(ValueError, match="not at a decision"):
        nat.heuristic_choice(rng)
