"""Playing whole games between agents: the one game loop every tool plays through.

Self-play, the arena, the evaluator's training games, the endgame generator, `refuge play` and the
scripts all play through :class:`GameLoop`: chance from the deal's :class:`DealStreams`, each seat's
decisions from that seat's own stream, every agent handed :func:`positions.kernel.view.seat_view` of the
position, and a forced decision (a single legal action) played without asking. So the same deal and
the same agents in the same seats give the same game, event for event, in every tool. An agent that
foresees (:class:`~advisor.players.agents.Foresees`, the omniscient agent: the skill ceiling) is handed
the whole position and a copy of the deal's streams instead; the loop's own streams are untouched.
"""

from __future__ import annotations

import os
import random
import time
from typing import Callable, Iterator, NamedTuple, Sequence

from advisor.players.agents import Agent
from advisor.players.narration import step_of
from positions.kernel import phases
from positions.kernel.actions import Action
from positions.errors import IllegalActionError
from positions.kernel.position import Position
from positions.record import GameRecorder
from positions.kernel.routes import Route
from positions.kernel.view import seat_view
from search.seeds import derive_seed

__all__ = ["Decision", "DealStreams", "Event", "GameLoop", "Listener", "deal_seed", "derive_seed",
           "play_game", "record_file", "rotation", "split_agent_list"]


def deal_seed(seed: int, deal: int) -> int:
    """The seed of deal number `deal` of a run seeded `seed`: self-play's and the arena's alike."""
    return derive_seed(seed, "deal", deal)


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

    def copy(self) -> "DealStreams":
        """Independent streams at the same states: drawing from the copy leaves these as they are."""
        other = DealStreams.__new__(DealStreams)
        other.seats = [_copied(stream) for stream in self.seats]
        other.weather = _copied(self.weather)
        other.tiebreak = _copied(self.tiebreak)
        return other

    def states(self) -> list[tuple[list[int], int]]:
        """Every stream's Mersenne Twister state, seats in order, then weather, then tie-breaks:
        its 624 words and its index (``random.getstate()[1]``), as the native core takes them."""
        states = []
        for stream in (*self.seats, self.weather, self.tiebreak):
            internal = stream.getstate()[1]
            states.append((list(internal[:-1]), internal[-1]))
        return states


def _copied(stream: random.Random) -> random.Random:
    """A new stream at `stream`'s state (``__new__``: no seeding from the system's entropy)."""
    other = random.Random.__new__(random.Random)
    other.setstate(stream.getstate())
    return other


class Decision(NamedTuple):
    """What is to happen next, before it is applied: who acts and what, and how it was found."""

    actor: int
    """The seat deciding, or ``CHANCE_PLAYER``."""
    action: Action
    asked: bool
    """Whether an agent was asked (``False``: chance, or the only legal action)."""
    seconds: float
    """How long the agent took (0 when not asked)."""


class Event(NamedTuple):
    """An event applied by the loop."""

    actor: int
    """The seat that decided, or ``CHANCE_PLAYER``."""
    action: Action
    hidden: bool
    """Whether it is a choice still hidden from the other players (their step is not complete)."""
    asked: bool
    """Whether an agent was asked (``False``: chance, or the only legal action)."""
    seconds: float


Listener = Callable[[GameRecorder, Event], None]
"""Called after every event with the recorder and the event."""


class GameLoop:
    """A game between agents, one event at a time, that can be taken back to an earlier event.

    `seed` is the deal's seed (:func:`deal_seed`): chance comes from its :class:`DealStreams` and
    seat `s` decides with ``random.Random(derive_seed(seed, "agent", s))``, so two identical agents
    replay the same game in every rotation. Taking back replays the kept events and draws their
    chance again from fresh streams, so the luck of the kept events is the same.
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

    def decide(self) -> Decision:
        """The next event, not yet applied: chance drawn from its stream, a forced decision, or the
        agent's answer on :func:`~positions.kernel.view.seat_view` of the position (whatever the agent
        raises is passed on)."""
        pos = self.position
        actor = pos.current_player()
        if actor == phases.CHANCE_PLAYER:
            return Decision(actor, self.streams.sample(pos), False, 0.0)
        legal = pos.legal_actions()
        if len(legal) == 1:
            return Decision(actor, legal[0], False, 0.0)
        agent, rng = self.agents[actor], self.agent_rngs[actor]
        view = seat_view(pos, actor, rng)  # drawn for every agent: its stream is then where any agent's is
        began = time.perf_counter()
        foresee = getattr(agent, "choose_foreseen", None)  # ``agents.Foresees``, by name (its isinstance is slow)
        if foresee is not None:
            action = foresee(pos.copy(), self.streams.copy(), rng)
        else:
            action = agent.choose(view, rng)
        return Decision(actor, action, True, time.perf_counter() - began)

    def play(self, decision: Decision) -> Event:
        """Apply a decision from :meth:`decide`.

        Raises:
            IllegalActionError: an agent chose an illegal action (the message names agent and turn).
        """
        pos = self.position
        actor, action = decision.actor, decision.action
        if actor >= 0 and action not in pos.legal_actions():
            raise IllegalActionError(
                f"agent {self.agents[actor].name!r} (seat {actor}) chose {action!s}, which is "
                f"not legal at walk {pos.walk + 1}, turn {pos.turn + 1}")
        step = step_of(pos)
        self.recorder.apply(action)
        self.actors.append(actor)
        after = self.position
        hidden = after.is_simultaneous() and step_of(after) == step
        return Event(actor, action, hidden, decision.asked, decision.seconds)

    def step(self) -> Event:
        """Ask whoever is next (an agent or chance) and apply the event.

        Raises:
            IllegalActionError: an agent chose an illegal action (the message names agent and turn).
        """
        return self.play(self.decide())

    def events(self) -> Iterator[Event]:
        """Play to the end, one event at a time."""
        while not self.position.is_terminal():
            yield self.step()

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


class RecordingAgent:
    """An agent that keeps a copy of every view it is handed (what its seat knew, a decision with a
    choice: the loop asks no agent a forced one) before deciding."""

    def __init__(self, agent: Agent, seat: int, log: list[tuple[int, Position]]) -> None:
        self.agent, self.seat, self.log = agent, seat, log
        self.name = agent.name

    def choose(self, position: Position, rng: random.Random) -> Action:
        """The wrapped agent's action, after noting (seat, view) in the log."""
        self.log.append((self.seat, position.copy()))
        return self.agent.choose(position, rng)


def play_game(agents: Sequence[Agent], route: Route | str, seed: int,
              names: Sequence[str] = (), on_event: Listener | None = None) -> GameRecorder:
    """Play a whole game of deal seed `seed`, agent i in seat i (see :class:`GameLoop`).

    Raises:
        IllegalActionError: an agent chose an illegal action (the message names agent and turn).
    """
    game = GameLoop(agents, route, seed, names)
    for event in game.events():
        if on_event is not None:
            on_event(game.recorder, event)
    return game.recorder


def record_file(directory: str, index: int) -> str:
    """The record file of game `index` of a run in `directory` (``game-00001.json`` for game 0)."""
    return os.path.join(directory, f"game-{index + 1:05d}.json")


def rotation(index: int, agents: int) -> list[int]:
    """Which agent sits in each seat in rotation `index`: agent ``(seat + index) % agents``."""
    return [(seat + index) % agents for seat in range(agents)]


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
