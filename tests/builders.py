"""Helpers that build exact positions for rules tests and drive them with explicit actions."""

from __future__ import annotations

import random
from collections import Counter
from typing import Callable, Iterable, Sequence

from positions import Position, parse_action
from positions.kernel import rules
from positions.kernel.actions import DRAW, Action
from positions.kernel.phases import DECIDE, DISCARD, OPTION
from positions.kernel.routes import Route
from positions.kernel.rulesets import DEFAULT_RULESET, Ruleset
from positions.kernel.tiles import KIND_BY_NAME, STORM, Kind


def kinds(names: str | Iterable[str]) -> tuple[Kind, ...]:
    """Kinds from snake_case names: ``kinds("compass sign sign")`` or a list of names."""
    words = names.split() if isinstance(names, str) else list(names)
    return tuple(KIND_BY_NAME[word] for word in words)


def build(
    players: int = 2,
    route: Route | str = "meadows",
    *,
    bags: Sequence[str] | None = None,
    paths: Sequence[str] | None = None,
    steps: Sequence[int] | None = None,
    vp: Sequence[int] | None = None,
    owned_storms: Sequence[int] | None = None,
    track_suns: int | None = None,
    track_storms: int | None = None,
    deck: tuple[int, int] | None = None,
    reserve: int | None = None,
    walk: int | None = None,
    market: dict[str, int] | None = None,
    ruleset: Ruleset = DEFAULT_RULESET,
) -> Position:
    """A new game with the given facts overwritten, at the start of a turn (DECIDE).

    Bags and paths are strings of kind names per player (``"compass sign"``); ``deck`` is
    (suns, storms) left in the weather deck; ``market`` maps kind names to stack sizes.
    The turn is restarted after the edits, so the first decision reflects them.
    """
    pos = Position.new_game(players, route, ruleset)
    if bags is not None:
        pos.bags = [kinds(bag) for bag in bags]
    if paths is not None:
        pos.paths = [kinds(path) for path in paths]
    if steps is not None:
        pos.steps = list(steps)
    if vp is not None:
        pos.vp = list(vp)
    if owned_storms is not None:
        pos.owned_storms = list(owned_storms)
    if track_suns is not None:
        pos.track_suns = track_suns
    if track_storms is not None:
        pos.track_storms = track_storms
    if deck is not None:
        pos.deck_suns, pos.deck_storms = deck
    if reserve is not None:
        pos.reserve = reserve
    if walk is not None:
        pos.walk = walk
    if market is not None:
        stacks = list(pos.market)
        for name, count in market.items():
            stacks[KIND_BY_NAME[name]] = count
        pos.market = tuple(stacks)
    rules.start_turn(pos)
    return pos


def run(pos: Position, *notations: str) -> Position:
    """Apply each action, given in notation, in order; returns the same position."""
    for text in notations:
        pos.apply(parse_action(text))
    return pos


def legal(pos: Position) -> list[str]:
    """The legal actions (or chance outcomes) in notation."""
    return [str(action) for action in pos.legal_actions()]


def solo(pos: Position, *notations: str) -> Position:
    """Player 0 draws and every other player goes home at once, then apply `notations`.

    Players 1.. with empty paths go home with no further decision (an empty bag forces it).
    """
    run(pos, "draw")
    while pos.phase == DECIDE and pos.actor > 0:
        run(pos, "return")
    return run(pos, *notations)


def census(pos: Position) -> tuple[Counter[Kind], int, int]:
    """Where every tile is: per-kind totals over bags, hands, paths, set-aside, owned Storms,
    market, box and the tile being resolved, plus the weather Storms (deck + track + reserve) and Suns (deck + track)."""
    tiles: Counter[Kind] = Counter()
    for player in range(pos.players):
        tiles.update(pos.bags[player])
        tiles.update(pos.hands[player])
        tiles.update(pos.paths[player])
        tiles.update(pos.set_aside[player])
        tiles[STORM] += pos.owned_storms[player]
    for kind, count in enumerate(pos.market):
        tiles[kind] += count
    tiles.update(pos.box)
    if pos.phase in (OPTION, DISCARD):
        tiles[pos.tile] += 1  # the tile being resolved: out of the hand, not yet in the path
    weather_storms = pos.deck_storms + pos.track_storms + pos.reserve
    weather_suns = pos.deck_suns + pos.track_suns
    return +tiles, weather_storms, weather_suns


def random_step(pos: Position, rng: random.Random, prefer_draw: float = 0.0) -> Action:
    """Apply one random decision (uniform; at DECIDE, "draw" with probability `prefer_draw` so walks
    last longer) or one sampled chance outcome; returns it."""
    if pos.is_chance():
        action = pos.sample_chance(rng)
    elif prefer_draw and pos.phase == DECIDE and DRAW in pos.legal_actions() \
            and rng.random() < prefer_draw:
        action = DRAW
    else:
        options = pos.legal_actions()
        action = options[int(rng.random() * len(options))]
    pos.apply(action)
    return action


def play_out(pos: Position, rng: random.Random,
             each: Callable[[Position, Action], None] | None = None) -> Position:
    """Random play to the end; ``each(pos, action)`` is called after every action."""
    while not pos.is_terminal():
        action = random_step(pos, rng)
        if each is not None:
            each(pos, action)
    return pos


def random_decisions(seed: int, players: int, count: int) -> list[Position]:
    """Decisions of random games (a draw preferred, so walks last), `count` of them."""
    rng = random.Random(seed)
    found: list[Position] = []
    while len(found) < count:
        pos = Position.new_game(players, rng.choice(["meadows", "forest", "mountains"]))
        while not pos.is_terminal() and len(found) < count:
            if not pos.is_chance() and rng.random() < 0.2:
                found.append(pos.copy())
            random_step(pos, rng, prefer_draw=0.7)
    return found


def midgame(seed: int = 4, decisions: int = 25) -> Position:
    """A 2-player position some heuristic decisions into the game, at a decision."""
    from positions.kernel.heuristics import DEFAULT_ROLLOUT

    rng = random.Random(seed)
    pos = Position.new_game(2, "meadows")
    made = 0
    while True:
        if pos.is_chance():
            pos.apply(pos.sample_chance(rng))
            continue
        if made >= decisions:
            return pos
        pos.apply(DEFAULT_ROLLOUT.choose(pos, rng))
        made += 1

