"""A small paired match between two agent specs, in one process (docs/evaluator.md's smoke test).

Each deal (seed 1000 + i, routes in turn) is played twice with the seats swapped; prints each
spec's win total (ties count 1/k, C18) and its thinking time. For a real measure use
``refuge arena`` (SPRT, more games, its own statistics).

Usage: nice -n 19 .venv/bin/python scripts/evaluator_match.py --deals 8 \
           "ismcts:iterations=400,cutoff=8" "ismcts:iterations=400,cutoff=8,evaluator=learned"
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from advisor.players.agents import Agent, make_agent  # noqa: E402
from advisor.players.games import play_game  # noqa: E402
from positions import Position  # noqa: E402
from positions.actions import Action  # noqa: E402

ROUTES = ("meadows", "forest", "mountains")


class Timed:
    """An agent that adds up its thinking time."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.name = agent.name
        self.seconds = 0.0

    def choose(self, position: Position, rng: random.Random) -> Action:
        start = time.perf_counter()
        action = self.agent.choose(position, rng)
        self.seconds += time.perf_counter() - start
        return action


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first")
    parser.add_argument("second")
    parser.add_argument("--deals", type=int, default=8)
    args = parser.parse_args()
    agents = [Timed(make_agent(args.first)), Timed(make_agent(args.second))]
    wins = [0.0, 0.0]
    for deal in range(args.deals):
        for order in ((0, 1), (1, 0)):
            record = play_game([agents[i] for i in order], ROUTES[deal % len(ROUTES)], seed=1000 + deal)
            for index, share in zip(order, record.position.returns()):
                wins[index] += share
    for spec, agent, won in zip((args.first, args.second), agents, wins):
        print(f"{spec:55} {won:5.1f} / {2 * args.deals} wins, {agent.seconds:6.1f} s thinking")


if __name__ == "__main__":
    main()
