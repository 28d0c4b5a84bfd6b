"""The fields of a position, with no rules: what :mod:`positions.kernel.rules` reads and changes."""

from __future__ import annotations

from positions.kernel.actions import Action
from positions.kernel.routes import Route
from positions.kernel.rulesets import Ruleset
from positions.kernel.tiles import Kind

Player = int
"""A seat, 0 to players - 1."""


FIELDS = (
    "ruleset", "route", "players", "threshold",
    "walk", "turn", "phase", "actor",
    "bags", "hands", "paths", "set_aside", "steps", "vp", "walking", "owned_storms",
    "track_suns", "track_storms", "deck_suns", "deck_storms", "reserve",
    "market", "box", "pending", "history",
    "tile", "extra_plays", "discards_left", "discards_required", "ties", "legal", "hidden_bags",
)
"""Every field of a position, in a fixed order."""


class State:
    """The facts of a game of Refuge at one moment: public facts, each player's tiles, the turn's progress.

    Bags are multisets (tuples of kinds): which tile comes out is a chance event at draw time, so a
    bag has no hidden order to keep. Tuples are never mutated, so ``copy()`` shares them.
    """

    __slots__ = FIELDS

    ruleset: Ruleset
    route: Route
    players: int
    threshold: int
    walk: int
    turn: int
    phase: int
    actor: int
    bags: list[tuple[Kind, ...]]
    hands: list[tuple[Kind, ...]]
    paths: list[tuple[Kind, ...]]
    set_aside: list[tuple[Kind, ...]]
    steps: list[int]
    vp: list[int]
    walking: list[bool]
    owned_storms: list[int]
    track_suns: int
    track_storms: int
    deck_suns: int
    deck_storms: int
    reserve: int
    market: tuple[int, ...]
    box: tuple[Kind, ...]
    pending: list[int]
    history: int
    tile: Kind
    extra_plays: int
    discards_left: int
    discards_required: int
    ties: tuple[tuple[Kind, tuple[Player, ...], int], ...]
    legal: tuple[Action, ...]
    hidden_bags: tuple[Player, ...]
    """Players whose bag the player to decide cannot know (a saved position's ``"bag": "unknown"``):
    :meth:`~positions.kernel.position.Position.determinize` deals them afresh. Empty in a played game."""
