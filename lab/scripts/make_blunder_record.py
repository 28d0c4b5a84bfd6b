"""Make tests/data/blunder-game.json: a short record whose last decision is a deliberate blunder.

Seat 0 is ISMCTS, seat 1 the heuristic bot. The first time seat 0 must decide with the Storm one
Storm away and at least 5 animal points on its path, the script makes it draw instead of
returning, plays two more events, and stops. Run: .venv/bin/python -m lab.scripts.make_blunder_record
"""

from __future__ import annotations

import json
import random
import sys

from advisor.players.agents import Agent, make_agent
from advisor.players.games import GameLoop
from positions.kernel import phases
from positions.kernel.actions import DRAW, Action
from positions.kernel.position import Position
from positions.record import GameRecorder
from positions.kernel.rules import paw_total


class Blunderer:
    """Seat 0's agent, which draws once where it should return (the first time the Storm is one Storm
    away and its path holds at least 5 animal points)."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.name = agent.name
        self.blundered = False

    def choose(self, position: Position, rng: random.Random) -> Action:
        """The blunder once, else the agent's choice."""
        if (not self.blundered and position.phase == phases.DECIDE and position.storms_to_hit() == 1
                and paw_total(position.paths[0]) >= 5 and DRAW in position.legal_actions()):
            self.blundered = True
            return DRAW
        return self.agent.choose(position, rng)


def make(seed: int) -> tuple[GameRecorder, int] | None:
    """A record ending just after the blunder, and the blunder's event index (None if none came)."""
    blunderer = Blunderer(make_agent("ismcts:iterations=1500"))
    game = GameLoop([blunderer, make_agent("heuristic")], "meadows", seed,
                    ["ismcts:iterations=1500", "heuristic"])
    blunder = None
    while not game.position.is_terminal():
        game.step()
        if blunderer.blundered and blunder is None:
            blunder = len(game.recorder.events) - 1
        if blunder is not None and len(game.recorder.events) >= blunder + 3:
            return game.recorder, blunder
    return None


def main() -> None:
    for seed in range(1, 50):
        made = make(seed)
        if made is not None:
            recorder, blunder = made
            data = recorder.to_data()
            data["story"] = (f"event {blunder}: seat 0 draws again one Storm from the threshold with "
                             f"a rich path (a deliberate blunder); seed {seed}")
            with open("tests/data/blunder-game.json", "w", encoding="utf-8") as out:
                json.dump(data, out, indent=1)
                out.write("\n")
            print(f"seed {seed}: blunder at event {blunder}, {len(recorder.events)} events")
            return
    sys.exit("no seed produced the situation")


if __name__ == "__main__":
    main()
