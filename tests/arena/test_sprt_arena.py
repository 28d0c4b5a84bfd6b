"""The arena's SPRT: it stops scheduling only on a decision, keeps the games in flight, resumes it."""

from __future__ import annotations

import sqlite3

from click.testing import CliRunner

from advisor.arena.match import ArenaSettings, run_arena
from advisor.arena.sprt import SprtSettings
from advisor.cli import cli


def _stored(db: str) -> int:
    with sqlite3.connect(db) as con:
        return int(con.execute("SELECT COUNT(*) FROM games").fetchone()[0])


def test_the_arena_stops_on_a_decision_and_keeps_the_games_in_flight(tmp_path) -> None:
    db = str(tmp_path / "s.sqlite")
    settings = ArenaSettings([("h", "heuristic"), ("r", "random")], games=400, seed=1, db=db,
                             workers=1, sprt=SprtSettings(0.0, 50.0))
    progress = run_arena(settings)
    watch = progress.sprt
    assert watch is not None and watch.stopped is not None and watch.stopped.decision == "H1"
    # every game played is stored and counted, the deals already in flight at the stop included
    assert _stored(db) == len(progress.played) == 2 * watch.current.units < 400
    assert watch.stopped.units <= watch.current.units <= watch.stopped.units + 2
    # resumed, the stored deals replay the test to its decision: nothing more is played
    settings.games, settings.resume = 800, True
    again = run_arena(settings)
    assert again.sprt is not None and again.sprt.stopped is not None
    assert again.sprt.stopped.decision == "H1" and _stored(db) == len(again.played) == len(progress.played)


def test_without_a_decision_the_whole_schedule_is_played(tmp_path) -> None:
    """Identical agents score every deal 1-1: no decision in 12 games, nothing stops the run."""
    db = str(tmp_path / "e.sqlite")
    result = CliRunner().invoke(cli, ["arena", "--agent", "a=heuristic", "--agent", "b=heuristic",
                                      "--games", "12", "--seed", "2", "--db", db, "--workers", "1",
                                      "--sprt", "0,10", "--elo-model", "logistic"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[-3] == f"12 of 12 games in {db}"
    assert lines[-2].startswith("ptnml 0,0,6,0,0 (deals scoring 0, 1/2, 1, 3/2, 2 of 2 for the first agent; "
                                "`refuge sprt --pentanomial 0,0,6,0,0 --elo0 0 --elo1 10 --elo-model logistic`")
    assert lines[-1].startswith("SPRT elo0=0 elo1=10 (logistic Elo, alpha=0.05, beta=0.05): LLR -0.")
    assert lines[-1].endswith("continue after 6 deals: no decision before the schedule ran out")


def test_three_players_test_the_deal_score_on_its_own_grid(tmp_path) -> None:
    """Two agents cycled over three seats meet twice a game, six times a deal: 13 score bins."""
    settings = ArenaSettings([("h", "heuristic"), ("r", "random")], games=6, players=3, seed=4,
                             db=str(tmp_path / "3.sqlite"), workers=1, sprt=SprtSettings(0.0, 50.0))
    progress = run_arena(settings)
    (row,) = progress.rows()
    assert len(row.counts) == 13 and sum(row.counts) == 2
    assert progress.sprt is not None and progress.sprt.current.units == 2


def test_unreachable_normalized_bounds_for_four_players_are_one_line(tmp_path) -> None:
    result = CliRunner().invoke(cli, ["arena", "--agent", "a=heuristic", "--agent", "b=random",
                                      "--players", "4", "--sprt", "0,150", "--games", "2",
                                      "--db", str(tmp_path / "4.sqlite"), "--workers", "1"])
    assert result.exit_code == 1
    assert result.output == ("error: --sprt with 4 players: normalized Elo bounds must lie within "
                             "±109 here, got 0, 150\n")
