"""Arena runs under faults (issue 13): hung engines, kills and signals, two arenas, broken stores.

Real processes with bounded waits: a regression fails the test instead of blocking the suite.
"""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from advisor.arena.match import ArenaSettings, run_arena
from advisor.arena.store import ArenaStore, StoreError
from processes import (
    HAS_PROC, REFUGE, alive_with, children_of, is_alive, stored_games, unique_marker, wait_gone,
    wait_until,
)

pytestmark = pytest.mark.skipif(not HAS_PROC, reason="checks processes through /proc")

ENGINE = textwrap.dedent('''
    import json, subprocess, sys, time
    marker, hang_at = sys.argv[1], int(sys.argv[2])
    goes = 0
    for line in sys.stdin:
        cmd = json.loads(line)["cmd"]
        if cmd == "identify":
            answer = {"name": "stuck", "version": "1", "protocol": "refuge-engine/1"}
        elif cmd == "go":
            goes += 1
            if goes >= hang_at:  # a child that holds our stdout open, then silence
                subprocess.Popen(["sleep", marker])
                time.sleep(3600)
            answer = {"action": "draw"}
        elif cmd == "quit":
            break
        else:
            answer = {"ok": True}
        print(json.dumps(answer), flush=True)
''')


@pytest.fixture
def stuck_engine(tmp_path) -> str:
    path = tmp_path / "stuck.py"
    path.write_text(ENGINE, encoding="utf-8")
    return str(path)


def _arena(db: str, *agents: str, games: int = 1_000_000_000, workers: int = 1,
           extra: tuple[str, ...] = ()) -> list[str]:
    argv = [*REFUGE, "arena", "--db", db, "--games", str(games), "--workers", str(workers), *extra]
    for agent in agents:
        argv += ["--agent", agent]
    return argv


def _start(argv: list[str]) -> subprocess.Popen:
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_an_engine_whose_child_holds_its_stdout_times_out_and_the_run_ends(tmp_path,
                                                                           stuck_engine: str) -> None:
    """Issue 13.1: the arena hung for ever on such an engine, and left the child orphaned."""
    db, marker = str(tmp_path / "stuck.sqlite"), unique_marker()
    spec = f"fake=cmd:{sys.executable} {stuck_engine} {marker} 3"
    done = subprocess.run(_arena(db, spec, "heuristic", games=2, extra=("--move-timeout", "1")),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "2 of 2 games" in done.stdout
    with sqlite3.connect(db) as con:
        faults = [row[0] for row in con.execute("SELECT fault FROM games ORDER BY idx")]
    assert any(f and '"timeout"' in f for f in faults)
    assert wait_gone(marker) == []


def test_sigterm_stops_a_billion_game_arena_like_ctrl_c_and_its_workers_go(tmp_path) -> None:
    """Issues 13.4 and 13.6: SIGTERM is Ctrl-C; the schedule is lazy (a billion games start at once)."""
    db = str(tmp_path / "term.sqlite")
    arena = _start(_arena(db, "heuristic", "random", workers=2))
    try:
        assert wait_until(lambda: stored_games(db) >= 4 or arena.poll() is not None, 90)
        workers = children_of(arena.pid)
        arena.send_signal(signal.SIGTERM)  # the arena alone, not its group
        _, err = arena.communicate(timeout=60)
    finally:
        arena.kill()
    assert arena.returncode == 130, err
    assert err.startswith("interrupted: finished games are in") and err.count("\n") == 1, err
    assert workers and wait_until(lambda: not any(is_alive(p) for p in workers), 15)
    # its claim on the run is released: a resume can take it (with fewer games it has nothing to do)
    progress = run_arena(ArenaSettings([("heuristic", "heuristic"), ("random", "random")], games=2,
                                       db=db, resume=True))
    assert len(progress.played) >= 4


def test_kill_9_takes_the_workers_and_their_engines_with_the_arena(tmp_path, stuck_engine: str) -> None:
    """Issue 13.4: after kill -9 the pool's workers and a hung engine (and its child) ran on."""
    db, marker = str(tmp_path / "killed.sqlite"), unique_marker()
    spec = f"stuck=cmd:{sys.executable} {stuck_engine} {marker} 1"
    arena = _start(_arena(db, spec, "heuristic", games=4, workers=2, extra=("--move-timeout", "600")))
    try:
        # both workers' engines hung, each with its child `sleep MARKER`
        assert wait_until(lambda: len(alive_with(f"sleep\0{marker}")) == 2 or arena.poll() is not None,
                          90)
        workers = children_of(arena.pid)
        engines = alive_with(f"{stuck_engine} {marker}")
    finally:
        arena.kill()  # kill -9 of the arena alone: no clean-up runs in it
        arena.communicate(timeout=30)
    assert len(workers) == 2 and engines
    assert wait_until(lambda: not any(is_alive(p) for p in workers + engines), 15)
    assert wait_gone(marker) == []


def test_a_second_arena_on_a_run_being_played_is_refused_at_once(tmp_path) -> None:
    """Issue 13.8: two arenas on one run both failed with 'game N already stored'."""
    db = str(tmp_path / "two.sqlite")
    first, second = (_start(_arena(db, "heuristic", "random")) for _ in range(2))
    try:
        assert wait_until(lambda: first.poll() is not None or second.poll() is not None, 90)
        loser, winner = (first, second) if first.poll() is not None else (second, first)
        _, err = loser.communicate(timeout=30)
        assert loser.returncode == 1 and err.count("\n") == 1, err
        assert "being played by another arena" in err or "already holds this run" in err
        assert wait_until(lambda: stored_games(db) >= 2 or winner.poll() is not None, 90)
        resumed = subprocess.run(_arena(db, "heuristic", "random", extra=("--resume",)),
                                 capture_output=True, text=True, timeout=60)
        assert resumed.returncode == 1
        assert f"being played by another arena (pid {winner.pid}" in resumed.stderr
        assert winner.poll() is None  # still playing, undisturbed
    finally:
        for arena in (first, second):
            arena.send_signal(signal.SIGTERM)
        for arena in (first, second):
            arena.communicate(timeout=60)
    assert winner.returncode == 130


def test_a_claim_left_by_a_dead_arena_is_taken_over(tmp_path) -> None:
    db = str(tmp_path / "claims.sqlite")
    store = ArenaStore(db)
    config = {"agents": [["a", "random"], ["b", "random"]]}
    run = store.claim_run(config)
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    store.db.execute("UPDATE claims SET pid = ? WHERE run = ?", (gone.pid, run))
    assert store.claim_run(config) == run  # the dead holder's claim is taken over
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        store.db.execute("UPDATE claims SET pid = ? WHERE run = ?", (alive.pid, run))
        with pytest.raises(StoreError, match=f"being played by another arena \\(pid {alive.pid}"):
            store.claim_run(config)
    finally:
        alive.kill()
        alive.wait()
        store.close()


def test_engines_and_builds_run_guarded_die_with_their_owner(tmp_path) -> None:
    """Issue 13.4: a killed arena left `rev:` builds (build_native.py, gcc) running."""
    marker = unique_marker()
    owner = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f'''
        from advisor.players.processes import run_guarded
        print("building", flush=True)
        run_guarded(["sh", "-c", "sleep {marker} & sleep {marker}"], timeout=600)
    ''')], stdout=subprocess.PIPE, text=True)
    try:
        assert owner.stdout is not None and owner.stdout.readline() == "building\n"
        assert wait_until(lambda: len(alive_with(f"sleep\0{marker}")) == 2, 30)  # both sleeps started
    finally:
        owner.kill()
        owner.wait(timeout=30)
    assert wait_gone(marker) == []
