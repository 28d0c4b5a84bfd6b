"""The decisions of an arena database's games, and how often a policy makes the same ones.

Every stored game without a fault is replayed from its record; each decision by a player (chance
events left out) is a :class:`StoredDecision`: the position before it, who decided (seat and agent
name) and what, with the game's result. :func:`agreement` asks a policy for its choice at each
decision of one agent, on the seat's own view, by kind of decision (issue 27: the search's buys
against the heuristic's).
"""

from __future__ import annotations

import os
import random
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Iterator

from advisor.arena.store import ArenaStore, StoredGame, StoreError
from positions.kernel import phases
from positions.kernel.actions import BUY, Action
from positions.errors import RefugeError
from positions.kernel.position import Position
from positions.record import Replay, read_record_text, replay
from positions.kernel.view import seat_view
from search.protocol import Policy


@dataclass(frozen=True)
class StoredDecision:
    """A decision of a stored game."""

    game: int
    """The game's number among the database's games without a fault, in store order."""
    seat: int
    agent: str
    """The name of the agent in that seat."""
    position: Position
    """The whole position before the decision (not a view: :func:`seat_view` gives the seat's)."""
    action: Action
    returns: tuple[float, ...]
    scores: tuple[int, ...]


def stored_replays(db: str) -> Iterator[tuple[int, StoredGame, Replay]]:
    """Every stored game of `db` without a fault, replayed from its record, in store order, with its
    number among those games.

    Raises:
        StoreError: not an arena database, or a stored record that does not replay.
    """
    if not os.path.isfile(db):
        raise StoreError(f"{db}: no such arena database")
    store = ArenaStore(db)
    try:
        stored = [game for game in store.games() if game.fault is None]
        for number, game in enumerate(stored):
            text = store.record(game.run, game.index)
            where = f"{db}: run {game.run} game {game.index}"
            try:
                played = replay(read_record_text(text or "", where), where)
            except RefugeError as error:
                raise StoreError(str(error)) from None
            if played.final.players != len(game.seats):
                raise StoreError(f"{where}: its record has {played.final.players} players, "
                                 f"its seats {len(game.seats)}")
            yield number, game, played
    finally:
        store.close()


def stored_decisions(db: str) -> Iterator[StoredDecision]:
    """Every decision of every stored game of `db` without a fault, in store and game order.

    Raises:
        StoreError: not an arena database, or a stored record that does not replay.
    """
    for number, game, played in stored_replays(db):
        for step in played.steps:
            if step.player != phases.CHANCE_PLAYER:
                yield StoredDecision(number, step.player, game.seats[step.player][0], step.position,
                                     step.action, game.returns, game.scores)


@dataclass(frozen=True)
class Agreement:
    """How often a policy chose what the stored agent chose, at one kind of decision."""

    decisions: int
    same: int

    @property
    def share(self) -> float:
        """The share of the decisions on which they agree (0 with none)."""
        return self.same / self.decisions if self.decisions else 0.0


def agreement(decisions: list[StoredDecision], policy: Policy[Position], agent: str,
              seed: int = 0) -> dict[str, Agreement]:
    """Per kind of decision (phase name), how often `policy`, on the seat's view, chooses what
    `agent` chose, over its decisions with a choice; views and ties drawn from `seed`."""
    same: dict[str, int] = {}
    total: dict[str, int] = {}
    rng = random.Random(seed)
    for decision in decisions:
        if decision.agent != agent or len(decision.position.legal_actions()) < 2:
            continue
        kind = phases.NAMES[decision.position.phase]
        view = seat_view(decision.position, decision.seat, rng)
        total[kind] = total.get(kind, 0) + 1
        same[kind] = same.get(kind, 0) + (policy.choose(view, rng) == decision.action)
    return {kind: Agreement(total[kind], same.get(kind, 0)) for kind in total}


@dataclass(frozen=True)
class BuyProfile:
    """One agent's buy decisions with a choice before the last walk: how many, how many it passed
    (keeping its Steps), and what it bought (tile name: times, most first)."""

    decisions: int
    kept: int
    bought: tuple[tuple[str, int], ...]

    @property
    def kept_share(self) -> float:
        """The share of those decisions at which it kept its Steps (0 with none)."""
        return self.kept / self.decisions if self.decisions else 0.0


def buy_profiles(decisions: Iterable[StoredDecision]) -> dict[str, BuyProfile]:
    """Per agent, its :class:`BuyProfile` (a buy whose only legal action is to pass is no choice)."""
    buys = set(BUY)
    total: Counter[str] = Counter()
    kept: Counter[str] = Counter()
    bought: dict[str, Counter[str]] = {}
    for decision in decisions:
        pos = decision.position
        if pos.phase != phases.BUY or pos.walk >= pos.ruleset.walks - 1 or len(pos.legal_actions()) < 2:
            continue
        total[decision.agent] += 1
        if decision.action in buys:
            bought.setdefault(decision.agent, Counter())[str(decision.action).removeprefix("buy ")] += 1
        else:
            kept[decision.agent] += 1
    return {agent: BuyProfile(total[agent], kept[agent], tuple(bought.get(agent, Counter()).most_common()))
            for agent in sorted(total)}
