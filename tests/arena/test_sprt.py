"""Fishtest's SPRT: reference LLRs, the constrained fits, padding, overshoot, the arena's watch, the CLI."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

from advisor.arena.report import Played, SprtWatch, graded_counts, pair_stats, sprt_lines, summary_line
from advisor.arena.sprt import (
    NELO_PER_T, SequentialTest, SprtSettings, calculate, grid, llr, llr_of, mle_with_mean,
    mle_with_t_value, normalized_elo, padded, parse_counts,
)
from advisor.arena.stats import score_from_elo
from advisor.cli import cli

LOGISTIC = SprtSettings(0.0, 10.0, elo_model="logistic")
NORMALIZED = SprtSettings(0.0, 10.0)


# --- reference values (issue 17: from fishtest's code, logistic Elo, bounds ±2.944) ---------------------

@pytest.mark.parametrize("counts, expected, decision", [
    ((100, 400, 1000, 400, 100), -4.13, "H0"),
    ((0, 30, 200, 60, 10), 6.19, "H1"),
    ((4, 34, 99, 21, 1), -2.84, "continue"),
    ((134, 291, 624, 297, 184), 2.94, "continue"),
    ((0, 0, 0, 0, 1), 0.03, "continue"),
])
def test_reference_llrs_in_logistic_elo(counts: tuple[int, ...], expected: float, decision: str) -> None:
    result = calculate(counts, LOGISTIC).result
    assert result.llr == pytest.approx(expected, abs=0.02)
    assert (result.lower, result.upper) == pytest.approx((-2.944, 2.944), abs=1e-3)
    assert result.decision == decision


def test_reference_llr_in_normalized_elo() -> None:
    """The first reference sample in normalized Elo: −1.66, so the test goes on."""
    result = calculate((100, 400, 1000, 400, 100), NORMALIZED).result
    assert result.llr == pytest.approx(-1.66, abs=0.02) and result.decision == "continue"


# --- the constrained maximum-likelihood fits ------------------------------------------------------------

def _fit_by_bisection(probs: list[float], mean: float) -> list[float]:
    """The mean-constrained fit found independently: bisect the multiplier in plain Python."""
    shifts = [i / 4 - mean for i in range(5)]
    low, high = -1 / max(shifts) + 1e-15, -1 / min(shifts) - 1e-15
    for _ in range(200):
        x = (low + high) / 2
        if sum(p * a / (1 + x * a) for p, a in zip(probs, shifts)) > 0:
            low = x
        else:
            high = x
    return [p / (1 + x * a) for p, a in zip(probs, shifts)]


def test_the_mean_fit_is_the_constrained_maximum_likelihood() -> None:
    """It has the asked mean, matches an independent solver, and beats nearby distributions
    with that mean in likelihood."""
    probs = np.array([0.1, 0.2, 0.4, 0.2, 0.1])
    fitted = mle_with_mean(probs, 0.53).probs
    assert fitted.sum() == pytest.approx(1.0) and (fitted * grid(5)).sum() == pytest.approx(0.53)
    assert fitted == pytest.approx(_fit_by_bisection(list(probs), 0.53), abs=1e-9)
    likelihood = lambda q: float((probs * np.log(q)).sum())  # noqa: E731
    nudge = np.array([1.0, -2.0, 1.0, 0.0, 0.0]) * 1e-3  # keeps the sum and the mean
    assert likelihood(fitted) > likelihood(fitted + nudge)
    assert likelihood(fitted) > likelihood(fitted - nudge)


def test_the_t_value_fit_has_the_asked_t_value() -> None:
    probs = np.array([0.05, 0.15, 0.6, 0.15, 0.05])
    fitted = mle_with_t_value(probs, 0.08).probs
    mean = (fitted * grid(5)).sum()
    sigma = math.sqrt((fitted * (grid(5) - mean) ** 2).sum())
    assert fitted.sum() == pytest.approx(1.0)
    assert (mean - 0.5) / sigma == pytest.approx(0.08, abs=1e-8)


def test_llr_is_zero_without_units_and_vectorised_rows_agree() -> None:
    rows = np.array([[0, 0, 0, 0, 0], [4, 34, 99, 21, 1], [0, 30, 200, 60, 10]])
    assert llr(rows, NORMALIZED) == pytest.approx([0.0] + [llr_of(list(r), NORMALIZED) for r in rows[1:]])
    assert llr_of([1, 2, 3, 4, 5], LOGISTIC) > 0 > llr_of([5, 4, 3, 2, 1], LOGISTIC)


def test_only_empty_bins_are_padded() -> None:
    """Fishtest fills an empty bin with 0.001 and leaves bins with results alone, so a sample in
    one bin cannot fake a tiny variance and an explosive LLR."""
    assert padded([10, 20, 40, 20, 10]).tolist() == [10, 20, 40, 20, 10]
    assert padded([0, 3, 0, 1, 0]).tolist() == [1e-3, 3, 1e-3, 1, 1e-3]
    assert -0.2 < llr_of([0, 0, 5, 0, 0], LOGISTIC) < 0  # five even pairs: little evidence
    assert llr_of([0, 0, 0, 0, 110], LOGISTIC) > LOGISTIC.upper  # a long enough sweep decides


def test_normalized_elo_is_the_t_value_per_game_scaled() -> None:
    """(score − ½) / σ per game × 800 / ln 10, with σ per game = √2 × σ of a pair's mean score."""
    counts = [10, 20, 40, 20, 10]
    variance = sum(c * (i / 4 - 0.5) ** 2 for i, c in enumerate(counts)) / sum(counts)
    assert normalized_elo(counts, 0.51) == pytest.approx(0.01 / math.sqrt(2 * variance) * NELO_PER_T)
    assert NELO_PER_T == pytest.approx(347.436, abs=1e-3)


def test_settings_are_checked() -> None:
    assert (NORMALIZED.lower, NORMALIZED.upper) == pytest.approx((math.log(0.05 / 0.95),
                                                                  math.log(0.95 / 0.05)))
    for bad in [dict(elo0=5, elo1=5), dict(elo0=0, elo1=5, alpha=0), dict(elo0=0, elo1=5, beta=1.5),
                dict(elo0=0, elo1=5, alpha=0.6, beta=0.5), dict(elo0=0, elo1=5, elo_model="bayes")]:
        with pytest.raises(ValueError):
            SprtSettings(**bad)  # type: ignore[arg-type]


def test_normalized_bounds_must_be_reachable_by_the_fit() -> None:
    """From the uniform start the t-value fit needs |t| < 1/(σ + 1/(4σ)): ±231 nElo for pairs."""
    assert SprtSettings(-231.0, 231.0).upper > 0
    with pytest.raises(ValueError, match="within ±231"):
        SprtSettings(0.0, 232.0)
    assert SprtSettings(0.0, 1000.0, elo_model="logistic").elo1 == 1000.0


def test_parse_counts() -> None:
    assert parse_counts("1,2,3,4,5") == (1, 2, 3, 4, 5)
    for bad in ["1,2,3", "1,2,x,4,5", "1,-2,3,4,5", "0,0,0,0,0"]:
        with pytest.raises(ValueError):
            parse_counts(bad)


# --- the sequential test and its overshoot correction ---------------------------------------------------

def _walk(test: SequentialTest, values: list[float], first_unit: int = 1) -> None:
    for units, value in enumerate(values, start=first_unit):
        test.record(np.array([value]), np.array([units]))


def test_overshoot_moves_the_bound_by_the_ladder_heights() -> None:
    """New minima one unit apart after steps of −0.5, −0.5, −0.6: the lower bound rises by
    Σδ² / (2 Σ|δ|) = 0.86 / 3.2; the LLR never rose above 0, so the upper bound stays."""
    test = SequentialTest(LOGISTIC)
    _walk(test, [-0.5, -0.2, -1.0, -0.9, -1.6])
    result = test.result()
    assert result.lower == pytest.approx(LOGISTIC.lower + 0.86 / 3.2)
    assert result.upper == pytest.approx(LOGISTIC.upper)
    assert (result.llr, result.units) == (-1.6, 5)


def test_skipped_units_restart_the_sampling_and_lost_units_end_it() -> None:
    test = SequentialTest(LOGISTIC)
    _walk(test, [0.4])
    _walk(test, [1.0, 1.1], first_unit=5)  # 1 → 5 skips units: 1.0 is the new reference, no sample
    assert test.result().upper == pytest.approx(LOGISTIC.upper - (0.16 + 0.01) / 2 / 0.5)
    _walk(test, [0.9], first_unit=3)  # fewer units than before: the correction is off
    assert test.result().upper == pytest.approx(LOGISTIC.upper)


def test_decisions_at_the_moved_bounds() -> None:
    test = SequentialTest(LOGISTIC, runs=3)
    test.record(np.array([-3.0, 0.0, 3.0]), np.array([1, 1, 1]))
    assert test.decisions().tolist() == [-1, 0, 1]
    assert [test.result(i).decision for i in range(3)] == ["H0", "continue", "H1"]
    assert test.decisions(np.array([2])).tolist() == [1]


# --- the arena's watch ----------------------------------------------------------------------------------

def _deal(deal: int, wins: int) -> list[Played]:
    """Both games of one deal (agent 0 at seat 0, then at seat 1); agent 0 wins the first `wins`."""
    games = []
    for rotation, seats in enumerate([(0, 1), (1, 0)]):
        first_won = rotation < wins
        returns = (1.0, 0.0) if first_won == (seats[0] == 0) else (0.0, 1.0)
        games.append(Played(0, deal, seats, returns, (5, 3) if returns[0] else (3, 5)))
    return games


def test_graded_counts_is_the_pentanomial_for_two_players() -> None:
    from collections import Counter
    assert graded_counts(Counter({(4, 2): 3, (2, 2): 1})) == (0, 0, 1, 0, 3)
    assert graded_counts(Counter()) == (0, 0, 0, 0, 0)
    assert graded_counts(Counter({(3, 3): 1, (1, 2): 1})) == (0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0)


def test_the_watch_keeps_the_decision_that_stopped_the_run() -> None:
    """Won pairs until H1; pairs still finishing afterwards are counted but do not undo it."""
    watch = SprtWatch(SprtSettings(0.0, 50.0, elo_model="logistic"), [2])
    for game in _deal(0, 2):  # one deal won 2-0 is no decision (it used to be)
        watch.add(game)
    assert watch.stopped is None and watch.current.units == 1
    deal = 1
    while watch.stopped is None:
        for game in _deal(deal, 2):
            watch.add(game)
        deal += 1
        assert deal < 100
    stopped = watch.stopped
    assert stopped.decision == "H1" and stopped.units == deal
    for game in _deal(deal, 0) + _deal(deal + 1, 0):
        watch.add(game)
    assert watch.stopped is stopped and watch.current.units == deal + 2
    lines = sprt_lines(watch)
    assert lines[0].startswith(f"ptnml 2,0,0,0,{deal} (deals scoring 0, 1/2, 1, 3/2, 2 of 2")
    assert lines[1].startswith("2 more deal(s)")
    assert lines[-1].startswith("stopped by the SPRT elo0=0 elo1=50 (logistic Elo")
    assert f"LLR {stopped.llr:.2f} [{stopped.lower:.2f}, {stopped.upper:.2f}]" in lines[-1]
    assert "H1 accepted" in lines[-1] and f"after {deal} deals" in lines[-1]


def test_an_unfinished_deal_does_not_move_the_test() -> None:
    watch = SprtWatch(NORMALIZED, [2])
    watch.add(_deal(0, 2)[0])
    assert watch.current.units == 0
    assert sprt_lines(watch)[-1].endswith("no decision before the schedule ran out")


def test_the_pentanomial_line_recomputes_the_arena_test() -> None:
    """The closing counts fed to `refuge sprt` give the LLR the arena's own watch reached."""
    watch = SprtWatch(NORMALIZED, [2])
    for deal, wins in enumerate([2, 1, 2, 0, 1, 2, 2, 1]):
        for game in _deal(deal, wins):
            watch.add(game)
    assert watch.counts == (1, 0, 3, 0, 4)
    line = sprt_lines(watch)[0]
    command = line.split("`")[1].split()
    assert command[:2] == ["refuge", "sprt"]
    result = _sprt(*command[2:], "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["sprt"]["llr"] == pytest.approx(watch.current.llr)


def test_the_progress_line_carries_the_pentanomial() -> None:
    games = [game for deal, wins in enumerate([2, 1, 0]) for game in _deal(deal, wins)]
    rows = pair_stats(2, 2, games, [2])
    line = summary_line(["new", "old"], rows, 6, 10, None)
    assert line.startswith("games 6/10  new vs old: score 0.500")
    assert line.endswith("ptnml 1,0,1,0,1")
    assert "ptnml" not in summary_line(["new", "old"], pair_stats(2, 2, games[:1], [2]), 1, 10, None)


# --- refuge sprt ----------------------------------------------------------------------------------------

def _sprt(*args: str):
    return CliRunner().invoke(cli, ["sprt", *args])


def test_cli_prints_elo_los_llr_bounds_and_decision() -> None:
    result = _sprt("--pentanomial", "0,30,200,60,10", "--elo0", "0", "--elo1", "10",
                   "--elo-model", "logistic")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("pentanomial 0,30,200,60,10: 300 pairs (600 games)")
    assert "(logistic)" in lines[1] and "(normalized)" in lines[1] and "LOS 100.0%" in lines[1]
    assert lines[2] == ("SPRT elo0=0 elo1=10 (logistic Elo, alpha=0.05, beta=0.05): LLR 6.19 "
                        "[-2.94, 2.94] H1 accepted (stronger by elo1) after 300 pairs")


def test_cli_json_defaults_to_normalized_elo() -> None:
    result = _sprt("--pentanomial", "100,400,1000,400,100", "--elo0", "0", "--elo1", "10", "--json",
                   "--alpha", "0.1")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["sprt"]["elo_model"] == "normalized" and data["sprt"]["decision"] == "continue"
    assert data["sprt"]["llr"] == pytest.approx(-1.66, abs=0.02)
    assert data["sprt"]["upper"] == pytest.approx(math.log(0.95 / 0.1))
    assert data["units"] == 2000 and data["games"] == 4000 and data["score"] == pytest.approx(0.5)
    low, high = data["elo"]["logistic"]["ci95"]
    assert low < 0 < high and data["los"] == pytest.approx(0.5)


@pytest.mark.parametrize("args, fragment", [
    (["--pentanomial", "1,2,3", "--elo0", "0", "--elo1", "5"], "expected 5 comma-separated counts"),
    (["--pentanomial", "1,2,3,4,5", "--elo0", "5", "--elo1", "0"], "elo0 < elo1"),
    (["--pentanomial", "1,2,3,4,5", "--elo0", "0", "--elo1", "5", "--alpha", "1"], "--alpha"),
    (["--pentanomial", "1,2,3,4,5", "--elo0", "0", "--elo1", "5", "--elo-model", "bayes"],
     "--elo-model"),
])
def test_cli_bad_input_is_a_usage_error(args: list[str], fragment: str) -> None:
    result = _sprt(*args)
    assert result.exit_code == 2 and fragment in result.output
    assert "Traceback" not in result.output


def test_logistic_hypotheses_are_expected_scores() -> None:
    from advisor.arena.sprt import hypothesis_targets
    assert hypothesis_targets(LOGISTIC, 5) == (0.5, pytest.approx(score_from_elo(10.0)))
    assert hypothesis_targets(NORMALIZED, 5) == (0.0, pytest.approx(10 * math.sqrt(2) / NELO_PER_T))
