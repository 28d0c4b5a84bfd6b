"""Find small solver positions (last walk, one player still walking) and store them for the tests.

Plays seeded 2-player games with heuristic bots (a little randomness for variety) until the last
walk has a single walker facing a choice, keeps the positions the exact solver can finish within
a node budget and whose best option is clear, and writes them to tests/data/solver_positions.json
as replayable action lists (notation from ``Position.new_game(players, route)``).

Usage: .venv/bin/python -m lab.scripts.make_solver_positions [--count 12] [--max-nodes 20000]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


from lab.endgames import single_walker_stops
from positions import RULES_VERSION, ROUTES
from positions.kernel import phases
from search.errors import SolverLimitError
from search.solver import solve

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "solver_positions.json"


def candidate(seed: int, route: str, max_nodes: int) -> dict | None:
    """The first single-walker choice of the last walk in game `seed`, if the solver can finish it."""
    for actions, pos in single_walker_stops(2, route, seed):
        if pos.phase == phases.RETURN_DISCARD or len(pos.legal_actions()) > 3:
            continue
        try:
            result = solve(pos, max_nodes=max_nodes)
        except SolverLimitError:
            continue
        wins = sorted((o.win for o in result.options), reverse=True)
        if wins[0] - wins[1] >= 0.03:
            return {"players": 2, "route": route, "seed": seed, "actions": actions,
                    "phase": phases.NAMES[pos.phase], "nodes": result.nodes,
                    "exact": [{"action": str(o.action), "win": float(o.win), "score": float(o.score),
                               "win_exact": str(o.win), "score_exact": str(o.score)}
                              for o in result.options],
                    "best": str(result.best)}
    return None


def main() -> None:
    """Search seeds until enough positions are found, then write the file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=12)
    parser.add_argument("--max-nodes", type=int, default=20_000)
    parser.add_argument("--seeds", type=int, default=400)
    args = parser.parse_args()
    found = []
    routes = tuple(ROUTES)
    for seed in range(args.seeds):
        entry = candidate(seed, routes[seed % 3], args.max_nodes)
        if entry is not None:
            found.append(entry)
            print(seed, entry["route"], entry["phase"], entry["nodes"],
                  [(e["action"], round(e["win"], 3)) for e in entry["exact"]], flush=True)
            if len(found) >= args.count:
                break
    OUT.write_text(json.dumps({"rules_version": RULES_VERSION, "positions": found}, indent=1) + "\n")
    print(f"wrote {len(found)} positions to {OUT}")


if __name__ == "__main__":
    main()
