"""Resume after kill -9: no finished game is lost and none is played twice."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time

from advisor.arena.match import ArenaSettings, run_arena

AGENTS = [("search", "ismcts:iterations=3"), ("bot", "heuristic")]
GAMES = 20


def _rows(db: str) -> list[tuple]:
    with sqlite3.connect(db, timeout=30) as con:
        return con.execute("SELECT idx, seats, scores, returns, fault, record FROM games "
                           "ORDER BY idx").fetchall()


def _stored(db: str) -> int:
    try:
        with sqlite3.connect(db, timeout=30) as con:
            return int(con.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    except sqlite3.OperationalError:  # not created yet
        return 0


def test_a_killed_run_resumes_without_losing_or_repeating_games(tmp_path) -> None:
    db = str(tmp_path / "killed.sqlite")
    argv = [sys.executable, "-c", "from advisor.cli import main; main()", "arena", "--games", str(GAMES),
            "--seed", "5", "--db", db, "--workers", "2"]
    for name, spec in AGENTS:
        argv += ["--agent", f"{name}={spec}"]
    arena = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while _stored(db) < 4 and arena.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        os.killpg(arena.pid, signal.SIGKILL)  # the arena and its worker processes, mid-run
        arena.wait()
    before = _rows(db)
    assert 4 <= len(before) < GAMES, "the run should have been killed part-way"

    progress = run_arena(ArenaSettings(AGENTS, games=GAMES, seed=5, db=db, workers=2, resume=True))
    after = _rows(db)
    assert [row[0] for row in after] == list(range(GAMES))  # every game once
    assert len(progress.played) == GAMES
    kept = {row[0]: row for row in after}
    assert all(kept[row[0]] == row for row in before)  # stored games untouched

    # and the result is the one an uninterrupted run gives (every game depends only on its seeds)
    fresh = str(tmp_path / "fresh.sqlite")
    run_arena(ArenaSettings(AGENTS, games=GAMES, seed=5, db=fresh, workers=2))
    assert [row[2:] for row in _rows(fresh)] == [row[2:] for row in after]


def test_ctrl_c_stops_at_once_with_one_line_and_the_run_resumes(tmp_path) -> None:
    db = str(tmp_path / "interrupted.sqlite")
    argv = [sys.executable, "-c", "from advisor.cli import main; main()", "arena", "--games", str(GAMES),
            "--seed", "6", "--db", db, "--workers", "2"]
    for name, spec in AGENTS:
        argv += ["--agent", f"{name}={spec}"]
    # SIGINT as a terminal's process starts with it, even under a shell that ignores it for a
    # background job (whose children would inherit the ignore and never see Ctrl-C)
    arena = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    while _stored(db) < 2 and arena.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    os.killpg(arena.pid, signal.SIGINT)  # as a terminal's Ctrl-C reaches the whole group
    _, err = arena.communicate(timeout=60)
    assert arena.returncode == 130
    assert err.startswith("interrupted: finished games are in") and err.count("\n") == 1, err
    run_arena(ArenaSettings(AGENTS, games=GAMES, seed=6, db=db, workers=2, resume=True))
    assert [row[0] for row in _rows(db)] == list(range(GAMES))
