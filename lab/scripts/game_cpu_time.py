"""CPU seconds of whole games between two default agents (``ismcts:iterations=1000``), in process:
issue 53's "a game ≤ 0.5 CPU-s".

One warm-up game, then ``play_game(agents, "meadows", deal_seed(1, d))`` for d = 1..GAMES, each timed
with ``time.process_time()``; prints every game's CPU seconds, the median and the minimum. Run it
FROM a checkout (its code, and its ``refuge_native.abi3.so`` where one shadows the installed core);
compare two builds by running it alternately in each::

    nice .venv/bin/python lab/scripts/game_cpu_time.py [GAMES=10]
"""

from __future__ import annotations

import os
import statistics
import sys
import time

sys.path.insert(0, os.getcwd())

from advisor.players.agents import make_agent  # noqa: E402
from advisor.players.games import deal_seed, play_game  # noqa: E402
from advisor.players.specs import parse_agent_spec  # noqa: E402


def game_seconds(games: int) -> list[float]:
    """The CPU seconds of each of `games` games after one warm-up game."""
    agents = [make_agent(parse_agent_spec("ismcts:iterations=1000")) for _ in range(2)]
    play_game(agents, "meadows", deal_seed(1, 0))
    seconds = []
    for deal in range(1, games + 1):
        started = time.process_time()
        play_game(agents, "meadows", deal_seed(1, deal))
        seconds.append(time.process_time() - started)
    return seconds


def main() -> None:
    """Print the games' CPU seconds, their median and minimum."""
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    seconds = game_seconds(games)
    print(" ".join(f"{s:.3f}" for s in seconds))
    print(f"median {statistics.median(seconds):.3f} CPU-s, min {min(seconds):.3f}, games {games}")


if __name__ == "__main__":
    main()
