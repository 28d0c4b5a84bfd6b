"""Seat consistency and calibration statistics (issue 22, item 4) on predictions with known answers,
and one small seeded run end to end."""

from __future__ import annotations

import math

import pytest

from lab.calibration import (
    Prediction, brier, clustered_mean, expected_calibration_error, game_predictions, reliability,
    report_markdown, seat_consistency,
)


def _p(game: int, player: int, chances: tuple[float, ...], outcome: float, kind: str = "decide",
       turn: int = 1) -> Prediction:
    return Prediction(game, 1, turn, kind, player, chances, outcome, len(chances))


def test_the_clustered_standard_error_treats_games_as_the_units() -> None:
    """Two games of two values each: the mean of all four, the SE from the two games' sums."""
    mean = clustered_mean([(0, 1.0), (0, 1.0), (1, 0.0), (1, 0.0)])
    assert mean.value == 0.5 and mean.count == 4 and mean.games == 2
    # sums 2 and 0 against n * mean = 1: sqrt(2/1 * (1 + 1)) / 4 = 0.5
    assert mean.se == pytest.approx(0.5)
    assert math.isnan(clustered_mean([(0, 1.0)]).se)


def test_the_seat_consistency_is_the_later_seats_own_chance_minus_the_earlier_view() -> None:
    """Seat 1 gives itself 0.6 where seat 0's search gave seat 1 0.45: +0.15; a turn where only
    one seat decided, and a step kind that is not simultaneous, do not count."""
    predictions = [
        _p(0, 0, (0.55, 0.45), 1.0), _p(0, 1, (0.4, 0.6), 0.0),
        _p(1, 0, (0.5, 0.5), 0.0), _p(1, 1, (0.35, 0.65), 1.0),
        _p(1, 1, (0.3, 0.7), 1.0, turn=2),
        _p(1, 0, (0.5, 0.5), 0.0, kind="option"), _p(1, 1, (0.2, 0.8), 1.0, kind="option"),
    ]
    [row] = seat_consistency(predictions)
    assert (row.kind, row.seat, row.difference.count) == ("decide", 1, 2)
    assert row.difference.value == pytest.approx(0.15)
    assert row.recommended.count == 0  # not recorded


def test_the_consistency_on_recommended_moves_leaves_out_the_later_seats_own_move() -> None:
    """Seat 1 played a poor move in game 0 (its chance 0.30 where seat 0 saw it at 0.45) and the
    recommendation in game 1 (0.50 against 0.50): -0.075 in all, 0.0 on the recommended step."""
    def p(game: int, player: int, chances: tuple[float, float], recommended: bool) -> Prediction:
        return Prediction(game, 1, 1, "choose", player, chances, 0.5, 2, recommended)
    predictions = [p(0, 0, (0.55, 0.45), True), p(0, 1, (0.70, 0.30), False),
                   p(1, 0, (0.50, 0.50), True), p(1, 1, (0.50, 0.50), True)]
    [row] = seat_consistency(predictions)
    assert row.difference.value == pytest.approx(-0.075)
    assert (row.recommended.count, row.recommended.value) == (1, pytest.approx(0.0))


def test_reliability_ece_and_brier() -> None:
    """Chances 0.8 that come true 3 times in 4 and 0.2 once in 4: 0.05 off in each bin."""
    predictions = ([_p(g, 0, (0.8, 0.2), 1.0 if g < 3 else 0.0) for g in range(4)]
                   + [_p(g, 1, (0.8, 0.2), 1.0 if g == 0 else 0.0) for g in range(4)])
    assert expected_calibration_error(predictions) == pytest.approx(0.05)
    rows = {(r.kind, r.seat): r for r in reliability(predictions)}
    assert rows[("decide", 0)].difference.value == pytest.approx(0.05)
    assert rows[("all", -1)].predicted.count == 8
    score = brier(predictions)
    assert score.score.value == pytest.approx((3 * 0.04 + 0.64 + 0.64 + 3 * 0.04) / 8)
    assert score.reference == pytest.approx(0.25)
    assert score.skill == pytest.approx(1 - score.score.value / 0.25)
    report = report_markdown(predictions)
    assert "| decide | 0 |" in report
    assert "| 0.2–0.3 | 4 | 0.200 | 0.250 |" in report and "| 0.8–0.9 | 4 | 0.800 | 0.750 |" in report


def test_a_seeded_game_gives_the_same_predictions_every_time() -> None:
    """Self-play and annotation are seeded: one short game twice, identical predictions."""
    first = game_predictions(0, "greedy", 2, "meadows", 5, 12)
    assert first == game_predictions(0, "greedy", 2, "meadows", 5, 12)
    assert {p.outcome for p in first} <= {0.0, 0.5, 1.0}
    assert all(sum(p.chances) == pytest.approx(1.0) for p in first)
