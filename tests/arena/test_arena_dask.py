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


def _workerless_cluster():  # type: ignore[no-untyped-def]
    return distributed.LocalCluster(n_workers=0, processes=False, host="127.0.0.1", protocol="tcp",
                                    dashboard_address=None)


def test_a_cluster_without_workers_is_reported_and_given_up_after_the_worker_timeout(tmp_path) -> None:
    """Issue 13.9: with every worker dead the arena waited silently for ever."""
    import subprocess

    from processes import REFUGE

    with _workerless_cluster() as cluster:
        address = cluster.scheduler_address.removeprefix("tcp://")
        done = subprocess.run([*REFUGE, "arena", "--agent", "heuristic", "--agent", "random",
                               "--games", "4", "--db", str(tmp_path / "d.sqlite"),
                               "--executor", f"dask://{address}", "--worker-timeout", "2"],
                              capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stderr.endswith("for 2 s (--worker-timeout); stopping\n") and "Traceback" not in done.stderr


def test_a_quiet_dask_run_says_how_many_workers_are_connected(monkeypatch) -> None:
    from advisor.arena import executors

    monkeypatch.setattr(executors, "HEARTBEAT_SECONDS", 0.0)
    lines: list[str] = []
    with _workerless_cluster() as cluster:
        runner = executors.Runner(1, cluster.scheduler_address, on_wait=lines.append)
        try:
            runner.check_workers(running=3)
        finally:
            runner.shutdown()
    assert lines and lines[0].startswith("waiting for workers: 0 connected, 3 tasks in flight")
