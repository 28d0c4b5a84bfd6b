"""Seat consistency and outcome calibration of the advisor's win chances (issue 22, item 4).

Self-plays seeded games (every seat the same agent), annotates every decision as ``refuge
annotate`` does, and prints the reliability table per step kind and seat (standard errors over
games), the ECE, the Brier score and its skill, and the seat consistency: within one simultaneous
step, a later seat's own chance against the earlier seats' view of it (issue 22: +0.14 before).
Deterministic by seed; each game's predictions are appended to ``--out`` as they finish, and a
rerun with the same ``--out`` keeps the games already there.

Usage: .venv/bin/python -m lab.scripts.seat_consistency [--players 2] [--games 40] [--seed 1]
           [--agent ismcts:iterations=100] [--iterations 200] [--workers 2] [--out FILE.jsonl]
           [--before]   # the annotation before issue 22: each decision alone, no step root
           [--simultaneous uct|rm|exp3] [--markdown FILE]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from lab.calibration import Prediction, game_predictions, report_markdown
from advisor.players.presets import advisor_request
from advisor.players.tablebase import ExactEndgames


def _game(job: tuple[Any, ...]) -> tuple[int, list[Prediction]]:
    index, agent, players, route, seed, iterations, settings, by_step = job
    request = advisor_request(iterations=iterations, oracle=ExactEndgames(), **settings)
    return index, game_predictions(index, agent, players, route, seed, iterations, request, by_step)


def main() -> int:
    """Play, annotate, append to --out, print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--route", default="meadows")
    parser.add_argument("--agent", default="ismcts:iterations=100")
    parser.add_argument("--iterations", type=int, default=200, help="annotation iterations a search")
    parser.add_argument("--workers", type=int, default=2, help="games annotated at once")
    parser.add_argument("--before", action="store_true",
                        help="annotate as before issue 22: every decision alone, step_root off")
    parser.add_argument("--simultaneous", choices=("uct", "rm", "exp3"), default=None,
                        help="the annotation's selection at simultaneous nodes (default: the search's)")
    parser.add_argument("--out", type=Path, default=None, help="predictions, one JSON line a game")
    parser.add_argument("--markdown", type=Path, default=None)
    args = parser.parse_args()
    settings: dict[str, Any] = {"root_selection": "uniform"}
    if args.before:
        settings["step_root"] = False
    if args.simultaneous:
        settings["simultaneous"] = args.simultaneous
    done: dict[int, list[Prediction]] = {}
    if args.out is not None and args.out.exists():
        for line in args.out.read_text().splitlines():
            entry = json.loads(line)
            done[entry["game"]] = [Prediction(**{**p, "chances": tuple(p["chances"])}) for p in entry["predictions"]]
    jobs = [(i, args.agent, args.players, args.route, args.seed, args.iterations, settings, not args.before)
            for i in range(args.games) if i not in done]
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=max(1, args.workers)) as pool:
        for index, predictions in pool.map(_game, jobs):
            done[index] = predictions
            if args.out is not None:
                with args.out.open("a") as handle:
                    handle.write(json.dumps({"game": index, "predictions": [
                        dataclasses.asdict(p) for p in predictions]}) + "\n")
            print(f"game {index}: {len(predictions)} predictions, {time.perf_counter() - start:.0f} s",
                  file=sys.stderr, flush=True)
    predictions = [p for i in sorted(done) if i < args.games for p in done[i]]
    table = report_markdown(predictions)
    print(f"{args.games} games, {args.players} players, {args.route}, self-play {args.agent}, annotate "
          f"{args.iterations} iterations{' (before issue 22)' if args.before else ''}, seed {args.seed}\n")
    print(table)
    if args.markdown is not None:
        args.markdown.write_text(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
