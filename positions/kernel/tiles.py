"""The tile catalogue: every tile kind of Refuge as data (rulebook, "The Tiles in Detail")."""

from __future__ import annotations

from typing import NamedTuple

Kind = int
"""A tile kind, an index into :data:`TILES`."""

OBJECT = "object"
ANIMAL = "animal"
LANDSCAPE = "landscape"
WEATHER = "weather"


class Effect(NamedTuple):
    """One way to resolve a tile's effect; an "X OR Y" tile has two (C9)."""

    name: str = "effect"
    steps: int = 0
    vp: int = 0
    steps_per_sun: int = 0
    vp_per_sun: int = 0
    steps_per_path_tile: int = 0
    vp_per_path_tile: int = 0
    steps_per_paw: int = 0
    vp_per_paw: int = 0
    pay_vp: int = 0
    pay_steps: int = 0
    extra_plays: int = 0
    discards: int = 0
    discards_required: int = 0


class TileKind(NamedTuple):
    """A kind of tile: its catalogue facts."""

    kind: Kind
    name: str
    title: str
    category: str
    cost: int
    priority: bool
    paw: int
    effects: tuple[Effect, ...]
    is_start: bool = False

    @property
    def has_choice(self) -> bool:
        """Whether playing it asks for an "X OR Y" option (C9)."""
        return len(self.effects) > 1


def _single(**gain: int) -> tuple[Effect, ...]:
    return (Effect("effect", **gain),)


def _either(first: Effect, second: Effect) -> tuple[Effect, ...]:
    return (first, second)


_NONE = _single()

TILES: tuple[TileKind, ...] = (
    TileKind(0, "storm", "Storm", WEATHER, 0, False, 0, _NONE),
    # Start tiles (rulebook: "marked with a colored corner tab instead of a Step cost").
    TileKind(1, "sign", "Sign", OBJECT, 0, False, 0, _single(steps=1), True),
    TileKind(2, "signpost", "Signpost", OBJECT, 0, False, 0, _single(steps=2), True),
    TileKind(3, "small_orientation_table", "Small Orientation Table", OBJECT, 0, False, 0,
             _either(Effect("vp", vp=3), Effect("steps", steps=3)), True),
    TileKind(4, "butterfly", "Butterfly", ANIMAL, 0, False, 1, _single(vp=1), True),
    TileKind(5, "hedgehog", "Hedgehog", ANIMAL, 0, False, 2, _single(vp=1), True),
    TileKind(6, "squirrel", "Squirrel", ANIMAL, 0, False, 1, _single(vp=2), True),
    # Objects.
    TileKind(7, "compass", "Compass", OBJECT, 2, False, 0,
             _either(Effect("play", extra_plays=1), Effect("steps", steps=3))),
    TileKind(8, "camera", "Camera", OBJECT, 2, False, 0, _single(steps_per_paw=1)),
    TileKind(9, "cairn", "Cairn", OBJECT, 2, False, 0,
             _either(Effect("discard", discards=1, discards_required=1), Effect("steps", steps=3))),
    TileKind(10, "shepherd", "Shepherd", OBJECT, 3, False, 0, _single(steps=2, extra_plays=1)),
    TileKind(11, "backpack", "Backpack", OBJECT, 3, False, 0, _single(steps=4)),
    TileKind(12, "hiking_poles", "Hiking Poles", OBJECT, 3, False, 0,
             _single(steps_per_path_tile=1)),
    TileKind(13, "sunglasses", "Sunglasses", OBJECT, 4, False, 0, _single(steps_per_sun=3)),
    TileKind(14, "hiker", "Hiker", OBJECT, 4, False, 0, _single(steps=2, discards=1)),
    TileKind(15, "toasted_marshmallows", "Toasted Marshmallows", OBJECT, 4, True, 0,
             _single(pay_vp=2, steps=7)),
    TileKind(16, "canteen", "Canteen", OBJECT, 5, False, 0, _single(steps=5)),
    TileKind(17, "big_orientation_table", "Big Orientation Table", OBJECT, 5, False, 0,
             _either(Effect("vp", vp=3), Effect("steps", steps=5))),
    TileKind(18, "map", "Map", OBJECT, 5, False, 0, _single(extra_plays=2)),
    # Animals.
    TileKind(19, "rabbit", "Rabbit", ANIMAL, 4, False, 2, _single(vp=2)),
    TileKind(20, "fox", "Fox", ANIMAL, 4, False, 4, _NONE),
    TileKind(21, "bird", "Bird", ANIMAL, 6, False, 2, _single(vp_per_sun=2)),
    TileKind(22, "deer", "Deer", ANIMAL, 8, False, 5, _single(vp=3)),
    TileKind(23, "bear", "Bear", ANIMAL, 12, False, 6, _single(vp=6)),
    # Landscapes.
    TileKind(24, "suspension_bridge", "Suspension Bridge", LANDSCAPE, 4, True, 0, _single(vp=4)),
    TileKind(25, "cave", "Cave", LANDSCAPE, 6, False, 0,
             _either(Effect("discard", discards=2, discards_required=1), Effect("vp", vp=4))),
    TileKind(26, "big_lake", "Big Lake", LANDSCAPE, 6, False, 0, _single(vp=5)),
    TileKind(27, "observation_hut", "Observation Hut", LANDSCAPE, 8, False, 0,
             _single(vp_per_paw=1)),
    TileKind(28, "the_summit", "The Summit", LANDSCAPE, 8, False, 0, _single(pay_steps=2, vp=8)),
    TileKind(29, "magnificent_tree", "Magnificent Tree", LANDSCAPE, 12, False, 0, _single(vp=10)),
    TileKind(30, "starry_night", "Starry Night", LANDSCAPE, 12, False, 0,
             _single(vp=3, vp_per_path_tile=1)),
)

STORM: Kind = 0
KIND_COUNT = len(TILES)
KIND_BY_NAME: dict[str, Kind] = {tile.name: tile.kind for tile in TILES}

COST: tuple[int, ...] = tuple(tile.cost for tile in TILES)
PAW: tuple[int, ...] = tuple(tile.paw for tile in TILES)
PRIORITY: tuple[bool, ...] = tuple(tile.priority for tile in TILES)

START_KINDS: tuple[Kind, ...] = tuple(tile.kind for tile in TILES if tile.is_start)
BUYABLE_KINDS: tuple[Kind, ...] = tuple(
    tile.kind for tile in TILES if not tile.is_start and tile.kind != STORM
)
OBJECT_KINDS: tuple[Kind, ...] = tuple(k for k in BUYABLE_KINDS if TILES[k].category == OBJECT)
NATURE_KINDS: tuple[Kind, ...] = tuple(k for k in BUYABLE_KINDS if TILES[k].category != OBJECT)
