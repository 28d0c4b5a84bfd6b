"""The canonical state encoding: a position as a flat list of ints and back (docs/determinism.md,
"State encoding"), the format a native core and the differential tests exchange.

Every value fits a signed 64-bit int (the history is written as its two's-complement value);
sequences are their length then their items; tuples keep the order the state stores them, so
``from_ints(to_ints(s))`` equals `s` field by field.
"""

from __future__ import annotations

import functools
import operator
from typing import NoReturn, Sequence, TypeVar

from positions.errors import ImpossiblePositionError, InvalidActionError
from positions.kernel import phases
from positions.kernel.actions import Action, action_from_code
from positions.kernel.routes import ROUTES, Route, make_route
from positions.kernel.rulesets import RULESETS, Ruleset
from positions.kernel.state import State
from positions.kernel.tiles import KIND_COUNT, Kind

ENCODING_VERSION = 1
"""The first int of every encoding; changes whenever the layout does."""
CUSTOM = "custom"
"""The name of a ruleset or route the encoding does not match to a shipped one."""
S = TypeVar("S", bound=State)
_HALF = 1 << 63
_FULL = 1 << 64


def to_ints(pos: State) -> list[int]:
    """`pos` as the canonical list of ints (layout: docs/determinism.md, "State encoding")."""
    route = pos.route.kinds
    ints = [ENCODING_VERSION, *_ruleset_ints(pos.ruleset), len(route), *route,
            pos.players, pos.threshold, pos.walk, pos.turn, pos.phase, pos.actor]
    steps, vp, walking, owned_storms, pending = pos.steps, pos.vp, pos.walking, pos.owned_storms, pos.pending
    for p, (bag, hand, path, aside) in enumerate(zip(pos.bags, pos.hands, pos.paths, pos.set_aside)):
        ints += (len(bag), *bag, len(hand), *hand, len(path), *path, len(aside), *aside,  # one extend a player:
                 steps[p], vp[p], int(walking[p]), owned_storms[p], int(pending[p]))  # this runs every search
    history = pos.history
    ints += (pos.track_suns, pos.track_storms, pos.deck_suns, pos.deck_storms, pos.reserve, *pos.market,
             len(pos.box), *pos.box, history - _FULL if history >= _HALF else history,
             pos.tile, pos.extra_plays, pos.discards_left, pos.discards_required, len(pos.ties))
    for kind, tied, slots in pos.ties:
        ints += (kind, len(tied), *tied, slots)
    legal = pos.legal
    ints += (len(legal), *map(int, legal), len(pos.hidden_bags), *pos.hidden_bags)
    return ints


@functools.lru_cache(maxsize=16)
def _ruleset_ints(ruleset: Ruleset) -> tuple[int, ...]:
    """A ruleset's encoding (``Ruleset.to_ints``), made once per ruleset."""
    return ruleset.to_ints()


def from_ints(ints: Sequence[int], cls: type[S]) -> S:
    """The state `ints` encode, as a `cls` (``Position``), with the shipped ruleset and route when
    the data equal one (else ones named ``"custom"``). Checks the layout and each value's range,
    not the rules (``positions.validation.check_position`` does that for files).

    Raises:
        ImpossiblePositionError: not an encoding (one line naming the offset of the first bad int).
    """
    reader = _Reader(ints)
    version = reader.take("the encoding version")
    if version != ENCODING_VERSION:
        reader.fail(0, f"encoding version {version}, expected {ENCODING_VERSION}")
    pos = cls()
    pos.ruleset = _read_ruleset(reader)
    pos.route = _read_route(reader)
    players = pos.players = reader.take("players", 1, 64)
    if players not in pos.ruleset.player_counts:
        reader.fail(reader.offset - 1, f"{players} players: the ruleset has thresholds for "
                                       f"{pos.ruleset.player_counts}")
    pos.threshold = reader.take("threshold")
    pos.walk = reader.take("walk", 0)
    pos.turn = reader.take("turn", 0)
    pos.phase = reader.take("phase", 0, phases.OVER)
    pos.actor = reader.take("actor", phases.TERMINAL_PLAYER, players - 1)
    pos.bags, pos.hands, pos.paths, pos.set_aside = [], [], [], []
    pos.steps, pos.vp, pos.walking, pos.owned_storms, pos.pending = [], [], [], [], []
    for p in range(players):
        pos.bags.append(reader.kinds(f"player {p}'s bag"))
        pos.hands.append(reader.kinds(f"player {p}'s hand"))
        pos.paths.append(reader.kinds(f"player {p}'s path"))
        pos.set_aside.append(reader.kinds(f"player {p}'s set-aside tiles"))
        pos.steps.append(reader.take(f"player {p}'s Steps", 0))
        pos.vp.append(reader.take(f"player {p}'s VP", 0))
        pos.walking.append(bool(reader.take(f"player {p}'s walking flag", 0, 1)))
        pos.owned_storms.append(reader.take(f"player {p}'s Storms on the track", 0))
        pos.pending.append(reader.choice(f"player {p}'s pending choice"))
    pos.track_suns = reader.take("Suns on the track", 0)
    pos.track_storms = reader.take("Storms on the track", 0)
    pos.deck_suns = reader.take("Suns in the deck", 0)
    pos.deck_storms = reader.take("Storms in the deck", 0)
    pos.reserve = reader.take("the reserve", 0)
    pos.market = reader.counts("a market stack", KIND_COUNT)
    pos.box = reader.kinds("the box")
    history = reader.take("the history", -_HALF, _HALF - 1)
    pos.history = history + _FULL if history < 0 else history
    pos.tile = reader.take("the tile being resolved", -1, KIND_COUNT - 1)
    pos.extra_plays = reader.take("additional plays", 0)
    pos.discards_left = reader.take("discards left", 0)
    pos.discards_required = reader.take("discards required", 0)
    pos.ties = tuple(_read_tie(reader, players) for _ in range(reader.length("ties")))
    pos.legal = tuple(reader.action("a legal action") for _ in range(reader.length("legal actions")))
    pos.hidden_bags = tuple(reader.take("a hidden bag's player", 0, players - 1)
                            for _ in range(reader.length("hidden bags")))
    if reader.offset != len(ints):
        reader.fail(reader.offset, f"{len(ints) - reader.offset} ints after the end of the encoding")
    return pos


_SHIPPED_RULESETS = tuple(RULESETS.values())
_RULESET_INTS = tuple(ruleset.to_ints() for ruleset in _SHIPPED_RULESETS)
_SHIPPED_ROUTES = tuple(ROUTES.values())
_ROUTE_INTS = tuple((len(route.kinds), *route.kinds) for route in _SHIPPED_ROUTES)


def _read_ruleset(reader: _Reader) -> Ruleset:
    shipped = reader.shipped(_RULESET_INTS)
    if shipped >= 0:
        return _SHIPPED_RULESETS[shipped]
    start_bag = reader.kinds("the ruleset's start bag")
    thresholds = tuple((reader.take("a threshold's player count", 1, 64), reader.take("a threshold", 0))
                       for _ in range(reader.length("the ruleset's thresholds", 2)))
    penalised: tuple[Kind, ...] | None = None
    if reader.peek() == -1:
        reader.offset += 1
    else:
        penalised = reader.kinds("the ruleset's penalised kinds")
    rest = [reader.take(what, 0) for what in ("walks", "start Steps", "deck Suns", "deck Storms",
                                              "reserve Storms", "stack size")]
    return Ruleset(CUSTOM, start_bag, thresholds, penalised, *rest)


def _read_route(reader: _Reader) -> Route:
    shipped = reader.shipped(_ROUTE_INTS)
    if shipped >= 0:
        return _SHIPPED_ROUTES[shipped]
    start = reader.offset
    kinds = reader.kinds("the route")
    try:
        make_route(kinds)
    except ImpossiblePositionError as error:
        reader.fail(start, str(error))
    return Route(CUSTOM, kinds)


def _read_tie(reader: _Reader, players: int) -> tuple[Kind, tuple[int, ...], int]:
    kind = reader.take("a tie's kind", 0, KIND_COUNT - 1)
    tied = tuple(reader.take("a tied player", 0, players - 1) for _ in range(reader.length("a tie's players")))
    return kind, tied, reader.take("a tie's slots", 0)


class _Reader:
    """The ints of an encoding read in order, each checked, an error naming its offset."""

    def __init__(self, ints: Sequence[int]) -> None:
        self.ints = list(ints)
        self.offset = 0
        if set(map(type, self.ints)) <= {int} and (
                not self.ints or -_HALF <= min(self.ints) and max(self.ints) < _HALF):
            return
        for offset, value in enumerate(self.ints):
            if type(value) is not int:
                try:
                    self.ints[offset] = value = operator.index(value)
                except TypeError:
                    self.fail(offset, f"{value!r} is not an int")
            if not -_HALF <= value < _HALF:
                self.fail(offset, f"{value} does not fit a signed 64-bit int")

    def fail(self, offset: int, message: str) -> NoReturn:
        """Raise the one-line error for the int at `offset`."""
        raise ImpossiblePositionError(f"state encoding, int {offset}: {message}")

    def peek(self) -> int:
        """The next int, not taken."""
        if self.offset >= len(self.ints):
            self.fail(self.offset, "the encoding ends early")
        return self.ints[self.offset]

    def take(self, what: str, low: int = -_HALF, high: int = _HALF - 1) -> int:
        """The next int, which must lie in [low, high]."""
        offset = self.offset
        if offset >= len(self.ints):
            self.fail(offset, "the encoding ends early")
        value = self.ints[offset]
        if not low <= value <= high:
            self.fail(offset, f"{what} is {value}, expected {low} to {high}")
        self.offset = offset + 1
        return value

    def length(self, what: str, width: int = 1) -> int:
        """A sequence's length, which the ints left must be able to hold (`width` ints per item)."""
        return self.take(f"the number of {what}", 0, (len(self.ints) - self.offset - 1) // width)

    def kinds(self, what: str) -> tuple[Kind, ...]:
        """A sequence of tile kinds."""
        count = self.length(what)
        start = self.offset
        tiles = tuple(self.ints[start:start + count])
        if tiles and (min(tiles) < 0 or max(tiles) >= KIND_COUNT):
            bad = next(i for i, kind in enumerate(tiles) if not 0 <= kind < KIND_COUNT)
            self.fail(start + bad, f"a kind in {what} is {tiles[bad]}, expected 0 to {KIND_COUNT - 1}")
        self.offset += count
        return tiles

    def counts(self, what: str, count: int) -> tuple[int, ...]:
        """`count` ints, none negative."""
        start = self.offset
        values = tuple(self.ints[start:start + count])
        if len(values) < count:
            self.fail(len(self.ints), "the encoding ends early")
        if min(values) < 0:
            bad = next(i for i, value in enumerate(values) if value < 0)
            self.fail(start + bad, f"{what} is {values[bad]}, expected 0 or more")
        self.offset += count
        return values

    def shipped(self, candidates: Sequence[tuple[int, ...]]) -> int:
        """The index of the candidate the next ints start with (taken), or -1 (nothing taken)."""
        start = self.offset
        for index, candidate in enumerate(candidates):
            if tuple(self.ints[start:start + len(candidate)]) == candidate:
                self.offset += len(candidate)
                return index
        return -1

    def action(self, what: str) -> Action:
        """An action code."""
        code = self.take(what, 0)
        try:
            return action_from_code(code)
        except InvalidActionError:
            self.fail(self.offset - 1, f"{what}: no action has code {code}")

    def choice(self, what: str) -> int:
        """A pending choice: -1 for none, else an action code."""
        if self.peek() == -1:
            self.offset += 1
            return -1
        return self.action(what)
