"""The omniscient agent: the skill ceiling (issue 54). It sees the deal's future — the chance streams
that will decide every draw, weather tile and tie-break (``games.DealStreams``) — and searches that
one true future with the ordinary ISMCTS: the score no honest agent can beat.

:class:`Foreseen` is a position carrying a copy of the streams: every chance event is drawn from the
stream the game loop would use, so every iteration from the root replays the same outcomes along the
same line of play. Only the other seats' unrevealed choices of a simultaneous step stay unknown
(``determinize`` resamples them, as for any agent). No exact-endgame oracle: its values average over
chance, which this agent knows.
"""

from __future__ import annotations

import random
from typing import Any, Sequence, cast

from advisor.players.agents import ISMCTS_OPTIONS, Agent, ChanceStreams, SearchAgent, register_agent_kind, search_spec
from advisor.players.specs import AgentSpec, AgentSpecError
from positions.kernel import native_search as native_core
from positions.kernel import rules
from positions.kernel.actions import Action
from positions.kernel.position import Position
from positions.kernel.rules import Policy
from positions.kernel.state import FIELDS

__all__ = ["OMNISCIENT_OPTIONS", "Foreseen", "OmniscientAgent", "omniscient_agent"]

OMNISCIENT_OPTIONS = tuple(option for option in ISMCTS_OPTIONS if option != "exact")
"""What an ``omniscient:`` spec may set: an ``ismcts:`` spec's options but the oracle (there is none)."""


class Foreseen(Position):
    """A position whose chance is foreseen: drawn from its own copy of the deal's streams, never
    from the search's stream (a ``search.protocol.Game``; copies copy the streams). Its
    ``chance_outcomes`` still lists every outcome the rules allow: the search never asks, and the
    exact solver, which would, has no place here."""

    __slots__ = ("streams",)

    streams: ChanceStreams

    @classmethod
    def of(cls, position: Position, streams: ChanceStreams) -> "Foreseen":
        """`position` (copied) with the chance `streams` (not copied: the caller's copy).

        Raises:
            ValueError: a bag of `position` is hidden (there is no true bag to foresee).
        """
        if position.hidden_bags:
            raise ValueError("omniscient: the position hides a bag, so there is no future to foresee")
        source = position.copy()
        foreseen = cls()
        for field in FIELDS:
            setattr(foreseen, field, getattr(source, field))
        foreseen.streams = streams
        return foreseen

    def copy(self) -> "Foreseen":
        """An independent copy, its streams copied at their states."""
        other = cast(Foreseen, super().copy())
        other.streams = self.streams.copy()
        return other

    def sample_chance(self, rng: random.Random) -> Action:
        """The pending chance event's foreseen outcome: drawn from the stream the game loop draws it
        from (``DealStreams.stream``), whatever `rng`."""
        return rules.sample_chance(self, self.streams.stream(self))

    def playout(self, rng: random.Random, policy: Policy[Position] | None = None) -> None:
        """Play on in place to the end: `policy`'s decisions (uniformly random without one, from
        `rng`) and the foreseen chance, step by step (``search.protocol.PlaysOut``)."""
        while not self.is_terminal():
            if self.is_chance():
                self.apply(self.sample_chance(rng))
            elif policy is None:
                legal = self.legal
                self.apply(legal[int(rng.random() * len(legal))])
            else:
                self.apply(policy.choose(self, rng))

    def native_unsupported(self, request: Any) -> str:
        """Why the native core cannot grow `request`'s foreseen tree as the Python search would ('' when it can)."""
        reasons = [super().native_unsupported(request)]
        if request.oracle is not None:
            reasons.append("an oracle (its exact values assume random chance)")
        if native_core.built() and not getattr(native_core.refuge_native, "FORESEEN_SEARCH", False):
            reasons.append("the native core was built without the foreseen search")
        return ", ".join(reason for reason in reasons if reason)

    def native_search(self, requests: Sequence[Any], seeds: Sequence[int], budgets: Sequence[int | None],
                      table: Any = None, also: Sequence[Position] = (), pinned: dict[int, int] | None = None,
                      progress: native_core.Report | None = None, progress_every: int = 64,
                      ) -> list[native_core.NativeTree] | None:
        """Every worker's tree grown natively from here, chance drawn from this position's streams
        (``search.protocol.SearchesNatively``)."""
        return native_core.search(self, requests, seeds, budgets, table, also, pinned, progress, progress_every,
                                  streams=self.streams.states())

    def native_answer(self, requests: Sequence[Any], seeds: Sequence[int], budgets: Sequence[int | None],
                      table: Any = None) -> native_core.NativeResult | None:
        """The search's answer from here, chance drawn from this position's streams, merged by the
        native core (``search.protocol.SearchesNatively``)."""
        return native_core.answer(self, requests, seeds, budgets, table, streams=self.streams.states())


class OmniscientAgent(SearchAgent):
    """The search agent on the foreseen position (the game loop hands it the future,
    ``agents.Foresees``); on a seat's view alone it refuses to play."""

    def choose_foreseen(self, position: Position, streams: ChanceStreams, rng: random.Random) -> Action:
        """The most visited root action of a search of the true future, seeded from `rng`."""
        return super().choose(Foreseen.of(position, streams), rng)

    def choose(self, position: Position, rng: random.Random, on_progress: Any = None,
               progress_every: int = 64) -> Action:
        """Refused: this agent needs the deal's future, which only the game loop can hand it.

        Raises:
            AgentSpecError: always.
        """
        raise AgentSpecError(f"{self.name}: the omniscient agent plays only in the game loop "
                             "(arena, self-play), which hands it the deal's future")


def omniscient_agent(spec: AgentSpec) -> Agent:
    """The agent an ``omniscient:`` spec names: the default agent's search (``ismcts:``'s options
    but ``exact``) without the exact-endgame oracle, on the foreseen future."""
    request, reuse = search_spec(spec, OMNISCIENT_OPTIONS, {"exact": "none"})
    return OmniscientAgent(spec.text or spec.kind, request.limit, request.config, reuse)


register_agent_kind("omniscient", omniscient_agent)
