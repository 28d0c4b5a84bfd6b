"""Shared helpers for the insights tests: rows of a corpus file, and a serial task runner."""

from __future__ import annotations

import sqlite3
from typing import Any, Callable, Iterable, Sequence


def rows(db: str, table: str, skip: Sequence[str] = ()) -> list[tuple[Any, ...]]:
    """Every row of a corpus table in key order, without the columns in `skip` (timings)."""
    with sqlite3.connect(db, timeout=30) as con:
        columns = [c[1] for c in con.execute(f"PRAGMA table_info({table})") if c[1] not in skip]
        order = {"games": "corpus, idx", "decisions": "corpus, game, event",
                 "counterfactuals": "corpus, game, event, kind"}[table]
        return con.execute(f"SELECT {', '.join(columns)} FROM {table} ORDER BY {order}").fetchall()


def serial(function: Callable[..., Any], tasks: Iterable[Sequence[Any]], common: tuple[Any, ...],
           on_result: Callable[[Sequence[Any], Any], bool]) -> None:
    """Run every task here, in order (the task runner a corpus needs, without an executor)."""
    for task in tasks:
        if on_result(task, function(task, *common)):
            return
