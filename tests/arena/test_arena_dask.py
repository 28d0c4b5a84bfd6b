"""The Dask path: a LocalCluster on loopback runs a small arena through client.get_executor()."""

from __future__ import annotations

import sqlite3

import pytest

from advisor.arena.match import ArenaSettings, run_arena

distributed = pytest.importorskip("distributed")


def _rows(db: str) -> list[tuple]:
    with sqlite3.connect(db) as con:
        return con.execute("SELECT idx, seats, scores, returns, record FROM games ORDER BY idx").fetchall()


def test_an_arena_runs_on_a_dask_cluster_with_the_same_results(tmp_path) -> None:
    agents = [("h", "heuristic"), ("c", "cautious")]
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  host="127.0.0.1", protocol="tcp", dashboard_address=None) as cluster:
        host_port = cluster.scheduler_address.removeprefix("tcp://")
        on_dask = str(tmp_path / "dask.sqlite")
        progress = run_arena(ArenaSettings(agents, games=6, seed=9, db=on_dask,
                                           executor=f"dask://{host_port}"))
    assert len(progress.played) == 6
    local = str(tmp_path / "local.sqlite")
    run_arena(ArenaSettings(agents, games=6, seed=9, db=local, workers=1))
    assert _rows(on_dask) == _rows(local)


def test_an_unreachable_scheduler_is_a_clear_error(tmp_path) -> None:
    from advisor.arena.executors import ExecutorError, Runner

    with pytest.raises(ExecutorError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        Runner(1, "tcp://127.0.0.1:9", connect_seconds=1)
