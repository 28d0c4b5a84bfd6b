"""The value-accuracy benchmark: the advisor's option values against exact values (issue 12).

For every position of the case file (default: benchmarks/data/value_positions.json, else the
solver positions of the tests, solved here), runs ``best-move``'s search at the given budget and
reports how often the recommendation is exactly optimal, the median and 95th percentile of each
option's |win error|, and how often the printed interval covers the exact value, overall, per
decision kind and per player count. Seeded: the same command gives the same table.

Usage: .venv/bin/python -m lab.scripts.value_accuracy [--iterations 2000] [--seed 0]
           [--positions FILE] [--json out.json] [--markdown out.md] [--rollout greedy|cautious]
           [--widening W] [--exploration-below C] [--midgame N --reference-iterations 40000]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from advisor.analysis.best_move import DEFAULT_ITERATIONS
from lab.value_accuracy import (
    CaseFileError, load_cases, measure, meets_goals, reference_case, results_to_data, summaries,
    summary_markdown,
)
from advisor.players.bots import BOTS, DEFAULT_ROLLOUT
from advisor.players.presets import advisor_request
from positions import ROUTES, Position
from positions.kernel.actions import action_from_code

DEFAULT_FILES = (ROOT / "benchmarks" / "data" / "value_positions.json",
                 ROOT / "tests" / "data" / "solver_positions.json")


def midgame_positions(count: int, seed: int) -> list[tuple[str, Position]]:
    """`count` seeded decisions from walks 1-4 of greedy self-play (2-4 players, every route)."""
    found = []
    for index in range(count):
        rng = random.Random(seed * 7919 + index)
        players, route, walk = 2 + index % 3, tuple(ROUTES)[index // 3 % 3], index % 4
        pos = Position.new_game(players, route)
        while not pos.is_terminal():
            if pos.is_chance():
                pos.apply(pos.sample_chance(rng))
                continue
            if pos.walk == walk and pos.turn >= 2 and len(pos.legal_actions()) > 1 and rng.random() < 0.3:
                found.append((f"m{index:02d}-{players}p-{route}-walk{walk + 1}", pos))
                break
            pos.apply(DEFAULT_ROLLOUT.choose(pos, rng))
    return found


def main() -> int:
    """Run the benchmark and print (and optionally write) its table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=Path, default=None)
    parser.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--rollout", choices=sorted(BOTS) + ["default"], default="default")
    parser.add_argument("--exploration", type=float, default=0.7)
    parser.add_argument("--widening", type=float, default=None, help="default: the advisor's")
    parser.add_argument("--exploration-below", type=float, default=None, help="default: the advisor's")
    parser.add_argument("--root-selection", choices=("uct", "uniform"), default="uct")
    parser.add_argument("--limit", type=int, default=None, help="only the first N positions")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--markdown", type=Path, default=None)
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("--midgame", type=int, default=0,
                        help="instead: N positions from walks 1-4, against a much longer search")
    parser.add_argument("--reference-iterations", type=int, default=40_000)
    args = parser.parse_args()
    path = args.positions or next((p for p in DEFAULT_FILES if p.exists()), DEFAULT_FILES[-1])
    try:
        cases = load_cases(path)
    except CaseFileError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    cases = cases[:args.limit] if args.limit else cases
    if args.midgame:
        reference = advisor_request(iterations=args.reference_iterations, seed=args.seed + 10_000)
        cases = [reference_case(name, pos, reference) for name, pos in midgame_positions(args.midgame, args.seed)]
        path = Path(f"<{args.midgame} mid-game positions, reference: {args.reference_iterations} iterations>")
    settings: dict[str, object] = {"iterations": args.iterations, "seed": args.seed, "workers": args.workers,
                                   "root_selection": args.root_selection, "exploration": args.exploration}
    if args.rollout != "default":
        settings["rollout"] = BOTS[args.rollout]()
    if args.widening is not None:
        settings["widening"] = args.widening
    if args.exploration_below is not None:
        settings["exploration_below"] = args.exploration_below
    request = advisor_request(**settings)  # as best-move makes it, unless told otherwise

    def progress(result) -> None:  # type: ignore[no-untyped-def]
        if args.quiet:
            return
        mark = "ok " if result.optimal else "BAD"
        values = "  ".join(f"{action_from_code(o.action)} {o.win:.3f}/{o.exact_win:.3f}"
                           + ("" if o.covered else "!") for o in result.options)
        print(f"{mark} {result.case.name:>12} {result.case.kind:>8}  {values}", flush=True)

    start = time.perf_counter()
    results = measure(cases, request, progress)
    rows = summaries(results)
    table = summary_markdown(rows)
    print(f"\n{len(cases)} positions from {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}, "
          f"{args.iterations} iterations, seed {args.seed}, {time.perf_counter() - start:.0f} s\n")
    print(table)
    print("goals:", ", ".join(f"{k} {'met' if v else 'MISSED'}" for k, v in meets_goals(rows[0]).items()))
    if args.json:
        args.json.write_text(json.dumps(results_to_data(results, request, str(path)), indent=1) + "\n")
    if args.markdown:
        args.markdown.write_text(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
