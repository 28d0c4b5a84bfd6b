"""One arena game: paired-deal chance streams, agents at their seats, faults turned into losses.

Everything here runs in worker processes (local or Dask), so jobs and entrants are small picklable
values and agents are built (and external engines started) once per worker thread, then reused.
"""

from __future__ import annotations

import json
import random
import threading
import time
from dataclasses import dataclass
from typing import Sequence

from advisor.players.agents import Agent, make_agent
from advisor.players.games import DealStreams, derive_seed
from advisor.players.engine import EngineAgent, EngineError
from positions.record import GameRecorder


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
    """Play one game of the schedule; a crash, overrun or illegal answer loses it for that agent."""
    start = time.perf_counter()
    names = [entrants[e].name for e in job.seats]
    recorder = GameRecorder.new(job.players, job.route, names, job.deal_seed)
    streams = DealStreams(job.deal_seed, job.players)
    # Decisions' randomness belongs to the seat too: two identical agents replay the same game
    # in every rotation, so a paired deal between equals is always an even score.
    choices = [random.Random(derive_seed(job.deal_seed, "agent", s)) for s in range(job.players)]
    agents = [agent_for(entrants[e]) for e in job.seats]
    fault: Fault | None = None
    decisions = 0
    position = recorder.position
    while not position.is_terminal():
        if position.is_chance():
            recorder.apply(position.sample_chance(streams.stream(position)))
            continue
        seat = position.current_player()
        fault = _decide(recorder, agents[seat], entrants[job.seats[seat]], seat, choices[seat])
        if fault is not None:
            break
        decisions += 1
    returns = (forfeit_returns(job.players, fault.seat) if fault is not None
               else tuple(position.returns()))
    return GameOutcome(job.index, tuple(position.scores()), returns, fault,
                       json.dumps(recorder.to_data(), separators=(",", ":")),
                       time.perf_counter() - start, decisions)


def _decide(recorder: GameRecorder, agent: Agent, entrant: Entrant, seat: int,
            rng: random.Random) -> Fault | None:
    """Ask the agent at `seat` and apply its action; the fault if it failed."""
    position = recorder.position
    legal = position.legal_actions()
    if len(legal) == 1:
        recorder.apply(legal[0])
        return None
    # In-process agents get the player's own view: the others' unrevealed choices resampled.
    view = position if isinstance(agent, EngineAgent) else position.determinize(seat, rng)
    began = time.perf_counter()
    try:
        action = agent.choose(view, rng)
    except EngineError as error:
        return Fault(seat, error.kind, str(error))
    except Exception as error:  # noqa: BLE001 - any failure of an agent loses its game, not the run
        return Fault(seat, "crash", f"{entrant.name}: {type(error).__name__}: {error}")
    elapsed = time.perf_counter() - began
    if entrant.timeout is not None and elapsed > entrant.timeout:
        return Fault(seat, "timeout", f"{entrant.name}: took {elapsed:.2f} s, over its "
                     f"{entrant.timeout:g} s budget")
    if action not in legal:
        return Fault(seat, "illegal", f"{entrant.name}: {action!s} is not legal here")
    recorder.apply(action)
    return None


def play_batch(jobs: Sequence[GameJob], entrants: Sequence[Entrant]) -> list[GameOutcome]:
    """Play several games in order (one task for an executor, so per-task overhead stays small)."""
    return [play_game(job, entrants) for job in jobs]
