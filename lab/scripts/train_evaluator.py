"""Train the learned evaluator (issue 16, item 3) on seeded heuristic self-play; write its model file.

Plays `--games` games (2-4 players, every route, a mix of bots: lab.training), keeps
`--per-game` decisions of each labelled with the game's result, fits the win and score models on
the first 80% of the games and reports them against the HeuristicEvaluator on the rest. The same
arguments give the same file, byte for byte. The shipped model (docs/evaluator.md):

    nice -n 19 .venv/bin/python -m lab.scripts.train_evaluator --games 5000 --seed 1 \
        -o advisor/players/data/evaluator.json
"""

from __future__ import annotations

import os

for _threads in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_threads, "1")  # one core: small matrices, and the same sums every run

import argparse
import json
import sys
import time


from lab.training import CONTINUATIONS, DEFAULT_HIDDEN_UNITS, train
from positions.files import write_atomically


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5000, help="self-play games in all (held-out included)")
    parser.add_argument("--seed", type=int, default=1, help="every random choice flows from it")
    parser.add_argument("--per-game", type=int, default=8, help="decisions kept per game")
    parser.add_argument("--held-out", type=float, default=0.2, help="share of the games kept for measuring")
    parser.add_argument("--l2", type=float, default=1e-3, help="L2 penalty on standardized weights")
    parser.add_argument("--continuation", default="heuristic", choices=sorted(CONTINUATIONS),
                        help="what the heuristic seats play (thrifty: issue 27's rollout policy)")
    features = parser.add_mutually_exclusive_group()
    features.add_argument("--mix", action="store_true",
                          help="add a learned worth per tile kind (the mix features; a version-2 file)")
    features.add_argument("--position", action="store_true",
                          help="add the tiles of each kind in bag and path and the weather (a version-3 file)")
    features.add_argument("--network", type=int, metavar="UNITS", default=0,
                          help="the --position features through UNITS tanh units besides (a version-4 file)")
    parser.add_argument("--rollouts", type=int, default=0,
                        help="label each decision by the mean of this many rollouts of the continuation "
                             "from it (the search's own rollouts) instead of its game's result")
    parser.add_argument("-o", "--out", required=True, help="the model file to write")
    args = parser.parse_args(argv)
    command = (f"lab/scripts/train_evaluator.py --games {args.games} --seed {args.seed} "
               f"--per-game {args.per_game} --held-out {args.held_out} --l2 {args.l2}"
               + (f" --continuation {args.continuation}" if args.continuation != "heuristic" else "")
               + (" --mix" if args.mix else "") + (" --position" if args.position else "")
               + (f" --network {args.network}" if args.network else "")
               + (f" --rollouts {args.rollouts}" if args.rollouts else ""))
    layout = ("mix" if args.mix else "position" if args.position else "network" if args.network
              else "summary")
    if args.network < 0:
        parser.error(f"--network must be 1 or more units, got {args.network}")
    start = time.perf_counter()
    try:
        model = train(args.games, args.seed, args.per_game, args.held_out, args.l2, command,
                      args.continuation, layout, args.rollouts, args.network or DEFAULT_HIDDEN_UNITS)
    except ValueError as error:
        print(f"train_evaluator.py: {error}", file=sys.stderr)
        return 2
    write_atomically(args.out, json.dumps(model.to_json(), indent=1) + "\n")
    held_out = model.training["held_out"]
    print(f"{args.out}: {model.training['samples']} samples, {time.perf_counter() - start:.1f} s",
          file=sys.stderr)
    for name, values in held_out.items():
        print(f"  held out, {name:9}: " + ", ".join(f"{k} {v}" for k, v in values.items()), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
