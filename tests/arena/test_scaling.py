"""`refuge scaling` (issue 27): each budget against the previous one as arena runs, resumable; the
table and the curve."""

from __future__ import annotations

import json
import math
import sqlite3
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from advisor.arena.report import PairStats
from advisor.arena.scaling import (
    ScalingError, ScalingSettings, Step, budget_spec, check_settings, curves, format_steps,
    run_scaling,
)
from advisor.arena.stats import MatchSummary, score_from_elo
from advisor.arena.match import ArenaError
from advisor.cli.main import cli


def test_a_family_spec_gets_the_budget() -> None:
    assert budget_spec("ismcts", 250) == "ismcts:iterations=250"
    assert budget_spec("ismcts:", 250) == "ismcts:iterations=250"
    assert budget_spec("ismcts:evaluator=rollout", 4000) == "ismcts:evaluator=rollout,iterations=4000"
    assert budget_spec("omniscient", 1000) == "omniscient:iterations=1000"  # the ceiling's curve


@pytest.mark.parametrize("settings, message", [
    (ScalingSettings(budgets=(1000,)), "two budgets or more"),
    (ScalingSettings(budgets=(1000, 250)), "must rise"),
    (ScalingSettings(budgets=(0, 250)), "must rise and be >= 1"),
    (ScalingSettings(families=[("a", "ismcts:iterations=5")]), "leave out iterations="),
    (ScalingSettings(families=[("a", "ismcts:seconds=1")]), "leave out seconds="),
    (ScalingSettings(families=[("a", "greedy")]), "varies an ismcts or omniscient agent"),
    (ScalingSettings(families=[("a", "ismcts"), ("a", "ismcts:evaluator=rollout")]), "two families"),
    (ScalingSettings(families=[("a b", "ismcts")]), "names use letters"),
    (ScalingSettings(families=[("ismcts", "ismcts")]), "expected NAME=SPEC"),
])
def test_bad_settings_are_refused_before_any_game(settings: ScalingSettings, message: str) -> None:
    with pytest.raises(ScalingError, match=message):
        check_settings(settings)


def _step(family: str, budget: int, previous: int, elo: float, deals: int, sd: float) -> Step:
    """A step whose larger budget scored `elo` over `deals` deals, each deal's score varying by `sd`."""
    summary = MatchSummary(deals, score_from_elo(elo), sd ** 2)
    row = PairStats(0, 1, 2 * deals, deals, 0, deals, (0, 0, deals, 0, 0), summary)
    return Step(family, budget, previous, row, 2 * deals, 2 * deals)


def test_the_curve_adds_the_steps_and_their_variances() -> None:
    first, second = _step("a", 4, 2, 50.0, 100, 0.3), _step("a", 8, 4, 20.0, 100, 0.3)
    points = curves([first, second])["a"]
    assert [p.budget for p in points] == [2, 4, 8]
    assert points[0].elo == 0 and points[1].elo == pytest.approx(50.0)
    assert points[2].elo == pytest.approx(70.0)
    low, high = first.row.summary.elo_ci95  # type: ignore[union-attr]
    assert (points[1].low, points[1].high) == (pytest.approx(low), pytest.approx(high))
    halves = [(s.row.summary.elo - s.row.summary.elo_ci95[0],  # type: ignore[union-attr]
               s.row.summary.elo_ci95[1] - s.row.summary.elo) for s in (first, second)]  # type: ignore[union-attr]
    assert points[2].low == pytest.approx(70.0 - math.hypot(halves[0][0], halves[1][0]))
    assert points[2].high == pytest.approx(70.0 + math.hypot(halves[0][1], halves[1][1]))


def test_the_curve_stops_at_a_clean_sweep_and_has_no_interval_from_few_deals() -> None:
    few = _step("a", 4, 2, 30.0, 2, 0.3)
    sweep = Step("b", 4, 2, PairStats(0, 1, 2, 2, 0, 0, (0, 0, 0, 0, 1), MatchSummary(1, 1.0, 0.0)), 2, 2)
    after = _step("b", 8, 4, 10.0, 100, 0.3)
    found = curves([few, sweep, after])
    assert [(p.budget, p.elo, p.low, p.high) for p in found["a"]][1] == (4, pytest.approx(30.0), None, None)
    assert [p.budget for p in found["b"]] == [2]  # +inf at the first step: nothing to add up after it
    assert "+inf" in format_steps([sweep, after])


def _games(db: str) -> list[tuple]:
    with sqlite3.connect(db) as con:
        return con.execute("SELECT run, idx, seats, returns, finished FROM games ORDER BY run, idx").fetchall()


def test_a_smoke_curve_is_stored_resumes_without_replaying_and_is_drawn(tmp_path) -> None:
    db = str(tmp_path / "scaling.sqlite")
    settings = ScalingSettings(families=[("default", "ismcts")], budgets=(2, 4), games=2, seed=3,
                               db=db, workers=1)
    steps = run_scaling(settings)
    assert [(s.family, s.budget, s.previous, s.stored, s.total) for s in steps] == [("default", 4, 2, 2, 2)]
    assert steps[0].row is not None and steps[0].row.games == 2
    stored = _games(db)
    assert len(stored) == 2
    assert {seat["name"] for row in stored for seat in json.loads(row[2])} == {"default-2", "default-4"}

    with pytest.raises(ArenaError, match="add --resume"):
        run_scaling(settings)  # a stored step is not played again by accident

    plot = tmp_path / "curve.png"
    result = CliRunner().invoke(cli, ["scaling", "--family", "default=ismcts", "--budgets", "2,4",
                                      "--games", "2", "--seed", "3", "--db", db, "--workers", "1",
                                      "--resume", "--plot", str(plot)])
    assert result.exit_code == 0, result.output
    assert _games(db) == stored  # no game replayed: the same rows, the same finishing times
    assert "default   4 vs 2" in result.output and "2/2" in result.output
    assert plot.stat().st_size > 1000 and plot.read_bytes()[:4] == b"\x89PNG"


def test_steps_are_played_budget_by_budget_and_reported_family_by_family(tmp_path, monkeypatch) -> None:
    import advisor.arena.scaling as scaling

    played: list[list[str]] = []

    def fake_arena(arena, reports):  # records the order; a tally with no games
        played.append([name for name, _ in arena.agents])
        return SimpleNamespace(played=[], schedule=SimpleNamespace(total=2), rows=lambda: [])

    monkeypatch.setattr(scaling, "run_arena", fake_arena)
    settings = ScalingSettings(families=[("a", "ismcts"), ("b", "ismcts:evaluator=rollout")],
                               budgets=(2, 4, 8), db=str(tmp_path / "s.sqlite"))
    steps = run_scaling(settings)
    assert played == [["a-4", "a-2"], ["b-4", "b-2"], ["a-8", "a-4"], ["b-8", "b-4"]]
    assert [(s.family, s.budget) for s in steps] == [("a", 4), ("a", 8), ("b", 4), ("b", 8)]


def test_a_report_only_curve_counts_the_stored_steps_and_plays_none(tmp_path) -> None:
    db = str(tmp_path / "scaling.sqlite")
    played = ScalingSettings(families=[("default", "ismcts")], budgets=(2, 4), games=2, seed=3, db=db, workers=1)
    run_scaling(played)
    stored = _games(db)
    steps = run_scaling(ScalingSettings(families=[("default", "ismcts")], budgets=(2, 4, 8), games=2, seed=3,
                                        db=db, play=False))
    assert [(s.budget, s.previous, s.stored, s.total) for s in steps] == [(4, 2, 2, 2), (8, 4, 0, 2)]
    assert steps[0].row is not None and steps[1].row is None
    assert _games(db) == stored
    assert "default   8 vs 4        0/2" in format_steps(steps)
