"""Routes: the 8 market stacks of a game (rulebook, "The Routes"; C3)."""

from __future__ import annotations

from typing import NamedTuple

from positions.errors import ImpossiblePositionError, did_you_mean
from positions.kernel.tiles import KIND_BY_NAME, NATURE_KINDS, OBJECT_KINDS, TILES, Kind


class Route(NamedTuple):
    """A route: 4 object kinds and 4 landscape/animal kinds, each a stack in the market."""

    name: str
    kinds: tuple[Kind, ...]

    @property
    def objects(self) -> tuple[Kind, ...]:
        """The 4 object stacks."""
        return self.kinds[:4]

    @property
    def nature(self) -> tuple[Kind, ...]:
        """The 4 landscape/animal stacks."""
        return self.kinds[4:]


def make_route(kinds: list[Kind] | tuple[Kind, ...], name: str = "custom") -> Route:
    """A route from 8 kinds: 4 distinct objects and 4 distinct landscapes/animals (C3).

    Raises:
        ImpossiblePositionError: the kinds do not form a route.
    """
    objects = sorted((k for k in kinds if k in OBJECT_KINDS), key=lambda k: (TILES[k].cost, k))
    nature = sorted((k for k in kinds if k in NATURE_KINDS), key=lambda k: (TILES[k].cost, k))
    if len(set(kinds)) != 8 or len(objects) != 4 or len(nature) != 4:
        names = ", ".join(TILES[k].name if 0 <= k < len(TILES) else str(k) for k in kinds)
        raise ImpossiblePositionError(
            f"a route needs 4 distinct buyable object kinds and 4 distinct landscape/animal kinds, "
            f"got [{names}]"
        )
    return Route(name, tuple(objects) + tuple(nature))


def _named(name: str, *kind_names: str) -> Route:
    return make_route([KIND_BY_NAME[n] for n in kind_names], name)


ROUTES: dict[str, Route] = {
    route.name: route
    for route in (
        _named("meadows", "compass", "shepherd", "sunglasses", "canteen",
               "rabbit", "bird", "deer", "magnificent_tree"),
        _named("forest", "camera", "backpack", "hiker", "big_orientation_table",
               "fox", "cave", "observation_hut", "bear"),
        _named("mountains", "cairn", "hiking_poles", "toasted_marshmallows", "map",
               "suspension_bridge", "big_lake", "the_summit", "starry_night"),
    )
}
"""The rulebook's three suggested routes: The Charm of the Meadows, In the Shade of the Forest,
Climbing in the Mountains."""


def parse_route(text: str) -> Route:
    """A route by name (``meadows``) or as 8 comma-separated kind names.

    Raises:
        ImpossiblePositionError: unknown name, unknown kind, or not a valid route.
    """
    text = text.strip()
    if text in ROUTES:
        return ROUTES[text]
    names = [part.strip() for part in text.split(",") if part.strip()]
    if len(names) == 1:
        raise ImpossiblePositionError(
            f"unknown route {text!r}{did_you_mean(text, ROUTES)}: expected one of {', '.join(ROUTES)} "
            "or 8 comma-separated kinds"
        )
    unknown = [n for n in names if n not in KIND_BY_NAME]
    if unknown:
        raise ImpossiblePositionError(f"unknown tile kind {unknown[0]!r}"
                                      f"{did_you_mean(unknown[0], KIND_BY_NAME)} in route {text!r}")
    return make_route([KIND_BY_NAME[n] for n in names])
