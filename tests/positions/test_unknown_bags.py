"""Saved positions with ``"bag": "unknown"`` (docs/formats.md): inferred where the facts allow only
one answer, else hidden and dealt afresh by ``Position.determinize``."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from click.testing import CliRunner

from advisor.cli import cli
from positions.errors import ImpossiblePositionError
from positions.record import replay
from positions.saved import dump_position, parse_position, position_to_data
from positions.kernel.tiles import STORM
from tests.track_games import self_played


@pytest.fixture(scope="module")
def seen_by_zero() -> dict:
    """A 3-player position at player 0's decision, late enough that the bags have changed."""
    game = replay(self_played(3, seed=5).record())
    step = next(s for s in game.steps[len(game.steps) // 3:] if s.player == 0
                and s.position.walking[1] and s.position.walking[2])
    return position_to_data(parse_position(position_to_data(step.position)).position)


def _unknown(data: dict, *players: int) -> dict:
    copy = {**data, "players": [dict(p) for p in data["players"]]}
    for player in players:
        copy["players"][player]["bag"] = "unknown"
    return copy


def test_one_unknown_bag_is_inferred_exactly(seen_by_zero: dict) -> None:
    # C1, C3: the start bags and the route's stacks are the whole supply, so one missing bag is the
    # supply less everything seen.
    truth = parse_position(seen_by_zero).position
    pos = parse_position(_unknown(seen_by_zero, 2)).position
    assert pos.hidden_bags == ()
    assert sorted(pos.bags[2]) == sorted(truth.bags[2])


def test_two_unknown_opponents_are_hidden_and_dealt_afresh(seen_by_zero: dict) -> None:
    truth = parse_position(seen_by_zero).position
    pos = parse_position(_unknown(seen_by_zero, 1, 2)).position
    assert pos.hidden_bags == (1, 2)
    assert Counter(pos.bags[1] + pos.bags[2]) == Counter(truth.bags[1] + truth.bags[2])
    splits = set()
    rng = random.Random(1)
    for _ in range(30):
        dealt = pos.determinize(0, rng)
        assert Counter(dealt.bags[1] + dealt.bags[2]) == Counter(truth.bags[1] + truth.bags[2])
        for player in (1, 2):  # C5: a player's Storms in the bag are known from the track
            assert dealt.bags[player].count(STORM) == truth.bags[player].count(STORM)
            assert len(dealt.bags[player]) == len(pos.bags[player])
        assert dealt.information_set_key(0) == pos.information_set_key(0)
        splits.add((tuple(sorted(dealt.bags[1])), tuple(sorted(dealt.bags[2]))))
    assert len(splits) > 1
    assert '"bag": "unknown"' in dump_position(pos)


def test_two_unknown_opponents_are_advised_on(seen_by_zero: dict, tmp_path) -> None:
    path = tmp_path / "unknown.json"
    path.write_text(dump_position(parse_position(_unknown(seen_by_zero, 1, 2)).position),
                    encoding="utf-8")
    assert CliRunner().invoke(cli, ["validate", str(path)]).exit_code == 0
    result = CliRunner().invoke(cli, ["best-move", str(path), "--iterations", "60"])
    assert result.exit_code == 0, result.output
    assert "Recommendation:" in result.output


def test_unknown_bags_need_the_market_and_box_and_the_actors_own_bag(seen_by_zero: dict) -> None:
    data = _unknown(seen_by_zero, 1, 2)
    del data["box"]
    with pytest.raises(ImpossiblePositionError, match=r"box: missing, expected the box in full"):
        parse_position(data)
    with pytest.raises(ImpossiblePositionError, match="a player knows their own bag"):
        parse_position(_unknown(seen_by_zero, 0, 1))
