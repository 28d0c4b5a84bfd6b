"""best-move's option values at two-walker simultaneous steps against the exact equilibrium.

For every position of tests/data/two_walker_positions.json and both seats of its step (seat 0 at
the step's start; seat 1 after seat 0's choice, which it cannot see), runs best-move's search
(``advise`` with the advisor's request) and compares each option's win chance with its exact value
against the other seat's equilibrium strategy (``refuge solve``'s option values). Prints, per
mode, the share of decisions whose recommended option is exactly optimal and the option values'
|error| mean, median and max; one JSON line per decision goes to `--out` as it runs.

Modes: ``endgames`` is best-move as shipped (the exact anchor answers these positions, so its
values are the exact ones when the probe fits its budget); ``none`` is the search alone
(``exact=none``): what the search itself estimates; ``leaves`` the search with exact values at its
leaves but its own root values (``LeavesOnly``). The search is whatever search/ismcts.py is on
this branch: re-run after it changes (issue 22 items 1-2).

Usage: python -m lab.scripts.two_walker_accuracy [--iterations 2000] [--seed 1] [--modes none,endgames,leaves]
"""

from __future__ import annotations

import argparse
import json
import statistics
from fractions import Fraction
from pathlib import Path
from typing import Callable

from advisor.analysis.best_move import advise
from advisor.players.presets import advisor_request
from advisor.players.tablebase import ExactEndgames
from positions import Position, parse_action
from positions.kernel.actions import action_from_code
from positions.saved import parse_position

class LeavesOnly(ExactEndgames):
    """Exact values at the search's leaves, none for the root's options."""

    def exact_options(self, state: Position) -> None:
        """No exact root values: the search's own estimates are measured."""
        return None


ORACLES: dict[str, Callable[[], ExactEndgames | None]] = {
    "none": lambda: None, "endgames": ExactEndgames, "leaves": LeavesOnly}
"""Each mode's exact-value oracle (made afresh per search)."""

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "two_walker_positions.json"


def decisions(entry: dict) -> list[tuple[Position, dict]]:
    """(position, the seat's exact data) for both seats of the entry's step."""
    start = parse_position(entry["position"]).position
    seats = entry["exact"]["seats"]
    second = start.copy()
    second.apply(second.legal_actions()[0])  # hidden from seat 1: any choice gives its view
    return [(start, seats[0]), (second, seats[1])]


def measure(entry: dict, mode: str, iterations: int, seed: int) -> list[dict]:
    """One record per seat: the recommendation, its exact optimality and each option's error."""
    records = []
    for pos, seat in decisions(entry):
        exact_wins = {int(parse_action(o["action"])): Fraction(o["win_exact"]) for o in seat["options"]}
        request = advisor_request(iterations=iterations, seed=seed, oracle=ORACLES[mode]())
        advice = advise(pos, request, with_facts=False)
        best = advice.recommendation.action
        errors = {str(s.action): s.win - float(exact_wins[s.action]) for s in advice.result.actions}
        records.append({"seed": entry["seed"], "seat": seat["player"], "mode": mode,
                        "phase": entry["phase"], "recommended": str(action_from_code(best)),
                        "optimal": exact_wins[best] == max(exact_wins.values()),
                        "errors": errors, "mix": seat["mix"]})
    return records


def summary(records: list[dict]) -> str:
    """Optimal share and |error| statistics of a mode's records."""
    errors = [abs(e) for r in records for e in r["errors"].values()]
    optimal = sum(r["optimal"] for r in records)
    return (f"{len(records)} decisions: best option exactly optimal {optimal}/{len(records)} "
            f"({100 * optimal / len(records):.1f}%); |error| over {len(errors)} options: mean "
            f"{statistics.fmean(errors):.4f}, median {statistics.median(errors):.4f}, max {max(errors):.4f}")


def main() -> None:
    """Measure every mode on every stored position; print the summaries."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--modes", default="none,endgames")
    parser.add_argument("--limit", type=int, default=0, help="only the first N positions")
    parser.add_argument("--out", type=Path, default=Path("two_walker_accuracy.jsonl"))
    args = parser.parse_args()
    entries = json.loads(DATA.read_text())["positions"]
    entries = entries[:args.limit] if args.limit else entries
    with args.out.open("w") as out:
        for mode in args.modes.split(","):
            records = []
            for entry in entries:
                for record in measure(entry, mode, args.iterations, args.seed):
                    records.append(record)
                    out.write(json.dumps(record) + "\n")
                    out.flush()
            print(f"{mode} ({args.iterations} iterations, seed {args.seed}): {summary(records)}", flush=True)
            for seat in (0, 1):
                print(f"  seat {seat}: {summary([r for r in records if r['seat'] == seat])}; signed "
                      f"mean {statistics.fmean(e for r in records if r['seat'] == seat for e in r['errors'].values()):+.4f}",
                      flush=True)


if __name__ == "__main__":
    main()
