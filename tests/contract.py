"""A game contract any game of ours must pass (pgx's ``api_test``, OpenSpiel's ``random_sim_test``).

:func:`check_game` plays seeded random games and checks, at every state on the way:

* clone independence: playing on a copy leaves the original as it was;
* legal actions are non-empty, distinct and stable until the end, and the end has returns;
* a chance event's outcomes are its legal actions, with positive probabilities summing to 1;
* information-set keys reveal nothing hidden: a determinization for a player keeps that player's
  key (and legal actions when they decide), however the hidden part was drawn;
* determinization is consistent with the information set and reproducible for a seed;
* a playout is reproducible for a seed: the same actions and returns.

A game is reached through an :class:`Adapter`, so that our own verbs (``search.protocol.Game``:
Refuge, the toy games) and OpenSpiel's (``pyspiel.State``) are checked alike.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any, Callable, Hashable, Sequence

CHANCE = -1


@dataclass(frozen=True)
class Adapter:
    """How the contract reaches a game's verbs."""

    name: str
    new: Callable[[], Any]
    clone: Callable[[Any], Any]
    player: Callable[[Any], int]
    """The player to act; negative at chance (``CHANCE``) and at the end."""
    terminal: Callable[[Any], bool]
    legal: Callable[[Any], Sequence[int]]
    chance: Callable[[Any], Sequence[tuple[int, float]]]
    apply: Callable[[Any, int], None]
    returns: Callable[[Any], Sequence[float]]
    players: Callable[[Any], int]
    key: Callable[[Any, int], Hashable]
    """The information-set key of a player."""
    determinize: Callable[[Any, int, random.Random], Any]


def our_game(name: str, new: Callable[[], Any]) -> Adapter:
    """An adapter for a game with ``search.protocol.Game``'s verbs."""
    return Adapter(name, new, lambda s: s.copy(), lambda s: s.current_player(), lambda s: s.is_terminal(),
                   lambda s: list(s.legal_actions()), lambda s: list(s.chance_outcomes()),
                   lambda s, a: s.apply(a), lambda s: list(s.returns()), lambda s: s.players,
                   lambda s, p: s.information_set_key(p), lambda s, p, rng: s.determinize(p, rng))


def openspiel_game(name: str, game: Any) -> Adapter:
    """An adapter for an OpenSpiel game (``pyspiel.State``'s verbs)."""
    return Adapter(name, game.new_initial_state, lambda s: s.clone(),
                   lambda s: CHANCE if s.is_chance_node() else (-2 if s.is_terminal() else s.current_player()),
                   lambda s: s.is_terminal(), lambda s: list(s.legal_actions()),
                   lambda s: list(s.chance_outcomes()), lambda s, a: s.apply_action(a),
                   lambda s: list(s.returns()), lambda s: game.num_players(),
                   lambda s, p: s.information_state_string(p),
                   lambda s, p, rng: s.resample_from_infostate(p, rng.random))


def _fingerprint(game: Adapter, state: Any) -> tuple[object, ...]:
    """What the contract can observe of a state."""
    over = game.terminal(state)
    return (game.player(state), over, tuple(game.returns(state)) if over else tuple(game.legal(state)),
            tuple(game.key(state, p) for p in range(game.players(state))))


def _random_action(game: Adapter, state: Any, rng: random.Random) -> int:
    if game.player(state) == CHANCE:
        outcomes = game.chance(state)
        x = rng.random()
        for action, probability in outcomes:
            x -= probability
            if x < 0:
                return action
        return outcomes[-1][0]
    legal = game.legal(state)
    return legal[int(rng.random() * len(legal))]


def playout(game: Adapter, seed: int, limit: int = 10_000) -> tuple[list[int], list[float]]:
    """A random game from the start: its actions and returns (chance by its probabilities)."""
    rng = random.Random(seed)
    state = game.new()
    actions: list[int] = []
    while not game.terminal(state):
        assert len(actions) < limit, f"{game.name}: no end after {limit} events"
        action = _random_action(game, state, rng)
        game.apply(state, action)
        actions.append(action)
    return actions, list(game.returns(state))


def check_state(game: Adapter, state: Any, rng: random.Random) -> None:
    """The contract at one state (see the module docstring)."""
    where = f"{game.name} at {_fingerprint(game, state)[:2]}"
    before = _fingerprint(game, state)
    if game.terminal(state):
        returns = game.returns(state)
        assert len(returns) == game.players(state), where
        assert all(math.isfinite(r) for r in returns), where
        return
    legal = game.legal(state)
    assert legal, f"{where}: no legal action before the end"
    assert len(set(legal)) == len(legal), f"{where}: repeated legal actions {legal}"
    copy = game.clone(state)
    game.apply(copy, legal[-1])
    assert _fingerprint(game, state) == before, f"{where}: playing on a clone changed the original"
    player = game.player(state)
    if player == CHANCE:
        outcomes = game.chance(state)
        assert sorted(a for a, _ in outcomes) == sorted(legal), f"{where}: outcomes are not the legal actions"
        assert all(p > 0 for _, p in outcomes), f"{where}: an outcome without probability"
        assert math.isclose(sum(p for _, p in outcomes), 1.0, rel_tol=1e-9), f"{where}: probabilities sum to " \
            f"{sum(p for _, p in outcomes)}"
        return
    for seat in range(game.players(state)):
        seed = rng.getrandbits(32)
        world = game.determinize(state, seat, random.Random(seed))
        again = game.determinize(state, seat, random.Random(seed))
        assert game.key(world, seat) == game.key(state, seat), \
            f"{where}: determinizing for player {seat} changed their information set"
        assert _fingerprint(game, world) == _fingerprint(game, again), \
            f"{where}: determinizing for player {seat} is not reproducible for a seed"
        if seat == player:
            assert sorted(game.legal(world)) == sorted(legal), \
                f"{where}: a determinization changed the legal actions of the player to decide"
    assert _fingerprint(game, state) == before, f"{where}: determinizing changed the original"


def check_game(game: Adapter, seeds: Sequence[int] = (0, 1), every: int = 1) -> int:
    """Play a random game for each seed, checking the contract at every `every`-th state; the number
    of states checked. Raises AssertionError naming the game and the state that broke it."""
    checked = 0
    for seed in seeds:
        assert playout(game, seed) == playout(game, seed), f"{game.name}: playout {seed} not reproducible"
        rng = random.Random(seed)
        state = game.new()
        events = 0
        while True:
            if events % every == 0 or game.terminal(state):
                check_state(game, state, rng)
                checked += 1
            if game.terminal(state):
                break
            game.apply(state, _random_action(game, state, rng))
            events += 1
    return checked
