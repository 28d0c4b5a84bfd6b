"""`refuge scaling --against` (issue 27): every budget against one fixed opponent on the same deals;
each point's Elo, and each budget's score over the one before it deal by deal."""

from __future__ import annotations

import math
import sqlite3

import pytest
from click.testing import CliRunner

from advisor.arena.report import PairStats, Played
from advisor.arena.scaling import ScalingError, ScalingSettings
from advisor.arena.scaling_against import (
    Point, against_curves, check_opponent, deal_scores, family_gains, format_points, gains, paired_gain,
    run_against,
)
from advisor.arena.stats import Z95, MatchSummary, score_from_elo
from advisor.arena.store import ArenaStore
from advisor.cli.main import cli


def _game(deal: int, rotation: int, first_won: float) -> Played:
    """A 2-player game of deal `deal`; agent 0 sits first in rotation 0, second in rotation 1."""
    seats = (0, 1) if rotation == 0 else (1, 0)
    mine = (first_won, 1 - first_won)
    returns = mine if rotation == 0 else mine[::-1]
    return Played(0, deal, seats, returns, (10, 10))


def test_a_deal_scores_only_when_both_of_its_games_are_in() -> None:
    played = [_game(0, 0, 1.0), _game(0, 1, 0.0), _game(1, 0, 1.0), _game(1, 1, 0.5), _game(2, 0, 1.0)]
    assert deal_scores(played, [2]) == {(0, 0): 0.5, (0, 1): 0.75}


def _point(budget: int, scores: dict[int, float], elo: float = 0.0, units: int = 100) -> Point:
    summary = MatchSummary(units, score_from_elo(elo), 0.09)
    row = PairStats(0, 1, 2 * units, units, 0, units, (0, 0, units, 0, 0), summary)
    return Point("a", budget, row, 2 * units, 2 * units, {(0, d): s for d, s in scores.items()})


def test_the_gain_is_the_mean_difference_on_the_deals_both_budgets_completed() -> None:
    before = _point(2, {d: 0.5 for d in range(8)})
    after = _point(4, {**{d: 0.5 + (0.25 if d % 2 else 0.0) for d in range(6)}, 9: 1.0})
    gain = paired_gain(before, after)
    assert gain is not None and gain.deals == 6  # deals 6, 7 and 9 are not in both
    differences = [0.25 if d % 2 else 0.0 for d in range(6)]
    mean = sum(differences) / 6
    sd = math.sqrt(sum((x - mean) ** 2 for x in differences) / 5)
    assert gain.mean == pytest.approx(0.125)
    assert gain.half_width == pytest.approx(Z95 * sd / math.sqrt(6))
    few = paired_gain(before, _point(4, {0: 1.0, 1: 0.0}))
    assert few is not None and few.half_width is None and few.mean == pytest.approx(0.0)
    assert paired_gain(before, _point(4, {20: 1.0})) is None


def test_gains_compare_each_budget_with_the_one_before_in_its_family() -> None:
    points = [_point(16, {0: 1.0}), _point(2, {0: 0.0}), _point(4, {0: 0.5})]
    found = gains(points)
    assert set(found) == {("a", 4), ("a", 16)}
    assert found[("a", 4)].mean == pytest.approx(0.5)  # type: ignore[union-attr]
    assert found[("a", 16)].mean == pytest.approx(0.5)  # type: ignore[union-attr]
    assert "+0.500 (1 deals)" in format_points(points)


def test_each_row_counts_its_deals_by_score_from_lost_from_both_seats_to_won_from_both() -> None:
    summary = MatchSummary(10, 0.7, 0.09)
    row = PairStats(0, 1, 20, 13, 2, 5, (1, 1, 3, 1, 4), summary)
    table = format_points([Point("a", 2, row, 20, 20, {}), Point("a", 4, None, 0, 20, {})])
    header, _, first, second = table.splitlines()
    column = header.index("ptnml")
    assert first[column:].split()[0] == "1,1,3,1,4"
    assert second[column:].split()[0] == "-"  # no game yet: no counts


def test_a_family_is_compared_with_the_first_at_the_same_budget_on_the_same_deals() -> None:
    first = [_point(2, {0: 0.5, 1: 0.5}), _point(4, {0: 0.5, 1: 1.0})]
    other = [Point("b", p.budget, p.row, p.stored, p.total, scores)
             for p, scores in zip(first, ({(0, 0): 1.0, (0, 1): 0.5}, {(0, 0): 0.0, (0, 1): 1.0}))]
    found = family_gains(first + other)
    assert set(found) == {("b", 2), ("b", 4)}
    assert found[("b", 2)].mean == pytest.approx(0.25)  # type: ignore[union-attr]
    assert found[("b", 4)].mean == pytest.approx(-0.25)  # type: ignore[union-attr]
    table = format_points(first + other)
    assert "score over a (paired, 95%)" in table and "-0.250 (2 deals)" in table
    assert "score over a" not in format_points(first)  # one family: no such column


def test_the_curve_is_each_points_elo_and_leaves_out_a_clean_sweep() -> None:
    sweep = Point("a", 8, PairStats(0, 1, 2, 2, 0, 0, (0, 0, 0, 0, 1), MatchSummary(1, 1.0, 0.0)), 2, 2, {})
    curve = against_curves([_point(4, {}, elo=120.0), _point(2, {}, elo=60.0, units=3), sweep])["a"]
    assert [p.budget for p in curve] == [2, 4]
    assert curve[0].elo == pytest.approx(60.0) and curve[0].low is None  # 3 deals: no interval
    assert curve[1].elo == pytest.approx(120.0)
    low, high = _point(4, {}, elo=120.0).row.summary.elo_ci95  # type: ignore[union-attr]
    assert (curve[1].low, curve[1].high) == (pytest.approx(low), pytest.approx(high))


@pytest.mark.parametrize("opponent, message", [
    (("a b", "greedy"), "expected NAME=SPEC"),
    (("ismcts:iterations=5", "ismcts:iterations=5"), "expected NAME=SPEC"),
    (("a-2", "greedy"), "name of a family's agent"),
    (("g", "ismcts:iterations"), "--against g=ismcts:iterations"),
])
def test_a_bad_opponent_is_refused_before_any_game(opponent: tuple[str, str], message: str) -> None:
    with pytest.raises(ScalingError, match=message):
        check_opponent(ScalingSettings(families=[("a", "ismcts")], budgets=(2, 4)), opponent)


def _deal_seeds(db: str) -> dict[int, list[int]]:
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT run, deal_seed FROM games ORDER BY run, idx").fetchall()
    found: dict[int, list[int]] = {}
    for run, seed in rows:
        found.setdefault(run, []).append(seed)
    return found


def test_every_budget_plays_the_same_deals_and_a_resumed_curve_replays_nothing(tmp_path) -> None:
    db = str(tmp_path / "against.sqlite")
    settings = ScalingSettings(families=[("d", "ismcts")], budgets=(2, 4), games=4, seed=5, db=db, workers=1)
    points = run_against(settings, ("greedy", "greedy"))
    assert [(p.budget, p.stored, p.total, len(p.deal_scores)) for p in points] == [(2, 4, 4, 2), (4, 4, 4, 2)]
    seeds = list(_deal_seeds(db).values())
    assert len(seeds) == 2 and seeds[0] == seeds[1]  # the same deals at both budgets
    with sqlite3.connect(db) as con:
        before = con.execute("SELECT run, idx, finished FROM games ORDER BY run, idx").fetchall()

    plot = tmp_path / "curve.png"
    result = CliRunner().invoke(cli, ["scaling", "--family", "d=ismcts", "--budgets", "2,4", "--games", "4",
                                      "--seed", "5", "--db", db, "--workers", "1", "--against", "greedy",
                                      "--resume", "--plot", str(plot)])
    assert result.exit_code == 0, result.output
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT run, idx, finished FROM games ORDER BY run, idx").fetchall() == before
    assert "d         4             4/4" in result.output and "(2 deals)" in result.output
    assert "against greedy on the deals both completed" in result.output
    lines = result.output.splitlines()
    column = next(line for line in lines if line.startswith("family")).index("ptnml")
    counts = [line[column:].split()[0] for line in lines if line.startswith("d ")]
    assert [sum(map(int, c.split(","))) for c in counts] == [2, 2]  # both complete deals counted
    assert plot.read_bytes()[:4] == b"\x89PNG"


def test_a_bad_opponent_on_the_command_line_is_one_line(tmp_path) -> None:
    result = CliRunner().invoke(cli, ["scaling", "--family", "d=ismcts", "--budgets", "2,4", "--db",
                                      str(tmp_path / "x.sqlite"), "--against", "d-2=greedy"])
    assert result.exit_code != 0
    assert result.output.strip().count("\n") == 0 and "d-2" in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "x.sqlite").exists()


def test_report_only_reads_the_stored_curve_while_it_is_played_and_plays_nothing(tmp_path) -> None:
    """`--report-only`: the table and the curve of what the store holds, a budget not started yet shown
    with no games; it neither plays nor claims a run, so it can watch a curve another arena plays."""
    db = str(tmp_path / "against.sqlite")
    run_against(ScalingSettings(families=[("d", "ismcts")], budgets=(2, 4), games=4, seed=5, db=db,
                                workers=1), ("greedy", "greedy"))
    with sqlite3.connect(db) as con:
        before = con.execute("SELECT run, idx, finished FROM games ORDER BY run, idx").fetchall()
    point = {"agents": [["d-4", "ismcts:iterations=4"], ["greedy", "greedy"]], "players": 2,
             "route": "meadows", "seed": 5}
    playing = ArenaStore(db)  # an arena playing the 4-iteration point holds its claim meanwhile
    run = playing.claim_run(point)
    assert run == playing.find_run(point)
    try:
        plot = tmp_path / "curve.png"
        result = CliRunner().invoke(cli, ["scaling", "--family", "d=ismcts", "--budgets", "2,4,8", "--games",
                                          "4", "--seed", "5", "--db", db, "--against", "greedy",
                                          "--report-only", "--plot", str(plot)])
        assert result.exit_code == 0, result.output
        assert "d         4             4/4" in result.output and "d         8             0/4" in result.output
        assert "iterations vs greedy" not in result.output  # no progress: nothing is played
        assert plot.read_bytes()[:4] == b"\x89PNG"
        with sqlite3.connect(db) as con:
            assert con.execute("SELECT run, idx, finished FROM games ORDER BY run, idx").fetchall() == before
            assert con.execute("SELECT run FROM claims").fetchall() == [(run,)]  # only the player's claim
            assert con.execute("SELECT COUNT(*) FROM runs").fetchone() == (2,)  # the 8 point: not created
    finally:
        playing.release(run)
        playing.close()


def test_report_only_on_a_missing_database_is_one_line_and_creates_nothing(tmp_path) -> None:
    missing = tmp_path / "none.sqlite"
    result = CliRunner().invoke(cli, ["scaling", "--budgets", "2,4", "--db", str(missing), "--against", "greedy",
                                      "--report-only"])
    assert result.exit_code == 1
    assert result.output.strip() == f"error: {missing}: no such arena database"
    assert not missing.exists()
