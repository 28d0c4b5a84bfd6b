"""Playing whole games between agents: seeded chance streams, seats, and the record as it grows."""

from __future__ import annotations

import hashlib
import random
from typing import Callable, Sequence

from advisor.players.agents import Agent
from positions import phases
from positions.actions import Action
from positions.errors import IllegalActionError
from positions.position import Position
from positions.record import GameRecorder
from positions.routes import Route
from advisor.players.narration import step_of


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from any parts, the same in every process and on every machine."""
    digest = hashlib.sha256(repr(parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


class DealStreams:
    """The chance of one deal, one stream per source, so that rotated seats meet the same luck.

    Each seat's draws come from that seat's own stream, weather tiles from one stream and tie-breaks
    from another, all derived from the deal's seed: whoever sits at seat 1 in any rotation draws from
    seat 1's stream, and the same weather turns while the bags are alike (the arena's paired games).
    """

    def __init__(self, deal_seed: int, players: int) -> None:
        self.seats = [random.Random(derive_seed(deal_seed, "draws", s)) for s in range(players)]
        self.weather = random.Random(derive_seed(deal_seed, "weather"))
        self.tiebreak = random.Random(derive_seed(deal_seed, "tiebreak"))

    def stream(self, position: Position) -> random.Random:
        """The stream that decides the pending chance event."""
        if position.phase == phases.WEATHER:
            return self.weather
        if position.phase == phases.TIEBREAK:
            return self.tiebreak
        return self.seats[position.actor]

    def sample(self, position: Position) -> Action:
        """The pending chance event's outcome, drawn from its stream."""
        return position.sample_chance(self.stream(position))


Listener = Callable[[GameRecorder, int, Action, bool], None]
"""Called after every event with the recorder, the actor (or CHANCE_PLAYER), the action, and whether
the action is a choice still hidden from the other players (their step is not complete)."""




class GameLoop:
    """A game between agents, one event at a time, that can be taken back to an earlier event.

    Chance comes from :class:`DealStreams` of `seed`; taking back replays the kept events and draws
    their chance again from fresh streams, so the luck of the kept events is the same.
    """

    def __init__(self, agents: Sequence[Agent], route: Route | str, seed: int,
                 names: Sequence[str] = ()) -> None:
        self.agents = list(agents)
        self.seed = seed
        players = len(agents)
        self.recorder = GameRecorder.new(players, route, list(names) or [a.name for a in agents], seed)
        self.streams = DealStreams(seed, players)
        self.agent_rngs = [random.Random(derive_seed(seed, "agent", seat)) for seat in range(players)]
        self.actors: list[int] = []
        """Who made each event (``CHANCE_PLAYER`` for chance)."""
        self.take_backs = 0

    @property
    def position(self) -> Position:
        """The position now."""
        return self.recorder.position

    def step(self) -> tuple[int, Action, bool]:
        """Ask whoever is next (an agent or chance) and apply the event: the actor, the action, and
        whether it is a choice still hidden from the others (their step is not complete).

        Raises:
            IllegalActionError: an agent chose an illegal action (the message names agent and turn).
        """
        pos = self.position
        actor = pos.current_player()
        if actor == phases.CHANCE_PLAYER:
            action = self.streams.sample(pos)
        else:
            action = self.agents[actor].choose(pos, self.agent_rngs[actor])
            if action not in pos.legal_actions():
                raise IllegalActionError(
                    f"agent {self.agents[actor].name!r} (seat {actor}) chose {action!s}, which is "
                    f"not legal at walk {pos.walk + 1}, turn {pos.turn + 1}")
        step = step_of(pos)
        self.recorder.apply(action)
        self.actors.append(actor)
        after = self.position
        return actor, action, after.is_simultaneous() and step_of(after) == step

    def take_back(self, events: int) -> None:
        """Go back to the position before event `events`. The luck from there on is drawn afresh
        (from `seed` and the number of take-backs), so taking back a draw cannot peek at the tiles."""
        kept = self.recorder.events[:events]
        setup = self.recorder.setup
        self.recorder = GameRecorder(setup)
        for action in kept:
            self.recorder.apply(action)
        self.actors = self.actors[:events]
        self.take_backs += 1
        self.streams = DealStreams(derive_seed(self.seed, "take-back", self.take_backs),
                                   setup.players)

    def last_decision_of(self, seats: Sequence[int]) -> int | None:
        """The index of the last event decided by one of `seats`, or ``None``."""
        for index in range(len(self.actors) - 1, -1, -1):
            if self.actors[index] in seats:
                return index
        return None


def play_game(agents: Sequence[Agent], route: Route | str, seed: int,
              names: Sequence[str] = (), on_event: Listener | None = None) -> GameRecorder:
    """Play a whole game, agent i in seat i; every random choice flows from `seed`.

    Raises:
        IllegalActionError: an agent chose an illegal action (the message names agent and turn).
    """
    game = GameLoop(agents, route, seed, names)
    while not game.position.is_terminal():
        actor, action, hidden = game.step()
        if on_event is not None:
            on_event(game.recorder, actor, action, hidden)
    return game.recorder


def split_agent_list(text: str) -> list[str]:
    """Split ``ismcts:iterations=500,exploration=0.5,heuristic`` into agent specs.

    A comma-separated piece that is only ``key=value`` continues the spec before it.
    """
    specs: list[str] = []
    for piece in text.split(","):
        piece = piece.strip()
        if not piece:
            continue
        if specs and "=" in piece and ":" not in piece:
            specs[-1] += "," + piece
        else:
            specs.append(piece)
    return specs
