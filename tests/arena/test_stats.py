"""Elo, CI, LOS, score grids and rating maths against hand-computed cases (the SPRT: test_sprt.py)."""

import pytest

from advisor.arena import stats


def test_elo_of_known_scores() -> None:
    """76% expected score is about 200 Elo; 50% is 0; the map inverts."""
    assert stats.elo_from_score(0.5) == pytest.approx(0.0)
    assert stats.elo_from_score(1 / (1 + 10 ** -0.5)) == pytest.approx(200.0)
    assert stats.score_from_elo(stats.elo_from_score(0.3)) == pytest.approx(0.3)


def test_trinomial_score_variance_and_ci() -> None:
    """60 wins, 20 draws, 20 losses: score 0.7; variance by hand 0.6*0.09+0.2*0.04+0.2*0.49=0.16."""
    summary = stats.trinomial(60, 20, 20)
    assert summary.score == pytest.approx(0.7)
    assert summary.variance == pytest.approx(0.16)
    low, high = summary.score_ci95
    assert (low, high) == pytest.approx((0.7 - 1.959964 * 0.04, 0.7 + 1.959964 * 0.04))
    elo_low, elo_high = summary.elo_ci95
    assert elo_low < summary.elo < elo_high


def test_los_is_normal_tail() -> None:
    """LOS of score 0.7 with standard error 0.04 is Phi(5)."""
    summary = stats.trinomial(60, 20, 20)
    assert summary.los == pytest.approx(stats.normal_cdf(0.2 / 0.04))
    assert stats.trinomial(10, 0, 10).los == pytest.approx(0.5)


def test_pentanomial_pairs() -> None:
    """Pairs scoring 2, 1, 1, 0 of 2: mean 0.5 of 1, variance (0.25+0+0+0.25)/4."""
    summary = stats.pentanomial([1, 0, 2, 0, 1])
    assert summary.units == 4
    assert summary.score == pytest.approx(0.5)
    assert summary.variance == pytest.approx(0.125)
    with pytest.raises(ValueError):
        stats.pentanomial([1, 2])


def test_graded_scores_sit_on_an_even_grid() -> None:
    """Seven bins are deal scores 0, 1/6, ..., 1; the pentanomial is the five-bin case."""
    summary = stats.graded([0, 0, 0, 1, 0, 0, 1])
    assert summary.units == 2 and summary.score == pytest.approx(0.75)
    assert summary.variance == pytest.approx(0.0625)
    assert stats.graded([1, 0, 2, 0, 1]) == stats.pentanomial([1, 0, 2, 0, 1])
    with pytest.raises(ValueError):
        stats.graded([3])


def test_bradley_terry_recovers_an_ordering_and_anchor() -> None:
    """A beats B 75% of the time: about +191 Elo (shrunk slightly by the prior); anchor is 0."""
    results = [("a", "b", 1.0)] * 300 + [("a", "b", 0.0)] * 100
    ratings = {r.name: r for r in stats.bradley_terry(["a", "b"], results, anchor="b")}
    assert ratings["b"].elo == pytest.approx(0.0)
    assert 170 < ratings["a"].elo < 195
    low, high = ratings["a"].ci95
    assert low < ratings["a"].elo < high
    with pytest.raises(ValueError):
        stats.bradley_terry(["a"], [], anchor="zz")


def test_a_clean_sweep_has_a_finite_lower_elo_bound() -> None:
    """100 won pairs out of 100: Wilson's interval, not a zero-width one at +inf."""
    low, high = stats.pentanomial([0, 0, 0, 0, 100]).score_ci95
    assert 0.95 < low < 0.97 and high == 1.0
    assert 400 < stats.pentanomial([0, 0, 0, 0, 100]).elo_ci95[0] < 700


def test_all_draws_have_fishtests_narrow_interval() -> None:
    """100 even pairs: no variance observed, so the empty bins are padded as fishtest does
    (±0.3 Elo, where Wilson's interval for a binomial score of 0.5 would say ±68)."""
    summary = stats.pentanomial([0, 0, 100, 0, 0])
    low, high = summary.elo_ci95
    assert summary.score == 0.5 and summary.elo == pytest.approx(0.0)
    assert high == pytest.approx(-low) and 0.2 < high < 0.4
    assert summary.los == pytest.approx(0.5)
    assert stats.trinomial(0, 50, 0).elo_ci95[1] < 1.0
