"""The walks of an arena database's games: each seat's victory points walk by walk and whether the
Storm caught it, summed up by one agent's result (issue 27: where a search's losses come from).

A seat is *caught* in a walk when the Storm hits while it is still walking (rulebook, "Storm
Warning": "If you haven't already returned to your refuge ... Do not score points for the
animals on your path"; C16). A walk's victory points are the seat's score at the walk's end minus
at its start, so a caught walk counts its tile effects and its penalty.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable, Sequence

from tabulate import tabulate

from lab.decisions import stored_replays
from advisor.arena.store import StoreError
from positions.kernel.actions import RETURN, RETURN_CODE, Action
from positions.kernel.position import Position
from positions.record import Replay

RESULTS = ("won", "shared", "lost")
"""An agent's result in a game, in the order the table shows them."""


@dataclass(frozen=True)
class SeatWalks:
    """One seat of one game, walk by walk."""

    points: tuple[int, ...]
    """Victory points gained in each walk (the score at its end minus at its start)."""
    caught: tuple[bool, ...]
    """Whether the Storm hit while the seat was still walking, in each walk."""
    final: int


def game_walks(played: Replay) -> list[SeatWalks]:
    """Each seat's walks in a replayed game (only the walks the record reaches)."""
    players = played.final.players
    starts: list[list[int]] = []
    caught: list[list[bool]] = []
    for index, step in enumerate(played.steps):
        position = step.position
        if position.walk == len(starts):
            starts.append(list(position.vp))
            caught.append([False] * players)
        if played.position_at(index + 1).walk != position.walk:
            caught[position.walk] = [_caught(position, step.action, seat) for seat in range(players)]
    ends = starts[1:] + [list(played.final.vp)]
    return [SeatWalks(tuple(end[seat] - start[seat] for start, end in zip(starts, ends)),
                      tuple(walk[seat] for walk in caught), played.final.vp[seat])
            for seat in range(players)]


def _caught(before: Position, action: Action, seat: int) -> bool:
    """Whether `seat` is caught by the end of the walk that `action` brings about: it is walking and
    not going home (returning by this action, or by its choice of this turn: a walk that everyone
    leaves ends without a Storm)."""
    leaving = before.pending[seat] == RETURN_CODE or (action == RETURN and before.current_player() == seat)
    return bool(before.walking[seat]) and not leaving


def result_of(returns: Sequence[float], seat: int) -> str:
    """``won`` (the whole win), ``lost`` (no share of it) or ``shared``."""
    share = returns[seat]
    return "won" if share == 1.0 else "lost" if share == 0.0 else "shared"


@dataclass(frozen=True)
class WalkLine:
    """One agent's walks (or its opponents') over the games in which `agent` had one result."""

    agent: str
    result: str
    """The result of the agent the table is about, not of this line's agent."""
    who: str
    """``agent`` for its own seats, else the opponent's name."""
    seats: int
    points: tuple[float, ...]
    """Mean victory points gained in each walk."""
    caught: tuple[float, ...]
    """Share of the seats the Storm caught in each walk."""
    final: float


@dataclass(frozen=True)
class AgentGame:
    """A stored game of one agent: its result, every seat's walks and who sat where."""

    run: int
    table: int
    deal: int
    seat: int
    """The agent's seat."""
    result: str
    names: tuple[str, ...]
    walks: tuple[SeatWalks, ...]


def agent_games(db: str, agent: str) -> list[AgentGame]:
    """The games of `db` (without a fault) in which `agent` sat, replayed.

    Raises:
        StoreError: not an arena database, a record that does not replay, or `agent` never played.
    """
    found = []
    for _, game, played in stored_replays(db):
        names = tuple(seat[0] for seat in game.seats)
        if agent in names:
            seat = names.index(agent)
            found.append(AgentGame(game.run, game.table, game.deal, seat, result_of(game.returns, seat), names,
                                   tuple(game_walks(played))))
    if not found:
        raise StoreError(f"{db}: no stored game of {agent!r} without a fault")
    return found


def walk_lines(db: str, agent: str) -> list[WalkLine]:
    """`agent`'s walks and its opponents' in the games of `db` it played (without a fault), by its
    result: won, shared, lost.

    Raises:
        StoreError: not an arena database, a record that does not replay, or `agent` never played.
    """
    seats: dict[tuple[str, str], list[SeatWalks]] = defaultdict(list)
    for game in agent_games(db, agent):
        for seat, walks in enumerate(game.walks):
            seats[(game.result, agent if seat == game.seat else game.names[seat])].append(walks)
    order = sorted(seats, key=lambda key: (RESULTS.index(key[0]), key[1] != agent, key[1]))
    return [_line(agent, result, who, seats[(result, who)]) for result, who in order]


def _mean(values: Iterable[float]) -> float:
    found = list(values)
    return sum(found) / len(found) if found else 0.0


def _line(agent: str, result: str, who: str, seats: Sequence[SeatWalks]) -> WalkLine:
    walks = max(len(s.points) for s in seats)
    points = tuple(_mean(s.points[w] for s in seats if w < len(s.points)) for w in range(walks))
    caught = tuple(_mean(s.caught[w] for s in seats if w < len(s.caught)) for w in range(walks))
    return WalkLine(agent, result, who, len(seats), points, caught, _mean(s.final for s in seats))


def format_walk_lines(lines: Sequence[WalkLine]) -> str:
    """A row per line: the agent's result, whose seats, how many, the mean VP and the share caught
    in each walk, the mean final score."""
    walks = max((len(line.points) for line in lines), default=0)
    headers = (["result", "seats of", "seats"] + [f"VP {w + 1}" for w in range(walks)]
               + [f"caught {w + 1}" for w in range(walks)] + ["final"])
    body = [[f"{line.agent} {line.result}", line.who, line.seats]
            + [f"{p:.1f}" for p in line.points] + [""] * (walks - len(line.points))
            + [f"{c:.2f}" for c in line.caught] + [""] * (walks - len(line.caught))
            + [f"{line.final:.1f}"] for line in lines]
    return tabulate(body, headers=headers, tablefmt="simple", disable_numparse=True)


def same_seat_lines(db: str, agent: str) -> list[WalkLine]:
    """`agent`'s walks beside those of whoever sat in its seat in the other game of the same deal
    (the same seat's draws and weather, so a deal's luck is the same for both), by `agent`'s result
    in its game; an agent in several runs counts each run's deals. Only 2-player deals whose two games seat the agent once in each seat count; the
    other line's ``who`` is ``NAME, same seat``.

    Raises:
        StoreError: as :func:`walk_lines`.
    """
    deals: dict[tuple[int, int, int], list[AgentGame]] = defaultdict(list)
    for game in agent_games(db, agent):
        deals[(game.run, game.table, game.deal)].append(game)
    found: dict[tuple[str, str], list[SeatWalks]] = defaultdict(list)
    for games in deals.values():
        if len(games) != 2 or games[0].seat == games[1].seat or len(games[0].names) != 2:
            continue
        for game, other in (games, games[::-1]):
            found[(game.result, agent)].append(game.walks[game.seat])
            found[(game.result, f"{other.names[game.seat]}, same seat")].append(other.walks[game.seat])
    order = sorted(found, key=lambda key: (RESULTS.index(key[0]), key[1] != agent, key[1]))
    return [_line(agent, result, who, found[(result, who)]) for result, who in order]
