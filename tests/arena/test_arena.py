"""The arena: schedule, paired deals, the SQLite store, resuming, the local pool and CLI errors."""

from __future__ import annotations

import json
import multiprocessing
import os
import sqlite3

import pytest
from click.testing import CliRunner

from advisor.players.agents import PolicyAgent, register_agent_kind
import itertools

from advisor.arena.match import ArenaSettings, Schedule, batches, make_tables, rotations, run_arena
from advisor.arena.play import Entrant, GameJob, play_game
from advisor.players.games import DealStreams, derive_seed
from advisor.arena.report import Played, pair_stats
from advisor.cli import cli
from advisor.arena.stats import pentanomial
from positions.record import read_record_text, replay
from search.policies import UniformRandom


def _run(*args: str):
    return CliRunner().invoke(cli, ["arena", *args])


def _games(db: str) -> list[tuple]:
    with sqlite3.connect(db) as con:
        return con.execute("SELECT idx, seats, returns, fault, record FROM games ORDER BY idx").fetchall()


# --- schedule ---------------------------------------------------------------------------------------------

def test_tables_and_rotations() -> None:
    assert make_tables(3, 2) == [(0, 1), (0, 2), (1, 2)]
    assert make_tables(2, 4) == [(0, 1, 0, 1)]
    assert rotations((0, 1)) == [(0, 1), (1, 0)]
    assert rotations((0, 1, 2)) == [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
    assert rotations((0, 1, 0, 1)) == [(0, 1, 0, 1), (1, 0, 1, 0)]


def test_schedule_is_deal_major_and_rounds_up_to_whole_deals() -> None:
    schedule = Schedule.build(3, 2, "meadows", 7, games=5)
    assert schedule.deals == 3 and schedule.total == 18
    jobs = list(schedule.jobs())
    assert [j.index for j in jobs] == list(range(18))
    first_deal = jobs[:6]
    assert {j.deal for j in first_deal} == {0} and len({j.deal_seed for j in first_deal}) == 1
    assert [j.seats for j in first_deal] == [(0, 1), (1, 0), (0, 2), (2, 0), (1, 2), (2, 1)]
    # a longer run has the shorter one as its prefix, so --resume can extend a run
    assert list(Schedule.build(3, 2, "meadows", 7, games=9).jobs())[:18] == jobs
    assert [len(b) for b in batches(jobs, 2)] == [4, 4, 4, 4, 2]


def test_a_schedule_of_a_billion_games_is_made_as_it_is_played() -> None:
    """Issue 13: --games 1000000000 built the whole list in memory (MemoryError after 47 s)."""
    schedule = Schedule.build(2, 2, "meadows", 1, games=10**9)
    assert schedule.total == 10**9
    first = list(itertools.islice(batches(schedule.jobs(), 8), 3))
    assert [len(b) for b in first] == [16, 16, 16] and first[2][-1].index == 47


def test_derived_seeds_are_stable_and_distinct() -> None:
    assert derive_seed(1, "deal", 0) == derive_seed(1, "deal", 0)
    assert len({derive_seed(1, "deal", d) for d in range(100)}) == 100
    assert 0 <= derive_seed(2**62, "x") < 2**63


# --- paired deals -----------------------------------------------------------------------------------------

def test_equal_agents_replay_the_same_game_in_both_rotations() -> None:
    """Luck belongs to the seat: rotated identical agents see the same draws, weather and choices."""
    entrants = [Entrant("a", "heuristic"), Entrant("b", "heuristic")]
    seed = derive_seed(5, "deal", 0)
    one = play_game(GameJob(0, 0, 0, 0, 2, "meadows", seed, (0, 1)), entrants)
    two = play_game(GameJob(1, 0, 0, 1, 2, "meadows", seed, (1, 0)), entrants)
    events = lambda o: json.loads(o.record)["events"]  # noqa: E731
    assert events(one) == events(two) and one.scores == two.scores
    other = play_game(GameJob(2, 0, 1, 0, 2, "meadows", derive_seed(5, "deal", 1), (0, 1)), entrants)
    assert events(other) != events(one)


def test_a_played_game_is_a_valid_record_with_its_result() -> None:
    entrants = [Entrant("h", "heuristic"), Entrant("r", "random"), Entrant("c", "cautious")]
    outcome = play_game(GameJob(0, 0, 0, 0, 3, "forest", 99, (2, 0, 1)), entrants)
    record = read_record_text(outcome.record)
    assert record.names == ("c", "h", "r") and record.seed == 99
    final = replay(record).final
    assert final.is_terminal() and tuple(final.scores()) == outcome.scores
    assert outcome.fault is None and sum(outcome.returns) == pytest.approx(1.0)


def test_each_seat_draws_from_its_own_stream() -> None:
    streams = DealStreams(42, 3)
    again = DealStreams(42, 3)
    assert [s.random() for s in streams.seats] == [s.random() for s in again.seats]
    assert len({s.random() for s in streams.seats}) == 3


def test_pentanomial_pairs_only_complete_deals() -> None:
    games = [Played(0, 0, (0, 1), (1.0, 0.0), (9, 3)), Played(0, 0, (1, 0), (0.0, 1.0), (4, 8)),
             Played(0, 1, (0, 1), (1.0, 0.0), (9, 3)), Played(0, 1, (1, 0), (1.0, 0.0), (9, 3)),
             Played(0, 2, (0, 1), (0.0, 1.0), (2, 5))]  # deal 2 is unfinished
    (row,) = pair_stats(2, 2, games, [2])
    assert (row.games, row.wins, row.draws, row.losses) == (5, 3, 0, 2)
    # deal 0: first won both (pair score 2); deal 1: one each (pair score 1)
    assert row.summary == pentanomial([0, 0, 1, 0, 1])


def test_multiplayer_losers_are_ranked_by_points() -> None:
    games = [Played(0, 0, (0, 1, 2), (0.0, 0.0, 1.0), (10, 7, 12))]
    rows = {(r.first, r.second): r for r in pair_stats(3, 3, games, [1])}
    assert (rows[0, 1].wins, rows[0, 2].losses, rows[1, 2].losses) == (1, 1, 1)


# --- runs, the store and resuming ------------------------------------------------------------------------

def test_a_run_stores_every_game_and_resume_extends_it(tmp_path) -> None:
    db = str(tmp_path / "a.sqlite")
    settings = ArenaSettings([("h", "heuristic"), ("r", "random")], games=4, seed=3, db=db)
    progress = run_arena(settings)
    assert len(progress.played) == 4
    first = _games(db)
    assert [g[0] for g in first] == [0, 1, 2, 3]
    seats = json.loads(first[0][1])
    assert [s["name"] for s in seats] == ["h", "r"] and seats[0]["spec"] == "heuristic"
    with pytest.raises(Exception, match="already holds this run"):
        run_arena(settings)
    settings.games, settings.resume = 8, True
    progress = run_arena(settings)
    rows = _games(db)
    assert [g[0] for g in rows] == list(range(8)) and rows[:4] == first
    assert len(progress.played) == 8


def test_results_do_not_depend_on_the_worker_count(tmp_path) -> None:
    serial, pooled = str(tmp_path / "1.sqlite"), str(tmp_path / "2.sqlite")
    agents = [("h", "heuristic"), ("g", "greedy")]
    run_arena(ArenaSettings(agents, games=6, seed=8, db=serial, workers=1))
    run_arena(ArenaSettings(agents, games=6, seed=8, db=pooled, workers=2))
    assert _games(serial) == _games(pooled)


def test_cli_prints_the_table_and_stops_early_on_sprt(tmp_path) -> None:
    db = str(tmp_path / "s.sqlite")
    result = _run("--agent", "h=heuristic", "--agent", "r=random", "--games", "200", "--seed", "1",
                  "--db", db, "--workers", "1", "--sprt", "0,50")
    assert result.exit_code == 0, result.output
    assert "h vs r" in result.output and "W-D-L" in result.output
    last = result.output.splitlines()[-1]
    assert last.startswith("stopped by the SPRT elo0=0 elo1=50 (normalized Elo") and "H1 accepted" in last
    stored = len(_games(db))
    assert stored < 200 and f"{stored} of 200 games" in result.output


@pytest.mark.parametrize("args, code, fragment", [
    (["--agent", "a=heuristic", "--agent", "b=ismcts:iterations=0"], 1, "iterations"),
    (["--agent", "a=heuristic", "--agent", "b=wizard"], 1, "unknown agent 'wizard'"),
    (["--agent", "a=heuristic", "--agent", "a=random"], 1, "two agents are named 'a'"),
    (["--agent", "a=heuristic"], 1, "at least two"),
    (["--agent", "a=heuristic", "--agent", "b=random", "--sprt", "5"], 2, "ELO0,ELO1"),
    (["--agent", "a=heuristic", "--agent", "b=random", "--sprt", "10,0"], 2, "ELO0 < ELO1"),
    (["--agent", "a=heuristic", "--agent", "b=random", "--executor", "spark://x"], 1,
     "unknown executor 'spark://x'"),
    (["--agent", "a=heuristic", "--agent", "b=random", "--route", "moon"], 1, "unknown route"),
    (["--agent", "a=heuristic", "--agent", "b=random", "--agent", "c=greedy", "--sprt", "0,5"], 1,
     "exactly two agents"),
    (["--agent", "a=heuristic", "--agent", "b=random", "--resume"], 1, "no run"),
    (["--agent", "a=heuristic", "--agent", "b=rev:no-such-ref:heuristic"], 1, "no such commit"),
    (["--agent", "a=heuristic", "--agent", "b=cmd:/no/such/engine"], 1, "cannot start"),
])
def test_cli_errors_are_one_line(tmp_path, args: list[str], code: int, fragment: str) -> None:
    result = _run(*args, "--games", "2", "--db", str(tmp_path / "e.sqlite"), "--workers", "1")
    assert result.exit_code == code, result.output
    assert fragment in result.output
    if code == 1:
        assert result.output.count("\n") == 1 and result.output.startswith("error: ")
    assert "Traceback" not in result.output


def test_a_file_that_is_not_a_database_is_one_line_error(tmp_path) -> None:
    bad = tmp_path / "bad.sqlite"
    bad.write_text("hello, I am not SQLite" * 100)
    result = _run("--agent", "a=heuristic", "--agent", "b=random", "--db", str(bad), "--workers", "1")
    assert result.exit_code == 1 and "not an arena database" in result.output


# --- a broken pool is rebuilt ------------------------------------------------------------------------------

class _DiesOnce:
    """A policy whose first call, in any process, kills that process (as an out-of-memory kill would)."""

    def __init__(self, flag: str) -> None:
        self.flag = flag

    def choose(self, position, rng):  # type: ignore[no-untyped-def]
        if not os.path.exists(self.flag):
            open(self.flag, "w").close()
            os._exit(9)
        return UniformRandom().choose(position, rng)


@pytest.mark.skipif(multiprocessing.get_start_method() != "fork",
                    reason="the test's agent kind reaches workers only when they are forked")
def test_a_broken_pool_is_rebuilt_and_its_games_replayed(tmp_path) -> None:
    flag = str(tmp_path / "died")
    register_agent_kind("dies-once", lambda spec: PolicyAgent("dies-once", _DiesOnce(flag)))
    db = str(tmp_path / "p.sqlite")
    progress = run_arena(ArenaSettings([("d", "dies-once"), ("r", "random")], games=8, seed=2, db=db,
                                       workers=2))
    assert os.path.exists(flag)  # a worker did die
    assert [g[0] for g in _games(db)] == list(range(8)) and len(progress.played) == 8


def test_a_run_reports_through_its_hooks_not_the_terminal(tmp_path, capsys) -> None:
    """The arena prints nothing itself: summary lines and the count of games go to the hooks."""
    from advisor.arena.match import ArenaReports

    lines: list[str] = []
    counts: list[tuple[int, int]] = []
    run_arena(ArenaSettings([("h", "heuristic"), ("r", "random")], games=4, seed=2,
                            db=str(tmp_path / "a.sqlite"), workers=1),
              ArenaReports(line=lines.append, played=lambda done, total: counts.append((done, total))))
    assert counts and counts[-1] == (4, 4) and all(total == 4 for _, total in counts)
    assert lines and lines[0].startswith("games ") and "h vs r" in lines[0]
    assert capsys.readouterr().out == ""
