"""How consistent are the two seats' win estimates at a simultaneous return-or-draw step (C6)?

Plays seeded 2-player heuristic games to DECIDE steps of walks 1–2 where both players walk and
both may return or draw. Player 0 searches and commits its choice (hidden); player 1 then searches
with that choice unseen, once per belief. The two seats' win estimates of the actions they chose
describe the same game, so they should sum to about 1; the uniform sampler (player 1 assumes
player 0 returned or drew at random) is known to overshoot (issue 16). Deterministic by seed.

Usage: .venv/bin/python -m lab.scripts.belief_calibration [--positions 12] [--iterations 1000]
       [--belief uniform --belief heuristic]
"""

from __future__ import annotations

import argparse
import random
import statistics


from advisor.players.agents import SearchAgent, make_agent
from advisor.players.bots import DEFAULT_ROLLOUT
from positions import Position
from positions.kernel import phases, rules
from search.ismcts import search


def decide_steps(count: int, seed: int) -> list[Position]:
    """`count` positions where player 0 is first to return or draw and player 1 may do both too."""
    found: list[Position] = []
    game = 0
    while len(found) < count:
        rng = random.Random(seed * 10_000 + game)
        pos = Position.new_game(2, "meadows")
        while not pos.is_terminal() and pos.walk < 2 and len(found) < count:
            if pos.is_chance():
                pos.apply(pos.sample_chance(rng))
                continue
            if (pos.phase == phases.DECIDE and pos.actor == 0 and pos.turn >= 2
                    and len(rules.step_legal(pos, 0)) == 2 and len(rules.step_legal(pos, 1)) == 2
                    and rng.random() < 0.5):
                found.append(pos.copy())
            pos.apply(DEFAULT_ROLLOUT.choose(pos, rng))
        game += 1
    return found


def main() -> None:
    """Print, per belief, the mean and spread of the two seats' summed win estimates."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=12)
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--belief", action="append", default=None)
    args = parser.parse_args()
    beliefs = args.belief or ["uniform", "heuristic"]
    agents = {b: make_agent(f"ismcts:iterations={args.iterations},belief={b}") for b in beliefs}
    first = make_agent(f"ismcts:iterations={args.iterations}")
    assert isinstance(first, SearchAgent)
    sums: dict[str, list[float]] = {b: [] for b in beliefs}
    for index, pos in enumerate(decide_steps(args.positions, args.seed)):
        mine = search(pos, first.request(index))
        after = pos.copy()
        after.apply(mine.chosen)
        assert after.current_player() == 1
        row = [f"{index:3d} walk {pos.walk + 1} turn {pos.turn + 1}: p0 {mine.stats(mine.chosen).win:.3f}"]
        for belief, agent in agents.items():
            assert isinstance(agent, SearchAgent)
            theirs = search(after, agent.request(1000 + index))
            total = mine.stats(mine.chosen).win + theirs.stats(theirs.chosen).win
            sums[belief].append(total)
            row.append(f"{belief} p1 {theirs.stats(theirs.chosen).win:.3f} sum {total:.3f}")
        print("  ".join(row), flush=True)
    for belief, values in sums.items():
        print(f"{belief:10s} mean sum {statistics.fmean(values):.3f}  min {min(values):.3f}  "
              f"max {max(values):.3f}  mean |sum-1| {statistics.fmean(abs(v - 1) for v in values):.3f}"
              f"  ({len(values)} positions, {args.iterations} iterations)")


if __name__ == "__main__":
    main()
