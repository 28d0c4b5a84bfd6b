"""Our ISMCTS against OpenSpiel's Python ISMCTSBot on Refuge (needs the [openspiel] and [test] extras).

``speed``: iterations per second of both searches, in this process, on the same decisions
(benchmarks/bench_openspiel.py) with uniform random rollouts to the end; OpenSpiel's bot both with
its stock RandomRolloutEvaluator and with our engine's playout as its evaluator.

``match``: paired 2-player games at equal time (or, with ``--iterations``, equal iterations) per
decision. Each deal (seed) is played twice with
the seats swapped; the arena's deal streams (advisor.players.games) give each seat the same draws in both
games, so the luck of the deal cancels. Both sides roll out uniformly at random
(``ismcts:seconds=T,rollout=random`` against ``openspiel-ismcts:seconds=T``).

Usage:
    .venv/bin/python -m lab.scripts.openspiel_match speed [--iterations 300] [--repeat 3]
    .venv/bin/python -m lab.scripts.openspiel_match match [--pairs 50] [--seconds 0.05 | --iterations N]
        [--seed 1] [--route meadows]
"""

from __future__ import annotations

import argparse
import time


from advisor.players.agents import make_agent
from advisor.players.games import play_game
from benchmarks.bench_openspiel import run_openspiel, run_ours, speed_positions
from search.request import wilson_interval


def speed(iterations: int, repeat: int) -> None:
    """Print iterations per second of both searches on each benchmark decision.

    The three searches take turns, `repeat` rounds, and each keeps its fastest round, so a burst of
    load on the machine hits them alike.
    """
    runs = {
        "ours": lambda pos, seed: run_ours(pos, iterations, seed),
        "openspiel": lambda pos, seed: run_openspiel(pos, iterations, seed),
        "openspiel+engine": lambda pos, seed: run_openspiel(pos, iterations, seed, "engine"),
    }
    print(f"{iterations} iterations per search, best of {repeat}; uniform random rollouts to the end")
    print(f"{'position':24} {'ours it/s':>10} {'OpenSpiel it/s':>15} {'ratio':>6} "
          f"{'OS+engine it/s':>15} {'ratio':>6}")
    for label, pos in speed_positions().items():
        best = dict.fromkeys(runs, float("inf"))
        for seed in range(repeat):
            for name, run in runs.items():
                start = time.perf_counter()
                run(pos, seed)
                best[name] = min(best[name], time.perf_counter() - start)
        ours, theirs, engine = (iterations / best[name] for name in runs)
        print(f"{label:24} {ours:10.0f} {theirs:15.0f} {ours / theirs:6.1f} {engine:15.0f} "
              f"{ours / engine:6.1f}", flush=True)


def match(pairs: int, budget: str, seed: int, route: str) -> None:
    """Play `pairs` paired games at the same `budget` per decision and print our win share."""
    ours = make_agent(f"ismcts:{budget},rollout=random")
    theirs = make_agent(f"openspiel-ismcts:{budget}")
    total = 0.0
    games = 0
    for pair in range(pairs):
        for seat in (0, 1):
            agents = [ours, theirs] if seat == 0 else [theirs, ours]
            final = play_game(agents, route, seed + pair).position
            share = final.returns()[seat]
            total += share
            games += 1
        low, high = wilson_interval(total / games, games)
        print(f"pair {pair + 1}/{pairs}: ours {total:.1f}/{games} = {total / games:.1%} "
              f"(95% CI {low:.1%}-{high:.1%})", flush=True)


def main() -> None:
    """Parse the command line and run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    speed_args = commands.add_parser("speed", help="iterations per second of both searches")
    speed_args.add_argument("--iterations", type=int, default=300)
    speed_args.add_argument("--repeat", type=int, default=3)
    match_args = commands.add_parser("match", help="paired games at equal time per decision")
    match_args.add_argument("--pairs", type=int, default=50)
    budgets = match_args.add_mutually_exclusive_group()
    budgets.add_argument("--seconds", type=float, default=0.05, help="time per decision (default)")
    budgets.add_argument("--iterations", type=int, help="iterations per decision instead of time")
    match_args.add_argument("--seed", type=int, default=1)
    match_args.add_argument("--route", default="meadows")
    args = parser.parse_args()
    if args.command == "speed":
        speed(args.iterations, args.repeat)
    else:
        budget = (f"iterations={args.iterations}" if args.iterations is not None
                  else f"seconds={args.seconds}")
        match(args.pairs, budget, args.seed, args.route)


if __name__ == "__main__":
    main()
