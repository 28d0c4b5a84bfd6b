"""One arena game: the game loop of `players.games` with agents at their seats, faults turned into losses.

Everything here runs in worker processes (local or Dask), so jobs and entrants are small picklable
values and agents are built (and external engines started) once per worker thread, then reused.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from typing import Sequence

from advisor.players.agents import Agent, make_agent
from advisor.players.games import GameLoop
from advisor.players.engine import EngineAgent, EngineError
from positions.errors import IllegalActionError


@dataclass(frozen=True)
class Entrant:
    """An agent taking part, as a worker needs it: a spec, or the command of an external engine."""

    name: str
    spec: str
    revision: str = ""
    """The code it plays: ``git describe`` of this checkout, a revision's, or an engine's version."""
    argv: tuple[str, ...] = ()
    """External engines: the command that starts it (empty: an in-process agent)."""
    cwd: str | None = None
    timeout: float | None = None
    """Seconds allowed per decision; ``None``: no clock (iteration-limited in-process agents)."""

    def build(self) -> Agent:
        """A fresh agent for this entrant (external engines start at their first decision)."""
        if self.argv:
            return EngineAgent(self.name, self.argv, self.cwd, self.timeout)
        return make_agent(self.spec)


@dataclass(frozen=True)
class GameJob:
    """One game of the schedule: which deal, which seat rotation, who sits where."""

    index: int
    table: int
    deal: int
    rotation: int
    players: int
    route: str
    deal_seed: int
    seats: tuple[int, ...]
    """The entrant index at each seat."""


@dataclass(frozen=True)
class Fault:
    """Why an agent lost a game without finishing it."""

    seat: int
    kind: str
    """``crash``, ``timeout``, ``illegal`` or ``protocol``."""
    message: str


@dataclass(frozen=True)
class GameOutcome:
    """A finished game: final scores, each seat's share of the win, any fault, and the record."""

    index: int
    scores: tuple[int, ...]
    returns: tuple[float, ...]
    fault: Fault | None
    record: str
    """The game record (``refuge-game/1``) as compact JSON."""
    seconds: float
    decisions: int


_LOCAL = threading.local()


def agent_for(entrant: Entrant) -> Agent:
    """This worker thread's agent for `entrant`, built on first use and kept."""
    cache: dict[Entrant, Agent] | None = getattr(_LOCAL, "agents", None)
    if cache is None:
        cache = _LOCAL.agents = {}
    agent = cache.get(entrant)
    if agent is None:
        agent = cache[entrant] = entrant.build()
    return agent


def stop_engines() -> None:
    """Stop every external engine this thread started."""
    for agent in getattr(_LOCAL, "agents", {}).values():
        if isinstance(agent, EngineAgent):
            agent.stop()


def forfeit_returns(players: int, loser: int) -> tuple[float, ...]:
    """The loser gets nothing, the others share the win."""
    share = 1.0 / (players - 1)
    return tuple(0.0 if seat == loser else share for seat in range(players))


def play_game(job: GameJob, entrants: Sequence[Entrant]) -> GameOutcome:
    """Play one game of the schedule through the game loop; a crash, overrun or illegal answer
    loses it for that agent."""
    start = time.perf_counter()
    names = [entrants[e].name for e in job.seats]
    game = GameLoop([agent_for(entrants[e]) for e in job.seats], job.route, job.deal_seed, names)
    fault: Fault | None = None
    decisions = 0
    while fault is None and not game.position.is_terminal():
        seat = game.position.current_player()
        fault = _step(game, entrants[job.seats[seat]] if seat >= 0 else None)
        decisions += seat >= 0 and fault is None
    position = game.position
    returns = (forfeit_returns(job.players, fault.seat) if fault is not None
               else tuple(position.returns()))
    return GameOutcome(job.index, tuple(position.scores()), returns, fault,
                       json.dumps(game.recorder.to_data(), separators=(",", ":")),
                       time.perf_counter() - start, decisions)


def _step(game: GameLoop, entrant: Entrant | None) -> Fault | None:
    """Play the next event (asking the agent of `entrant` if it is a decision); the fault if it failed."""
    seat = game.position.current_player()
    try:
        decision = game.decide()
    except EngineError as error:
        return Fault(seat, error.kind, str(error))
    except Exception as error:  # noqa: BLE001 - any failure of an agent loses its game, not the run
        assert entrant is not None
        return Fault(seat, "crash", f"{entrant.name}: {type(error).__name__}: {error}")
    if entrant is not None and entrant.timeout is not None and decision.seconds > entrant.timeout:
        return Fault(seat, "timeout", f"{entrant.name}: took {decision.seconds:.2f} s, over its "
                     f"{entrant.timeout:g} s budget")
    try:
        game.play(decision)
    except IllegalActionError:
        assert entrant is not None
        return Fault(seat, "illegal", f"{entrant.name}: {decision.action!s} is not legal here")
    return None


def play_batch(jobs: Sequence[GameJob], entrants: Sequence[Entrant]) -> list[GameOutcome]:
    """Play several games in order (one task for an executor, so per-task overhead stays small)."""
    return [play_game(job, entrants) for job in jobs]
