"""Does an evaluator rank a buy's options as a deep search does? (issue 27; lab.evaluator_ranking)

At the buy decisions with a choice before the last walk of a stored arena run (a seeded sample of
``--decisions``), each evaluator's best option — the one whose resulting position gives the decider
the largest win share — against the choice of ``--reference`` (a search spec, on the decider's view).
The shipped model and the HeuristicEvaluator are always measured; ``--model PATH`` adds model files;
the last rows are the stored agents' own choices, one row per agent.

    .venv/bin/python -m lab.scripts.evaluator_ranking --db sprt_mix.sqlite --model mix20k.json \\
        --reference ismcts:iterations=4000,evaluator=rollout --decisions 300 --seed 1
"""

from __future__ import annotations

import argparse
import sys

from tabulate import tabulate

from lab.decisions import Agreement, stored_decisions
from lab.evaluator_ranking import ranked_buys, ranking_agreement, reference_choices
from advisor.players.agents import make_agent
from advisor.players.bots import HeuristicEvaluator
from advisor.players.learned import LearnedEvaluator, load_model
from advisor.players.specs import AgentSpecError
from positions.errors import RefugeError
from positions.kernel.position import Position
from search.protocol import Evaluator


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, help="an arena database (refuge arena --db)")
    parser.add_argument("--model", action="append", default=[], help="a model file to measure too (repeatable)")
    parser.add_argument("--reference", default="ismcts:iterations=4000,evaluator=rollout",
                        help="the agent whose choices are the answer (default: full rollouts, no evaluator)")
    parser.add_argument("--decisions", type=int, default=300, help="buy decisions sampled (all if fewer)")
    parser.add_argument("--seed", type=int, default=1, help="the sample's, the views' and the searches' seed")
    args = parser.parse_args(argv)
    if args.decisions < 1:
        parser.error(f"--decisions must be at least 1, got {args.decisions}")
    try:
        evaluators: list[tuple[str, Evaluator[Position]]] = [
            ("shipped model", LearnedEvaluator()), ("HeuristicEvaluator", HeuristicEvaluator())]
        evaluators += [(path, LearnedEvaluator(load_model(path))) for path in args.model]
        reference = make_agent(args.reference)
        buys = ranked_buys(list(stored_decisions(args.db)), args.decisions, args.seed)
        choices = reference_choices(buys, reference, args.seed)
        measured = [(name, ranking_agreement(buys, choices, e)) for name, e in evaluators]
        for agent in sorted({d.agent for d in buys}):
            pairs = [(d, c) for d, c in zip(buys, choices) if d.agent == agent]
            measured.append((f"the stored choices of {agent}",
                             Agreement(len(pairs), sum(d.action == c for d, c in pairs))))
        rows = [(name, r.decisions, r.same, f"{r.share:.3f}") for name, r in measured]
    except (RefugeError, AgentSpecError, ValueError) as error:
        print(f"evaluator_ranking.py: {error}", file=sys.stderr)
        return 2
    print(f"{len(buys)} buy decisions of {args.db} (before the last walk, with a choice); "
          f"the answer: {args.reference}")
    print(tabulate(rows, headers=("best option by", "decisions", "same as the reference", "share"),
                   disable_numparse=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
