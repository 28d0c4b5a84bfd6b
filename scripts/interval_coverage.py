"""How often best-move's printed interval covers the exact value (tests/data/solver_positions.json).

Usage: .venv/bin/python scripts/interval_coverage.py [--iterations 2000] [--workers 1]
       [--no-exact] [--no-widen]

For each stored last-walk position: is the recommendation exactly optimal, and for each visited
option, is its exact win share inside the printed interval? `--no-exact` turns the exact endgames
off (so the search's own estimates are measured), `--no-widen` the max-backup widening.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # the packages first: tests/positions is not them

from advisor.analysis.best_move import advise  # noqa: E402
from advisor.analysis.endgames import ExactEndgames  # noqa: E402
from advisor.players.bots import DEFAULT_ROLLOUT  # noqa: E402
from positions.actions import action_from_code  # noqa: E402
from search.ismcts import search  # noqa: E402
from search.request import SearchRequest  # noqa: E402
from solver_positions import load_entries, replay  # noqa: E402


def main() -> None:
    """Print one line per missed option and a summary line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=2000)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-exact", action="store_true")
    parser.add_argument("--no-widen", action="store_true")
    args = parser.parse_args()
    optimal = covered = shown = 0
    errors = []
    entries = load_entries()
    for entry in entries:
        pos = replay(entry)
        request = SearchRequest(iterations=args.iterations, seed=args.seed, workers=args.workers,
                                rollout=DEFAULT_ROLLOUT,
                                exact=None if args.no_exact else ExactEndgames())
        if args.no_widen:
            result = search(pos, request)
            best = result.recommendation.action
        else:
            advice = advise(pos, request, with_facts=False)
            result, best = advice.result, advice.recommendation.action
        exact = {o["action"]: o["win"] for o in entry["exact"]}
        optimal += exact[str(action_from_code(best))] >= max(exact.values()) - 1e-9
        for stats in result.actions:
            if not stats.visits and not stats.exact:
                continue
            value = exact[str(action_from_code(stats.action))]
            shown += 1
            inside = stats.ci_low - 1e-9 <= value <= stats.ci_high + 1e-9
            covered += inside
            errors.append(abs(stats.win - value))
            if not inside:
                print(f"  seed {entry['seed']}: {action_from_code(stats.action)} estimated "
                      f"{stats.win:.3f} [{stats.ci_low:.3f}, {stats.ci_high:.3f}] over "
                      f"{stats.visits} visits, exact {value:.3f}")
    errors.sort()
    print(f"{args.iterations} iterations, {args.workers} worker(s), exact "
          f"{'off' if args.no_exact else 'on'}, widening {'off' if args.no_widen else 'on'}: "
          f"optimal {optimal}/{len(entries)}, interval covers {covered}/{shown}, |error| median "
          f"{statistics.median(errors):.4f}, 95th percentile {errors[int(0.95 * (len(errors) - 1))]:.4f}")


if __name__ == "__main__":
    main()
