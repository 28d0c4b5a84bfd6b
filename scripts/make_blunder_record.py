"""Make tests/data/blunder-game.json: a short record whose last decision is a deliberate blunder.

Seat 0 is ISMCTS, seat 1 the heuristic bot. The first time seat 0 must decide with the Storm one
Storm away and at least 5 animal points on its path, the script makes it draw instead of
returning, plays two more events, and stops. Run: .venv/bin/python scripts/make_blunder_record.py
"""

from __future__ import annotations

import json
import random
import sys

from advisor.players.agents import make_agent
from advisor.players.games import DealStreams, derive_seed
from positions import phases
from positions.actions import DRAW
from positions.record import GameRecorder
from positions.rules import paw_total


def make(seed: int) -> tuple[GameRecorder, int] | None:
    """A record ending just after the blunder, and the blunder's event index (None if none came)."""
    agents = [make_agent("ismcts:iterations=1500"), make_agent("heuristic")]
    recorder = GameRecorder.new(2, "meadows", ["ismcts:iterations=1500", "heuristic"], seed)
    streams = DealStreams(seed, 2)
    rngs = [random.Random(derive_seed(seed, "agent", s)) for s in range(2)]
    blunder = None
    pos = recorder.position
    while not pos.is_terminal():
        actor = pos.current_player()
        if actor == phases.CHANCE_PLAYER:
            action = streams.sample(pos)
        elif (actor == 0 and blunder is None and pos.phase == phases.DECIDE
              and pos.storms_to_hit() == 1 and paw_total(pos.paths[0]) >= 5):
            action, blunder = DRAW, len(recorder.events)
        else:
            action = agents[actor].choose(pos, rngs[actor])
        recorder.apply(action)
        pos = recorder.position
        if blunder is not None and len(recorder.events) >= blunder + 3:
            return recorder, blunder
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
