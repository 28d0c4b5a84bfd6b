"""Self-played games as event scripts, for the `refuge track` tests (shared by analysis/ and cli/)."""

from __future__ import annotations

from advisor.players.agents import make_agent
from advisor.players.games import play_game
from positions.events import movetext
from positions.record import GameRecord, GameRecorder, replay


def self_played(players: int = 3, seed: int = 5, route: str = "forest") -> GameRecorder:
    """A whole game between heuristic bots (fast and long enough to reach every step)."""
    agents = [make_agent("heuristic") for _ in range(players)]
    return play_game(agents, route, seed, names=[f"P{s}" for s in range(players)])


def script_of(record: GameRecord) -> list[str]:
    """The record's movetext (``refuge show --events``)."""
    return movetext([(step.position, step.action) for step in replay(record).steps])


def reorder_simultaneous(lines: list[str]) -> list[str]:
    """The script with every run of seat-prefixed decisions of one step typed in reverse seat order,
    as players at a table call out their choices in any order."""
    out: list[str] = []
    run: list[str] = []
    for line in lines + ["#"]:
        verb = line.split(":", 1)[-1].split()[0] if ":" in line else ""
        if ":" in line and verb in ("return", "draw", "buy", "pass") and line[0].isdigit():
            if run and _seat(run[-1]) >= _seat(line):
                out.extend(reversed(run))
                run = []
            run.append(line)
            continue
        out.extend(reversed(run))
        run = []
        out.append(line)
    return out[:-1]


def _seat(line: str) -> int:
    return int(line.split(":", 1)[0])
