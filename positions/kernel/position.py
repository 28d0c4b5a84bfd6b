"""A game of Refuge: the state (:mod:`positions.kernel.state`) with the game verbs a search needs."""

from __future__ import annotations

import random
from array import array
from fractions import Fraction
from typing import Any, Sequence

from positions.kernel import native_search as native_core
from positions.kernel import encoding, phases, rules
from positions.kernel.phases import CHANCE_PHASES, OVER, SIMULTANEOUS, TIEBREAK, WEATHER
from positions.kernel.actions import Action
from positions.errors import ImpossiblePositionError
from positions.kernel.routes import ROUTES, Route
from positions.kernel.rules import Policy
from positions.kernel.rulesets import DEFAULT_RULESET, Ruleset
from positions.kernel.state import FIELDS, Player, State
from positions.kernel.tiles import KIND_COUNT, STORM

__all__ = ["FIELDS", "Player", "Policy", "Position"]


class Position(State):
    """A game of Refuge at one moment, with OpenSpiel's verbs (the rules live in :mod:`positions.kernel.rules`)."""

    __slots__ = ()

    @classmethod
    def new_game(cls, players: int = 2, route: Route | str = "meadows",
                 ruleset: Ruleset = DEFAULT_RULESET) -> "Position":
        """The position at the start of the first walk (rulebook, "Game Setup").

        Raises:
            ImpossiblePositionError: unsupported player count or unknown route.
        """
        if isinstance(route, str):
            if route not in ROUTES:
                raise ImpossiblePositionError(f"unknown route {route!r}")
            route = ROUTES[route]
        if players not in ruleset.player_counts:
            raise ImpossiblePositionError(
                f"{players} players: ruleset {ruleset.name!r} supports {ruleset.player_counts}")
        pos = cls()
        pos.ruleset = ruleset
        pos.route = route
        pos.players = players
        pos.threshold = ruleset.storm_threshold(players)
        pos.walk = 0
        pos.turn = 0
        pos.bags = [ruleset.start_bag] * players
        pos.hands = [()] * players
        pos.paths = [()] * players
        pos.set_aside = [()] * players
        pos.steps = [ruleset.start_steps] * players
        pos.vp = [0] * players
        pos.walking = [True] * players
        pos.owned_storms = [0] * players
        pos.market = tuple(ruleset.stack_size if k in route.kinds else 0 for k in range(KIND_COUNT))
        pos.box = ()
        pos.hidden_bags = ()
        pos.history = rules.fold(0, (players, len(route.kinds), *route.kinds, *ruleset.to_ints()))
        rules.reset_weather(pos)
        rules.reset_resolution(pos)
        rules.start_turn(pos)
        return pos

    def copy(self) -> "Position":
        """An independent copy of the same class (tuples are shared, lists copied)."""
        other = self.__class__()
        other.ruleset = self.ruleset
        other.route = self.route
        other.players = self.players
        other.threshold = self.threshold
        other.walk = self.walk
        other.turn = self.turn
        other.phase = self.phase
        other.actor = self.actor
        other.bags = self.bags[:]
        other.hands = self.hands[:]
        other.paths = self.paths[:]
        other.set_aside = self.set_aside[:]
        other.steps = self.steps[:]
        other.vp = self.vp[:]
        other.walking = self.walking[:]
        other.owned_storms = self.owned_storms[:]
        other.track_suns = self.track_suns
        other.track_storms = self.track_storms
        other.deck_suns = self.deck_suns
        other.deck_storms = self.deck_storms
        other.reserve = self.reserve
        other.market = self.market
        other.box = self.box
        other.pending = self.pending[:]
        other.history = self.history
        other.tile = self.tile
        other.extra_plays = self.extra_plays
        other.discards_left = self.discards_left
        other.discards_required = self.discards_required
        other.ties = self.ties
        other.legal = self.legal
        other.hidden_bags = self.hidden_bags
        return other

    def to_ints(self) -> list[int]:
        """The canonical state encoding (:func:`positions.kernel.encoding.to_ints`, docs/determinism.md)."""
        return encoding.to_ints(self)

    @staticmethod
    def from_ints(ints: Sequence[int]) -> "Position":
        """The position a canonical state encoding holds (:func:`positions.kernel.encoding.from_ints`).

        Raises:
            ImpossiblePositionError: not an encoding (one line naming the offset).
        """
        return encoding.from_ints(ints, Position)

    def __copy__(self) -> "Position":
        """``copy.copy`` support: the same as ``copy()``."""
        return self.copy()

    # --- the game verbs (OpenSpiel's names) -------------------------------------------------

    def current_player(self) -> int:
        """The player to decide, ``CHANCE_PLAYER`` at a chance event, ``TERMINAL_PLAYER`` at the end."""
        phase = self.phase
        if phase == OVER:
            return phases.TERMINAL_PLAYER
        if phase in CHANCE_PHASES:
            return phases.CHANCE_PLAYER
        return self.actor

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self.phase == OVER

    def is_chance(self) -> bool:
        """Whether the next event is chance (a draw, a weather tile, a tie-break)."""
        return self.phase in CHANCE_PHASES

    def is_simultaneous(self) -> bool:
        """Whether the decision is part of a simultaneous step (C6, C8, C12)."""
        return self.phase in SIMULTANEOUS

    def legal_actions(self) -> Sequence[Action]:
        """The decisions open to the current player, or the possible chance outcomes."""
        if self.phase in CHANCE_PHASES:
            return [action for action, _ in rules.chance_outcomes(self)]
        return self.legal

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        """Every outcome of the pending chance event with its probability."""
        return rules.chance_outcomes(self)

    def chance_weights(self) -> list[tuple[Action, int]]:
        """Every outcome of the pending chance event with its number of ways (exact: an outcome's
        probability is its ways over the sum of all ways)."""
        return rules.chance_weights(self)[0]

    def sample_chance(self, rng: random.Random) -> Action:
        """One outcome of the pending chance event, drawn with its probability."""
        return rules.sample_chance(self, rng)

    def apply(self, action: int) -> None:
        """Play a decision or a chance outcome in place (raises IllegalActionError if not legal)."""
        rules.apply(self, action)

    def playout(self, rng: random.Random, policy: Policy[Position] | None = None) -> None:
        """Play on in place to the end: `policy`'s decisions (uniformly random without one); the
        rollout fast path, see :func:`positions.kernel.rules.playout`."""
        rules.playout(self, rng, policy)

    def scores(self) -> list[int]:
        """Each player's victory points."""
        return self.vp[:]

    def returns(self) -> list[float]:
        """Each player's share of the win at the end (C18: k tied winners get 1/k each), else 0."""
        if self.phase != phases.OVER:
            return [0.0] * self.players
        best = max(self.vp)
        winners = self.vp.count(best)
        return [1.0 / winners if v == best else 0.0 for v in self.vp]

    def exact_returns(self) -> list[Fraction]:
        """``returns()`` as exact fractions (C18: k tied winners get 1/k each)."""
        if self.phase != phases.OVER:
            return [Fraction(0)] * self.players
        best = max(self.vp)
        share = Fraction(1, self.vp.count(best))
        return [share if v == best else Fraction(0) for v in self.vp]

    def solver_key(self) -> bytes:
        """What can still change how the game goes on, as a compact key (the exact solver's memo).

        Positions of one game with equal keys have the same future. Left out, as no rule reads
        them again: the history, the turn count, the box, the legal actions (they follow from the
        rest) and choices already carried out; bags, hands, paths and set-aside tiles are multisets
        (no rule reads their order, C15 and C16 count a path's tiles). At the end only the VP count.
        The numbers are packed as 16-bit ints, each tile group after its length: about a tenth of
        the memory of nested tuples, which bounds how large a position the solver can hold.
        """
        phase = self.phase
        if phase == OVER:
            return array("h", [phase, *self.vp]).tobytes()
        if phase in SIMULTANEOUS:
            pending = self.pending
        elif phase == WEATHER or phase == TIEBREAK:
            pending = []
        else:  # deal, return-discard, resolving: only the later players' choices are still to come
            pending = self.pending[self.actor + 1:]
        numbers = [phase, self.actor, self.walk, self.track_suns, self.track_storms, self.deck_suns,
                   self.deck_storms, self.reserve, self.tile, self.extra_plays, self.discards_left,
                   self.discards_required, *self.steps, *self.vp, *self.walking, *self.owned_storms,
                   *self.market, len(pending), *pending, len(self.ties)]
        for group in (self.bags, self.hands, self.paths, self.set_aside):
            for tiles in group:
                numbers.append(len(tiles))
                numbers.extend(sorted(tiles))
        for kind, tied, slots in self.ties:
            numbers += [kind, slots, len(tied), *tied]
        return array("h", numbers).tobytes()

    # --- information sets -------------------------------------------------------------------

    def information_set_key(self, player: Player) -> tuple[int, int, int]:
        """All `player` has seen: the public history plus their own not-yet-revealed choice."""
        own = self.pending[player] if self.phase in phases.SIMULTANEOUS else -1
        return (player, self.history, own)

    def determinize(self, player: Player, rng: random.Random, belief: Policy[Position] | None = None) -> "Position":
        """A copy in which the others' unrevealed choices of this step are resampled (uniformly
        among their options, or from `belief`: a model of how they choose, asked in seat order on
        each one's view of their decision in this world — the earlier seats' choices as drawn here,
        no later one), and so are the hidden bags (their tiles dealt afresh, each keeping its size
        and its Storms).

        Raises:
            ValueError: `belief` picked an action that was not one of that player's options.
        """
        state = self.copy()
        if state.hidden_bags:
            deal_hidden_bags(state, rng)
        if state.phase in phases.SIMULTANEOUS:
            for other in range(state.players):
                if other != player and state.pending[other] >= 0:
                    options = rules.step_legal(state, other)
                    if belief is None:
                        state.pending[other] = options[int(rng.random() * len(options))]
                    else:
                        state.pending[other] = state._believed_choice(other, options, belief, rng)
        return state

    def step_start(self, player: Player) -> "Position | None":
        """The position at the start of the current simultaneous step as `player` knows it: every
        choice of the step undone and the step started again (C6, C8, C12: a seat with a single
        option has it at once, the first seat with a choice acts); ``None`` when no other seat has
        made a choice in this step that `player` cannot see (not simultaneous, or nobody yet).

        The history is unchanged (a step's choices are folded in only when it ends), so every
        seat's information set at the start is the one it has at its own decision in the step.
        """
        if self.phase not in phases.SIMULTANEOUS:
            return None
        if not any(seat != player and choice >= 0 and len(rules.step_legal(self, seat)) > 1
                   for seat, choice in enumerate(self.pending)):
            return None
        start = self.copy()
        rules._start_step(start, start.phase)  # the rules' own step start: forced choices, first seat
        return start

    def native_unsupported(self, request: Any) -> str:
        """Why the native core cannot grow `request`'s tree exactly as the Python search would ('' when
        it can; ``search.protocol.SearchesNatively``)."""
        return native_core.unsupported(request)

    def native_search(self, requests: Sequence[Any], seeds: Sequence[int], budgets: Sequence[int | None],
                      table: Any = None, also: Sequence[Position] = (), pinned: dict[int, int] | None = None,
                      progress: native_core.Report | None = None, progress_every: int = 64,
                      ) -> list[native_core.NativeTree] | None:
        """Every worker's search tree grown by the native core from here, in threads
        (``search.protocol.SearchesNatively``; :func:`positions.kernel.native_search.search`)."""
        return native_core.search(self, requests, seeds, budgets, table, also, pinned, progress, progress_every)

    def native_answer(self, requests: Sequence[Any], seeds: Sequence[int], budgets: Sequence[int | None],
                      table: Any = None) -> native_core.NativeResult | None:
        """The search's answer merged by the native core (``search.protocol.SearchesNatively``;
        :func:`positions.kernel.native_search.answer`)."""
        return native_core.answer(self, requests, seeds, budgets, table)

    def native_table(self) -> Any:
        """An empty node table of the native core (``search.protocol.SearchesNatively``)."""
        return native_core.new_table()

    def _believed_choice(self, other: Player, options: Sequence[Action], belief: Policy[Position],
                         rng: random.Random) -> Action:
        """`belief`'s choice for `other` in this (determinized) world as it stood when they chose:
        them to act, the earlier seats' choices as drawn in this world, no later seat's."""
        view = self.copy()
        view.actor = other
        view.legal = tuple(options)
        view.pending = [choice if seat < other else -1 for seat, choice in enumerate(self.pending)]
        choice = belief.choose(view, rng)
        if choice not in options:
            raise ValueError(f"determinize: belief {belief!r} chose {choice!r} for player {other}, "
                             f"not one of {list(options)}")
        return options[options.index(choice)]

    # --- facts derived for players and renderers ----------------------------------------------

    def storms_on_track(self) -> int:
        """Every Storm on the weather track (:func:`positions.kernel.rules.storms_on_track`, C5)."""
        return rules.storms_on_track(self)

    def storms_to_hit(self) -> int:
        """How many more Storms make the Storm hit (:func:`positions.kernel.rules.storms_to_hit`)."""
        return rules.storms_to_hit(self)

    def __repr__(self) -> str:
        return (f"<Position {self.players}p walk {self.walk + 1} turn {self.turn + 1} "
                f"{phases.NAMES[self.phase]} actor {self.actor}>")


def deal_hidden_bags(state: State, rng: random.Random) -> None:
    """Shuffle the non-Storm tiles of the hidden bags among them, each bag keeping its size and its
    Storms (a player's Storms are known: the start bag's less those on the track, C5).

    The pool is each hidden bag's non-Storm tiles in kind order, bags in ``hidden_bags`` order,
    shuffled by Fisher-Yates on ``rng.random()`` (docs/determinism.md, "Hidden bags")."""
    hidden = state.hidden_bags
    pool: list[int] = []
    for player in hidden:
        pool.extend(sorted(k for k in state.bags[player] if k != STORM))
    fisher_yates(pool, rng)
    start = 0
    for player in hidden:
        bag = state.bags[player]
        storms = bag.count(STORM)
        size = len(bag) - storms
        state.bags[player] = tuple(sorted([STORM] * storms + pool[start:start + size]))
        start += size


def fisher_yates(items: list[int], rng: random.Random) -> None:
    """Shuffle `items` in place by Fisher-Yates on ``rng.random()`` alone: for i from the last index
    down to 1, swap items[i] with items[int(random() * (i + 1))] (docs/determinism.md)."""
    for i in range(len(items) - 1, 0, -1):
        j = int(rng.random() * (i + 1))
        items[i], items[j] = items[j], items[i]
