"""`refuge insights run` after kill -9: the same command continues to exactly N games, none lost or
counted twice, and the corpus is the one an uninterrupted run stores."""

from __future__ import annotations

import os
import signal
import subprocess
import time

from insight_tools import rows
from processes import REFUGE, stored_games as stored

GAMES = 24
RUN = ["insights", "run", "--games", str(GAMES), "--agent", "heuristic", "--seed", "3",
       "--counterfactual-every", "2", "--exact-nodes", "2000"]


def _run(db: str, workers: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*REFUGE, *RUN, "--workers", str(workers), "--db", db], capture_output=True,
                          text=True, timeout=300)


def test_a_killed_run_continues_to_exactly_n_games(tmp_path) -> None:
    db = str(tmp_path / "killed.sqlite")
    run = subprocess.Popen([*REFUGE, *RUN, "--workers", "2", "--db", db], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while stored(db) < 3 and run.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        os.killpg(run.pid, signal.SIGKILL)  # the command and its worker processes, mid-run
        run.wait()
    before = {table: rows(db, table, skip=("seconds",)) for table in ("games", "decisions", "counterfactuals")}
    assert 3 <= len(before["games"]) < GAMES, "the run should have been killed part-way"
    kept = {row[1] for row in before["games"]}
    assert {row[1] for row in before["decisions"]} == kept  # a game's rows are stored with it, or not at all

    done = _run(db, workers=2)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"{GAMES} of {GAMES} games in {db} ({len(kept)} kept, "
                                  f"{GAMES - len(kept)} played")
    after = {table: rows(db, table, skip=("seconds",)) for table in before}
    assert [row[1] for row in after["games"]] == list(range(GAMES))  # every game once
    assert set(before["decisions"]) <= set(after["decisions"])  # stored games untouched

    fresh = str(tmp_path / "fresh.sqlite")
    assert _run(fresh, workers=1).returncode == 0
    for table in before:  # whatever the interruption and the worker count, the same corpus
        assert rows(fresh, table, skip=("seconds",)) == after[table], table
    again = _run(db, workers=2)
    assert again.stdout.startswith(f"{GAMES} of {GAMES} games in {db} ({GAMES} kept, 0 played")
