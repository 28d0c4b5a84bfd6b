"""The learned evaluator on the games of an arena database (issue 27): the shipped model (or the
one in ``--model PATH``) and the HeuristicEvaluator forecasting every stored decision's result, by
walk, and the same model refitted to the first games measured on the last
(lab.evaluator_games; docs/strength.md).

    .venv/bin/python -m lab.scripts.evaluator_on_arena --db scale_default.sqlite
    .venv/bin/python -m lab.scripts.evaluator_on_arena --db scale_default.sqlite --model expert-run/gen-1/evaluator.json
    .venv/bin/python -m lab.scripts.evaluator_on_arena --db sprt.sqlite --mix --refit-out strong_mix.json

``--mix`` refits a model with the mix features (a worth per tile kind); ``--refit-out PATH`` writes
the refitted model (fitted to the games before the held-out ones), for ``ismcts:model=PATH``.
"""

from __future__ import annotations

import argparse
import json
import sys

from tabulate import tabulate

from lab.evaluator_games import Forecast, evaluator_report, stored_samples
from advisor.players.learned import load_model, shipped_model
from positions.errors import RefugeError
from positions.files import write_atomically


def _row(name: str, f: Forecast) -> tuple[str, int, str, str, str]:
    return name, f.decisions, f"{f.log_loss:.3f}", f"{f.accuracy:.3f}", f"{f.ece:.3f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, help="an arena database (refuge arena / refuge scaling --db)")
    parser.add_argument("--held-out", type=float, default=0.25, help="share of the games the refit never sees")
    parser.add_argument("--model", help="a model file to measure instead of the shipped one")
    parser.add_argument("--mix", action="store_true", help="refit with the mix features (a worth per tile kind)")
    parser.add_argument("--refit-out", help="write the refitted model to this file")
    args = parser.parse_args(argv)
    command = " ".join(["lab/scripts/evaluator_on_arena.py"] + (argv if argv is not None else sys.argv[1:]))
    try:
        model = load_model(args.model) if args.model else shipped_model()
        report = evaluator_report(stored_samples(args.db, args.mix), model, args.held_out, args.mix,
                                  f"the stored games of {args.db}")
    except (RefugeError, ValueError) as error:
        for line in str(error).splitlines():  # a broken record names each of its problems on a line
            print(f"evaluator_on_arena.py: {line}", file=sys.stderr)
        return 2
    name, whole = ("model file", "model file") if args.model else ("shipped", "shipped model")
    rows = [_row(whole, report.shipped), _row("HeuristicEvaluator", report.heuristic)]
    rows += [_row(f"{name}, walk {walk}", f) for walk, f in report.by_walk.items()]
    rows += [_row(f"{name}, last {report.held_out_games} games", report.shipped_held_out),
             _row(f"refitted to the other {report.games - report.held_out_games}, last {report.held_out_games}",
                  report.refit_held_out)]
    print(f"{report.games} games of {args.db}: every decision labelled with its game's result")
    print(tabulate(rows, headers=("forecast", "decisions", "log loss", "accuracy", "ECE")))
    if args.refit_out:
        refit = report.refit
        training = {**refit.training, "command": command}
        out = type(refit)(refit.win_weights, refit.score_weights, training, refit.layout)
        try:
            write_atomically(args.refit_out, json.dumps(out.to_json(), indent=1) + "\n")
        except OSError as error:
            print(f"evaluator_on_arena.py: {args.refit_out}: {error.strerror or error}", file=sys.stderr)
            return 2
        print(f"wrote the refitted model to {args.refit_out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
