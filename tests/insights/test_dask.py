"""The corpus on a Dask cluster (a LocalCluster on loopback) stores the games a local run stores."""

from __future__ import annotations

import functools

import pytest

from advisor.arena.executors import Runner, run_tasks
from advisor.insights.run import run_corpus
from advisor.insights.store import CorpusKey
from insight_tools import rows, serial

distributed = pytest.importorskip("distributed")

KEY = CorpusKey("heuristic", 2, "forest", 8, 2, 2000)


def test_a_corpus_runs_on_a_dask_cluster_with_the_same_games(tmp_path) -> None:
    on_dask = str(tmp_path / "dask.sqlite")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, host="127.0.0.1",
                                  protocol="tcp", dashboard_address=None) as cluster:
        runner = Runner(1, cluster.scheduler_address)
        try:
            progress = run_corpus(on_dask, KEY, 6, functools.partial(run_tasks, runner))
        finally:
            runner.shutdown()
    assert (progress.already, progress.played) == (0, 6)
    local = str(tmp_path / "local.sqlite")
    run_corpus(local, KEY, 6, serial)
    for table in ("games", "decisions", "counterfactuals"):
        assert rows(on_dask, table, skip=("seconds",)) == rows(local, table, skip=("seconds",)), table
