"""What `refuge bench --workers 2` would gain over `--workers 1` on an idle machine, measured one
thread at a time (on a loaded machine the two threads of a search rarely get both cores at once, so
timing `--workers 2` itself measures the load, not the code).

Per bench position, each the minimum over ROUNDS rounds (each search with a fresh agent, as the
bench makes it):

* ``P1``, ``P2``: the bench's window (``SearchResult.seconds``) less the time inside
  ``refuge_native.search``: the Python around the core, one worker and two;
* ``N1``: ``refuge_native.search`` growing one tree of 400 iterations;
* ``A``, ``B``: the same growing worker 0's and worker 1's tree of 200 alone (one thread each),
  in turn first and second from round to round: the first native call after the bench's searches
  costs some 10–25 µs more (median; caches), which timed always first put on worker 0's tree;
* ``D``: the second tree's dispatch, ``refuge_native.search`` of two trees of one iteration less
  that of one (10 × ROUNDS rounds: the load spreads it most);

then ``t1 = P1 + N1`` and ``t2 = P2 + max(A, B) + D`` (the two trees run at once; the slower one is
waited for). Run it FROM a checkout (its code and its shadowing ``refuge_native.abi3.so``)::

    nice .venv/bin/python lab/scripts/workers_speedup.py [ROUNDS=25]
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

sys.path.insert(0, os.getcwd())

from advisor.arena.bench import BENCH_SEED, bench_positions  # noqa: E402
from advisor.players.agents import SearchAgent  # noqa: E402
from positions.kernel import native_search  # noqa: E402
from search.backend import native_request  # noqa: E402
from search.ismcts import search  # noqa: E402
from search.parallel import derive_seed  # noqa: E402
from search.request import Limit, SearchRequest  # noqa: E402

ITERATIONS = 400
core_seconds: list[float] = []
_core = native_search.refuge_native.search


def _timed_core(*args: Any, **kwargs: Any) -> Any:
    """``refuge_native.search``, its wall time noted."""
    start = time.perf_counter()
    found = _core(*args, **kwargs)
    core_seconds.append(time.perf_counter() - start)
    return found


def _request(number: int, workers: int, iterations: int) -> SearchRequest:
    """The bench's request for position `number` (a fresh agent, as ``run_bench`` makes it)."""
    return SearchAgent("bench", Limit(iterations=iterations, workers=workers), reuse=False).request(BENCH_SEED + number)


def _core_time(position: Any, requests: list[Any], seeds: list[int], budgets: list[int]) -> float:
    """The core's time growing these trees (one native call)."""
    core_seconds.clear()
    native_search.search(position, requests, seeds, budgets)
    return core_seconds[0]


def main(rounds: int) -> None:
    """Print every position's parts and the projected speeds."""
    native_search.refuge_native.search = _timed_core
    total1 = total2 = 0.0
    for number, (label, position) in enumerate(bench_positions()):
        python = {1: 1.0, 2: 1.0}
        n1 = d1 = d2 = 1.0
        alone = [1.0, 1.0]
        for round_ in range(rounds):
            for workers in (1, 2):
                core_seconds.clear()
                result = search(position, _request(number, workers, ITERATIONS))
                python[workers] = min(python[workers], result.seconds - core_seconds[0])
                if workers == 1:
                    n1 = min(n1, core_seconds[0])
            fresh = _request(number, 2, ITERATIONS)
            seeds = [derive_seed(BENCH_SEED + number, worker) for worker in (0, 1)]
            for worker in (0, 1) if round_ % 2 == 0 else (1, 0):  # neither always first after the searches
                grown = _core_time(position, [native_request(fresh, worker)], seeds[worker:worker + 1], [ITERATIONS // 2])
                alone[worker] = min(alone[worker], grown)
        a, b = alone
        one, two = _request(number, 1, 1), _request(number, 2, 2)
        for _ in range(10 * rounds):
            d1 = min(d1, _core_time(position, [native_request(one, 0)], [1], [1]))
            d2 = min(d2, _core_time(position, [native_request(two, w) for w in (0, 1)], [1, 2], [1, 1]))
        dispatch = max(0.0, d2 - d1)
        t1, t2 = python[1] + n1, python[2] + max(a, b) + dispatch
        total1, total2 = total1 + t1, total2 + t2
        print(f"{label:20} P1 {python[1] * 1e6:4.0f} N1 {n1 * 1e6:5.0f} | P2 {python[2] * 1e6:4.0f} A {a * 1e6:5.0f} "
              f"B {b * 1e6:5.0f} D {dispatch * 1e6:4.0f} µs | t1 {t1 * 1e3:.3f} t2 {t2 * 1e3:.3f} ms {t1 / t2:.2f}×")
    positions = len(bench_positions())
    print(f"{os.getcwd()}: projected 1 worker {positions * ITERATIONS / total1:.0f} it/s, "
          f"2 workers {positions * ITERATIONS / total2:.0f} it/s: {total1 / total2:.3f}×")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 25)
