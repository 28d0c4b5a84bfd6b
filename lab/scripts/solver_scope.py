"""How far the exact solver reaches: positions and seconds by the walker's bag size (docs/search.md).

Takes the first single-walker return-or-draw of the last walk in games 7,000,000 + i of
``lab.endgames.single_walker_stops`` (players and routes in turn), up to `--per` per
bag size, and solves each within `--max-nodes` positions.

Usage: .venv/bin/python -m lab.scripts.solver_scope [--sizes 4,6,8,12] [--per 3] [--max-nodes 300000]
"""

from __future__ import annotations

import argparse
import resource
import time
from collections import Counter


from lab.endgames import single_walker_stops
from positions import ROUTES
from positions.kernel import phases
from search.errors import SolverLimitError
from search.solver import ExactSolver

ROUTE_ORDER = tuple(ROUTES)


def main() -> None:
    """Solve the first return-or-draw of each game whose walker's bag has a wanted size."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="4,6,8,12")
    parser.add_argument("--per", type=int, default=3)
    parser.add_argument("--max-nodes", type=int, default=300_000)
    parser.add_argument("--max-games", type=int, default=3_000)
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    found: Counter[int] = Counter()
    for index in range(args.max_games):
        if all(found[size] >= args.per for size in sizes):
            break
        players, route = 2 + index % 3, ROUTE_ORDER[(index // 3) % 3]
        for _, pos in single_walker_stops(players, route, 7_000_000 + index):
            if pos.phase != phases.DECIDE:
                continue
            size = len(pos.bags[pos.actor])
            if size in sizes and found[size] < args.per:
                found[size] += 1
                solver = ExactSolver(args.max_nodes)
                started = time.perf_counter()
                try:
                    outcome = f"{solver.solve(pos).nodes} positions"
                except SolverLimitError:
                    outcome = f"more than {args.max_nodes} positions"
                memory = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
                print(f"bag {size}: {players}p {route}, {pos.steps[pos.actor]} Steps, deck "
                      f"{pos.deck_suns}+{pos.deck_storms}: {outcome} in "
                      f"{time.perf_counter() - started:.2f} s (peak {memory} MB)", flush=True)
            break


if __name__ == "__main__":
    main()
