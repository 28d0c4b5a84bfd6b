"""The game interface the search speaks: OpenSpiel's state verbs, nothing Refuge-specific.

Any game whose state has these methods can be searched; ``positions.Position`` is one, the toy
games in ``tests/`` are others. ``search/`` never imports a game.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any, Callable, Hashable, Mapping, Protocol, Sequence, TypeVar

CHANCE_PLAYER = -1
"""``current_player()`` at a chance event."""
TERMINAL_PLAYER = -2
"""``current_player()`` once the game is over."""


class Game(Protocol):
    """A game state the search can copy, mutate and observe (OpenSpiel's verbs)."""

    players: int
    """How many players take part."""

    def current_player(self) -> int:
        """The player to act, ``CHANCE_PLAYER`` or ``TERMINAL_PLAYER``."""
        ...

    def is_chance(self) -> bool:
        """Whether the next event is a chance outcome."""
        ...

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        ...

    def is_simultaneous(self) -> bool:
        """Whether the current decision is part of a step the players take without seeing each other's."""
        ...

    def legal_actions(self) -> Sequence[int]:
        """The current player's actions (or the chance outcomes), in a fixed order."""
        ...

    def apply(self, action: int) -> None:
        """Play an action or chance outcome in place."""
        ...

    def copy(self) -> "Game":
        """An independent copy."""
        ...

    def chance_outcomes(self) -> Sequence[tuple[int, float]]:
        """Each chance outcome with its probability (they sum to 1)."""
        ...

    def sample_chance(self, rng: random.Random) -> int:
        """One chance outcome drawn with its probability."""
        ...

    def returns(self) -> Sequence[float]:
        """Each player's reward at the end: 1 win, 0 loss, 1/k for k tied winners."""
        ...

    def scores(self) -> Sequence[float]:
        """Each player's score (at the end: the final score)."""
        ...

    def information_set_key(self, player: int) -> Hashable:
        """Everything `player` knows, as a hashable key; equal keys for indistinguishable states."""
        ...

    def determinize(self, player: int, rng: random.Random) -> "Game":
        """A copy in which whatever `player` cannot see is resampled consistently with what they saw."""
        ...


class Solvable(Game, Protocol):
    """A game the exact solver can read exactly (optional verbs; ``Position`` has them)."""

    def solver_key(self) -> Hashable:
        """A key for the solver's memo: states of one game with equal keys have the same future
        (the same legal actions as a set, the same outcomes and weights, and so on to the end)."""
        ...

    def chance_weights(self) -> Sequence[tuple[int, int]]:
        """Each chance outcome with a positive integer weight: its probability is the weight over
        the sum of the weights (exact, where ``chance_outcomes`` gives floats)."""
        ...

    def exact_returns(self) -> Sequence[Fraction]:
        """``returns()`` as exact fractions."""
        ...


class PlaysOut(Protocol):
    """A game with its own fast path for rollouts to the end (optional; ``Position`` has one)."""

    def playout(self, rng: random.Random, policy: "Policy[Any] | None" = None) -> None:
        """Play on in place to the end exactly as step-by-step ``apply`` would with the same `rng`:
        `policy`'s decisions (uniformly random ``legal[int(rng.random() * len(legal))]`` without
        one) and ``sample_chance(rng)`` outcomes; information-set keys may be left stale."""
        ...


NativeKept = tuple[list[tuple[Any, list[tuple[int, int, float]]]], list[tuple[tuple[int, int], list[tuple[int, int]]]]]
"""A kept tree from a native core: every node as ``(key, [(action, visits, value_sum), ...])`` in the
order added, and the edges walked as ``((node index, action), [(next node index, times walked), ...])``
in the order first walked."""
NativeAnswer = tuple[list[tuple[int, int, float, float, float]], list[tuple[int, list[float]]]]
"""One answer node's statistics from a native core: per root action ``(action, visits, value_sum,
score_sum, policy_sum)``, and per root action played ``(action, [every player's return sum, ...,
every player's score sum, ..., the decider's squared-score sum, the iterations summed])``."""
NativeTree = tuple[list[NativeAnswer], dict[tuple[int, ...], list[float]], int, int, NativeKept | None]
"""One tree grown by a native core: every answer node's statistics (the searching player's, then the
later decisions of its step); the joint cells; the tree's information sets; the iterations run;
with ``keep_tree`` the kept tree (``search.ismcts.TreeOutcome``'s fields)."""
NativeResult = tuple[list[tuple[Any, ...]], int, list[int], list[NativeKept]]
"""A search's answer merged by a native core (``search.request.SearchResult.from_trees`` of every
worker's first answer): every legal root action, in the game's order, as ``ActionStats``'s fields
after ``action``; the chosen action's index among them; every worker's iterations; and with
``keep_tree`` every worker's kept tree."""


class SearchesNatively(Protocol):
    """A game whose native core grows a whole search tree in one call, equal bit for bit to the Python
    tree's (optional; ``Position`` has it when the crate in native/ is built)."""

    def native_unsupported(self, request: Any) -> str:
        """Why the core cannot grow `request`'s tree exactly as the Python search would ('' when it can)."""
        ...

    def native_search(self, requests: Sequence[Any], seeds: Sequence[int], budgets: Sequence[int | None],
                      table: Any = None, also: Sequence[Any] = (), pinned: Mapping[int, int] | None = None,
                      progress: Callable[[Any, Any], "bool | None"] | None = None,
                      progress_every: int = 64) -> list[NativeTree] | None:
        """Worker i's ``run_tree(self, requests[i], seeds[i], budgets[i], also=also,
        pinned=pinned)`` statistics for every worker (the requests differ only in their oracle),
        grown natively until the budget and/or ``request.seconds``, the workers in parallel;
        ``None`` where the core met a position it cannot value as Python would (the Python search
        runs; `table` is left as it was). With one worker only: `table` (a :meth:`native_table`
        kept from earlier searches) to grow, and `progress`, called as ``progress(answer, live)``
        every `progress_every` iterations (the answer so far as in :data:`NativeTree`, the live
        tree with ``len`` and ``kept()``, the kept tree as :data:`NativeKept` or ``None`` without
        ``keep_tree``); ``False`` stops there."""
        ...

    def native_answer(self, requests: Sequence[Any], seeds: Sequence[int], budgets: Sequence[int | None],
                      table: Any = None) -> NativeResult | None:
        """The search's answer from the trees :meth:`native_search` of the same arguments grows,
        merged by the core as ``SearchResult.from_trees`` merges them (``None`` likewise)."""
        ...

    def native_table(self) -> Any:
        """An empty node table of the core, to keep between searches (``len``, ``in`` by node key,
        ``export()``: see ``search.backend.KeptTree``)."""
        ...


class StepStart(Protocol):
    """A game that can go back to the start of a simultaneous step (optional; ``Position`` has it):
    the search of a decision whose step others have already chosen in, unseen, starts there."""

    def step_start(self, player: int) -> "Game | None":
        """The position at the start of the current simultaneous step as `player` knows it: the
        choices made in the step so far undone (a seat with a single option has it again), the
        step's first deciding seat to act; ``None`` when no choice hidden from `player` has been
        made in the step (not simultaneous, or nobody before them had a choice)."""
        ...


G = TypeVar("G", bound=Game)
SG = TypeVar("SG", bound=Solvable)
S_contra = TypeVar("S_contra", contravariant=True)


class Policy(Protocol[S_contra]):
    """Picks a decision for the current player: rollout policies and bots share this shape."""

    def choose(self, state: S_contra, rng: random.Random) -> int:
        """One legal action for ``state.current_player()``; all randomness from `rng`."""
        ...


class Evaluator(Protocol[S_contra]):
    """Estimates each player's win share and final score for a non-terminal state (rollout cut-off)."""

    def evaluate(self, state: S_contra) -> tuple[Sequence[float], Sequence[float]]:
        """(win share per player summing to 1, expected final score per player)."""
        ...


class ExactValues(Protocol[S_contra]):
    """Exact endgame values the search may use instead of rollouts (like a chess tablebase)."""

    def exact_value(self, state: S_contra) -> tuple[Sequence[float], Sequence[float]] | None:
        """Every player's exact expected return and final score at the decision `state` under best
        play, or ``None`` where the position is out of scope or too large."""
        ...

    def exact_options(self, state: S_contra) -> Mapping[int, tuple[Sequence[float], Sequence[float]]] | None:
        """The exact values after each legal action at the decision `state`, or ``None``."""
        ...
