"""Refuge, the game: tile catalogue, routes, rulesets, positions, rules and notation."""

from positions.kernel.actions import Action, parse_action
from positions.errors import (
    IllegalActionError, ImpossiblePositionError, InvalidActionError, MalformedFileError, RefugeError,
)
from positions.kernel.phases import CHANCE_PLAYER, TERMINAL_PLAYER
from positions.kernel.position import Player, Position
from positions.kernel.routes import ROUTES, Route, make_route, parse_route
from positions.kernel.rulesets import DEFAULT_RULESET, RULES_VERSION, RULESETS, Ruleset
from positions.kernel.tiles import KIND_BY_NAME, STORM, TILES, Kind, TileKind

__all__ = [
    "Action", "parse_action",
    "RefugeError", "IllegalActionError", "ImpossiblePositionError", "InvalidActionError",
    "MalformedFileError",
    "CHANCE_PLAYER", "TERMINAL_PLAYER", "Player", "Position",
    "ROUTES", "Route", "make_route", "parse_route",
    "DEFAULT_RULESET", "RULES_VERSION", "RULESETS", "Ruleset",
    "KIND_BY_NAME", "STORM", "TILES", "Kind", "TileKind",
]
