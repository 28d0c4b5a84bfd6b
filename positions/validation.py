"""Reading untrusted JSON: every problem collected with its JSON path, and "did you mean" hints.

A reader walks a decoded JSON value, records each problem as ``JSONPATH: what was found, what was
expected`` and carries on with a default, so that one run reports every error at once. Nothing here
raises until :meth:`Problems.raise_if_any`; nothing recurses into values of unknown depth, so deeply
nested or huge input cannot crash a reader.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Sequence

from positions.kernel import phases, rules
from positions.errors import MalformedFileError, RefugeError, did_you_mean
from positions.files import read_text_file  # noqa: F401 - where readers have long found it
from positions.kernel.position import Position
from positions.kernel.tiles import KIND_BY_NAME, KIND_COUNT, STORM, TILES, Kind

JsonPath = tuple["str | int", ...]
"""Where a value sits in a document: keys and list indices from the top."""

MAX_COUNT = 10_000
"""The largest count or number a file may hold; anything bigger is a typo or an attack."""

COMMENT_PREFIX = "_"
"""Object keys starting with this are comments (JSON has none): readers skip them."""


def json_path(path: JsonPath) -> str:
    """The path in JSONPath-like notation: ``players[1].bag``; ``$`` is the whole document."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else part
    return text or "$"


def describe(value: object) -> str:
    """A short, one-line description of a JSON value for an error message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        text = repr(value)
        return f"the number {text if len(text) <= 24 else text[:20] + '...'}"
    if isinstance(value, str):
        text = value if len(value) <= 40 else value[:37] + "..."
        return f"the string {text!r}"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def normal_name(text: str) -> str:
    """A tile or phase name as typed by a person, normalised: ``Big Lake`` -> ``big_lake``."""
    return "_".join(text.strip().lower().replace("-", " ").split())


MAX_KEPT = 1000
"""Problems of one document kept with their message; beyond them only counted (a document of a
million unknown keys costs a count, not a million suggestions)."""


class Problems:
    """Every problem found in one document, in the order found (the first :data:`MAX_KEPT` in
    words, the rest counted)."""

    def __init__(self, source: str = "") -> None:
        self.source = source
        self.messages: list[str] = []
        self.more = 0
        """Problems found beyond :data:`MAX_KEPT`."""

    @property
    def full(self) -> bool:
        """Whether a new problem would only be counted (so a caller need not word it)."""
        return len(self.messages) >= MAX_KEPT

    def add(self, path: JsonPath, message: str) -> None:
        """Record that the value at `path` is wrong, and how."""
        if self.full:
            self.more += 1
            return
        self.messages.append(f"{json_path(path)}: {message}")

    def __bool__(self) -> bool:
        return bool(self.messages)

    def __len__(self) -> int:
        return len(self.messages) + self.more

    def lines(self) -> list[str]:
        """One line per problem, prefixed by the source (file name) if known."""
        prefix = f"{self.source}: " if self.source else ""
        more = [f"{prefix}$: and {self.more} more problems"] if self.more else []
        return [prefix + message for message in self.messages] + more

    def raise_if_any(self, error: type[RefugeError]) -> None:
        """Raise `error` carrying every problem, one per line, if there is any.

        Raises:
            RefugeError: the given subclass, when a problem was recorded.
        """
        if self.messages:
            raised = error("\n".join(self.lines()))
            raised.problem_count = len(self)  # type: ignore[attr-defined]
            raise raised


# --- typed field readers -------------------------------------------------------------------------

def read_object(value: object, path: JsonPath, problems: Problems, fields: Sequence[str],
                required: Sequence[str] = ()) -> dict[str, object] | None:
    """`value` as an object whose keys are among `fields` (comments aside); ``None`` if it is not one."""
    if not isinstance(value, dict):
        problems.add(path, f"found {describe(value)}, expected an object")
        return None
    result: dict[str, object] = {}
    for key, item in value.items():
        if not isinstance(key, str) or key.startswith(COMMENT_PREFIX):
            continue
        if key not in fields:
            hint = "" if problems.full else did_you_mean(key, fields)
            problems.add(path + (key,), f"unknown field{hint}; expected one of {', '.join(fields)}")
            continue
        result[key] = item
    for key in required:
        if key not in result:
            problems.add(path + (key,), "missing, it is required")
    return result


def read_int(value: object, path: JsonPath, problems: Problems, low: int = 0,
             high: int = MAX_COUNT) -> int | None:
    """`value` as a whole number in ``[low, high]``; ``None`` (recorded) if it is not."""
    if isinstance(value, bool) or not isinstance(value, int):
        problems.add(path, f"found {describe(value)}, expected a whole number from {low} to {high}")
        return None
    if not low <= value <= high:
        problems.add(path, f"found {describe(value)}, expected a whole number from {low} to {high}")
        return None
    return value


def read_str(value: object, path: JsonPath, problems: Problems) -> str | None:
    """`value` as a string; ``None`` (recorded) if it is not one."""
    if not isinstance(value, str):
        problems.add(path, f"found {describe(value)}, expected a string")
        return None
    if not is_unicode(value):
        problems.add(path, f"found {describe(value)} with a lone surrogate, expected Unicode text")
        return None
    return value


def is_unicode(text: str) -> bool:
    """Whether `text` can be written as UTF-8 (JSON's ``\\ud800`` escapes can make lone surrogates)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def read_choice(value: object, path: JsonPath, problems: Problems,
                choices: Sequence[str]) -> str | None:
    """`value` as one of `choices` (names normalised like tile names); ``None`` if not."""
    text = read_str(value, path, problems)
    if text is None:
        return None
    normal = normal_name(text).replace("_", "-")
    for choice in choices:
        if normal == choice.replace("_", "-"):
            return choice
    problems.add(path, f"found {describe(value)}" + ("" if problems.full else did_you_mean(normal, choices))
                 + f", expected one of {', '.join(choices)}")
    return None


def read_list(value: object, path: JsonPath, problems: Problems,
              max_length: int = MAX_COUNT) -> list[object] | None:
    """`value` as a list of at most `max_length` items; ``None`` (recorded) if not."""
    if not isinstance(value, list):
        problems.add(path, f"found {describe(value)}, expected a list")
        return None
    if len(value) > max_length:
        problems.add(path, f"found {describe(value)}, expected at most {max_length} items")
        return None
    return value


def read_kind(value: object, path: JsonPath, problems: Problems) -> Kind | None:
    """`value` as a tile kind name (``big_lake``, ``Big Lake``); ``None`` (recorded) if unknown."""
    text = read_str(value, path, problems)
    if text is None:
        return None
    name = normal_name(text)
    if name in KIND_BY_NAME:
        return KIND_BY_NAME[name]
    problems.add(path, f"unknown tile kind {text[:40]!r}"
                 + ("" if problems.full else did_you_mean(name, KIND_BY_NAME)))
    return None


def read_kind_list(value: object, path: JsonPath, problems: Problems) -> tuple[Kind, ...]:
    """`value` as a list of tile names in order (unreadable names are recorded and skipped)."""
    items = read_list(value, path, problems, max_length=200)
    if items is None:
        return ()
    kinds = (read_kind(item, path + (i,), problems) for i, item in enumerate(items))
    return tuple(k for k in kinds if k is not None)


def read_kind_counts(value: object, path: JsonPath, problems: Problems) -> tuple[Kind, ...]:
    """`value` as ``{tile name: count}`` (or a list of names): a sorted multiset of kinds."""
    if isinstance(value, list):
        return tuple(sorted(read_kind_list(value, path, problems)))
    if not isinstance(value, dict):
        problems.add(path, f"found {describe(value)}, expected an object of tile name: count")
        return ()
    kinds: list[Kind] = []
    for name, count in value.items():
        if not isinstance(name, str) or name.startswith(COMMENT_PREFIX):
            continue
        kind = read_kind(name, path + (name,), problems)
        number = read_int(count, path + (name,), problems, 0, 200)
        if kind is not None and number is not None:
            kinds.extend([kind] * number)
    return tuple(sorted(kinds))


def check_position(pos: Position, problems: Problems) -> None:
    """Record every way `pos` breaks the rules' invariants (tile totals, Storms, weather, phase).

    Paths name the fields of a saved position (docs/formats.md), so the same messages serve files
    and positions built in code.
    """
    _check_tile_totals(pos, problems)
    _check_storms(pos, problems)
    _check_weather(pos, problems)
    _check_phase(pos, problems)
    _check_path_lengths(pos, problems)


def in_flight(pos: Position) -> Kind | None:
    """The tile being resolved: out of the hand, not yet in the path (OPTION and DISCARD, C9)."""
    if pos.phase in (phases.OPTION, phases.DISCARD) and 0 <= pos.tile < KIND_COUNT:
        return pos.tile
    return None


def holdings(pos: Position, player: int) -> list[Kind]:
    """Every walk tile and Storm `player` has: bag, hand, path, set aside and the tile in flight."""
    tiles = list(pos.bags[player] + pos.hands[player] + pos.paths[player] + pos.set_aside[player])
    if player == pos.actor and in_flight(pos) is not None:
        tiles.append(pos.tile)
    return tiles


def _check_tile_totals(pos: Position, problems: Problems) -> None:
    ruleset = pos.ruleset
    held = [Counter(holdings(pos, p)) for p in range(pos.players)]
    boxed = Counter(pos.box)
    for player in range(pos.players):
        for where, kept in (("hand", pos.hands), ("path", pos.paths), ("set_aside", pos.set_aside)):
            if STORM in kept[player]:
                problems.add(("players", player, where),
                             "a Storm, expected walk tiles only (a drawn Storm goes onto the track, C7)")
    if STORM in boxed:
        problems.add(("box",), "a Storm, expected walk tiles only (Storms are never discarded, C11)")
    for kind in range(KIND_COUNT):
        if kind == STORM:
            continue
        name = TILES[kind].name
        in_route = kind in pos.route.kinds
        per_player = ruleset.start_bag.count(kind)
        supply = rules.supply(pos, kind)
        if not in_route and pos.market[kind]:
            problems.add(("market", name), f"found {pos.market[kind]}, expected 0 ({name} is not a "
                         f"stack of route {pos.route.name}, C3)")
        if supply == 0:
            for player in range(pos.players):
                if held[player][kind]:
                    problems.add(("players", player), f"holds {name}, which is neither in the start "
                                 f"bag (C1) nor in route {pos.route.name} (C3)")
            if boxed[kind]:
                problems.add(("box", name), f"{name} is neither in the start bag nor in the route")
            continue
        total = sum(h[kind] for h in held) + boxed[kind] + pos.market[kind]
        if total != supply:
            why = (f"a stack of {ruleset.stack_size} in the route, C3" if in_route and not per_player
                   else f"{per_player} in each of {pos.players} start bags, C1" if not in_route
                   else f"a stack of {ruleset.stack_size} and {per_player} per start bag")
            place = _where_counted_wrong(pos, kind, held, boxed, total > supply)
            problems.add(place, f"{sum(h[kind] for h in held)} held by players + {boxed[kind]} in the "
                         f"box + {pos.market[kind]} in the market = {total} {name}, expected {supply} "
                         f"({why})")


def _where_counted_wrong(pos: Position, kind: Kind, held: list[Counter[Kind]], boxed: Counter[Kind],
                         too_many: bool) -> JsonPath:
    """The JSON path to blame for a wrong tile total: too many go to the holder of the most (the
    market or the box only if it holds some: a file without a box has one derived, never too full);
    too few to the market of a route stack, else the box, where the missing tiles would be."""
    name = TILES[kind].name
    if too_many:
        if kind in pos.route.kinds and pos.market[kind]:
            return ("market", name)
        if boxed[kind]:
            return ("box", name)
        return ("players", max(range(pos.players), key=lambda p: (held[p][kind], -p)))
    return ("market", name) if kind in pos.route.kinds else ("box", name)


def _check_storms(pos: Position, problems: Problems) -> None:
    start = pos.ruleset.start_storms
    for player in range(pos.players):
        in_bag = pos.bags[player].count(STORM)
        if in_bag + pos.owned_storms[player] != start:
            problems.add(("players", player, "storms"),
                         f"{in_bag} Storm in the bag + {pos.owned_storms[player]} on the track = "
                         f"{in_bag + pos.owned_storms[player]}, expected {start} (the start bag's "
                         f"Storms, C1)")


def _check_weather(pos: Position, problems: Problems) -> None:
    ruleset = pos.ruleset
    if pos.track_suns + pos.deck_suns != ruleset.deck_suns:
        problems.add(("weather", "deck_suns"),
                     f"{pos.track_suns} Sun on the track + {pos.deck_suns} in the deck, expected "
                     f"{ruleset.deck_suns} Suns in all (C4)")
    from_deck = ruleset.deck_storms - pos.deck_storms
    from_reserve = ruleset.reserve_storms - pos.reserve
    if not (0 <= pos.deck_storms <= ruleset.deck_storms and 0 <= pos.reserve <= ruleset.reserve_storms
            and pos.track_storms == from_deck + from_reserve):
        problems.add(("weather", "track_storms"),
                     f"{pos.track_storms} Storm from the deck and reserve on the track, but the deck "
                     f"has {pos.deck_storms} of {ruleset.deck_storms} left and the reserve "
                     f"{pos.reserve} of {ruleset.reserve_storms} (C4)")
    if from_reserve > 0 and pos.deck_suns + pos.deck_storms > 0:
        problems.add(("weather", "reserve"),
                     f"{from_reserve} reserve Storm used while the deck still has tiles, expected "
                     f"the reserve to be used only once the deck is empty (C13)")
    if pos.phase == phases.OVER:
        return
    capacity = ruleset.deck_suns + ruleset.deck_storms + ruleset.reserve_storms
    turned = pos.track_suns + pos.track_storms
    if turned != min(pos.turn, capacity):
        problems.add(("turn",), f"found turn {pos.turn + 1} with {turned} weather tiles on the track, "
                     f"expected turn {turned + 1} (one tile is turned at the end of each turn, C13)")
    if pos.phase == phases.DECIDE and pos.storms_on_track() >= pos.threshold:
        problems.add(("weather",), f"{pos.storms_on_track()} Storms on the track at the start of a "
                     f"turn, expected fewer than {pos.threshold} (the Storm would have hit, C5)")


def most_extra_plays(kind: Kind) -> int:
    """The most additional plays a tile can give (Compass's option, Shepherd: 1; Map: 2; C10)."""
    return max(effect.extra_plays for effect in TILES[kind].effects)


def _check_path_lengths(pos: Position, problems: Problems) -> None:
    """A path holds at most one tile per turn of this walk (C8) plus the additional plays (C10) its
    tiles and the discarded ones (C11: in the box) could have given."""
    if pos.phase == phases.OVER:
        return
    before_playing = pos.phase in (phases.DECIDE, phases.RETURN_DISCARD, phases.DEAL, phases.CHOOSE)
    turns = pos.turn + (0 if before_playing else 1)
    from_box = sum(most_extra_plays(k) for k in pos.box)
    for player in range(pos.players):
        path = pos.paths[player]
        extra = sum(most_extra_plays(k) for k in path) + from_box
        if player == pos.actor and in_flight(pos) is not None:
            extra += most_extra_plays(pos.tile)
        if len(path) > turns + extra:
            problems.add(("players", player, "path"),
                         f"found {len(path)} tiles after {turns} turn(s) of play in this walk with "
                         f"{extra} additional play(s) from its tiles and the box, expected at most "
                         f"{turns + extra} (one tile a turn, C8, plus additional plays, C10)")


def _check_phase(pos: Position, problems: Problems) -> None:
    phase = pos.phase
    for player in range(pos.players):
        if not pos.walking[player]:
            for where, tiles in (("path", pos.paths), ("hand", pos.hands), ("set_aside", pos.set_aside)):
                if tiles[player]:
                    problems.add(("players", player, where), f"found {len(tiles[player])} tiles for a "
                                 f"player at home, expected none (C15)")
        if len(pos.hands[player]) > 2:
            problems.add(("players", player, "hand"),
                         f"found {len(pos.hands[player])} tiles, expected at most 2 (C7)")
    if phase == phases.OVER:
        for player in range(pos.players):
            if pos.paths[player] or pos.hands[player] or pos.set_aside[player] or not pos.walking[player]:
                problems.add(("players", player), "expected every tile back in the bag once the game "
                             "is over (C17)")
        return
    actor = pos.actor
    if phase not in (phases.WEATHER, phases.TIEBREAK) and not pos.walking[actor]:
        problems.add(("decision", "player"), f"player {actor} is at home, expected a walking player "
                     f"to act at {phases.NAMES[phase]}")
    if not any(pos.walking):
        problems.add(("players",), "every player is at home, expected the walk to be over (C17)")
    empty_before = {phases.DECIDE: "hand", phases.RETURN_DISCARD: "hand", phases.DEAL: "set_aside",
                    phases.CHOOSE: "set_aside"}
    if phase in empty_before:
        for player in range(pos.players):
            kept_lists = (("hand", pos.hands), ("set_aside", pos.set_aside))
            for where, tiles in kept_lists[0 if empty_before[phase] == "hand" else 1:]:
                if tiles[player]:
                    problems.add(("players", player, where), f"found {len(tiles[player])} tiles at "
                                 f"{phases.NAMES[phase]}, expected none (C14)")
    if pos.turn == 0 and phase in (phases.DECIDE, phases.DEAL, phases.CHOOSE):
        for player in range(pos.players):
            if pos.paths[player]:
                problems.add(("players", player, "path"),
                             "found tiles in the first turn before any is played, expected none")
    if phase == phases.RETURN_DISCARD and not pos.paths[actor]:
        problems.add(("players", actor, "path"),
                     "empty, expected tiles to discard from when returning (C15)")
    if phase in (phases.DEAL, phases.EXTRA_DRAW) and not pos.bags[actor]:
        problems.add(("players", actor, "bag"), f"empty, expected tiles to draw at "
                     f"{phases.NAMES[phase]} (C7, C10)")
    if phase == phases.DEAL:
        for player in range(actor, pos.players):
            if pos.hands[player]:
                problems.add(("players", player, "hand"), "found tiles before this player's draw, "
                             "expected none (C7)")
            elif player > actor and pos.walking[player] and not pos.bags[player]:
                problems.add(("players", player, "bag"), "empty for a walking player still to draw, "
                             "expected tiles (C6)")
    if phase in (phases.OPTION, phases.DISCARD, phases.EXTRA, phases.EXTRA_DRAW, phases.BUY,
                 phases.TIEBREAK, phases.WEATHER):
        done = range(pos.players) if phase >= phases.BUY else range(actor + 1)
        for player in done:
            if len(pos.hands[player]) > 1:
                problems.add(("players", player, "hand"), f"found {len(pos.hands[player])} tiles "
                             f"after playing, expected at most 1 (C8)")
        if phase < phases.BUY:
            for player in range(actor + 1, pos.players):
                if pos.set_aside[player]:
                    problems.add(("players", player, "set_aside"),
                                 "found tiles before this player's turn to play, expected none (C10)")


# --- JSON text ---------------------------------------------------------------------------------------

MAX_DEPTH = 64
"""The deepest nesting of lists and objects a reader decodes (a Refuge file nests four deep)."""

_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKETS = str.maketrans({c: None for c in map(chr, range(128)) if c not in "[]{}"})


def nesting_depth(text: str) -> int:
    """How deeply the lists and objects of JSON `text` nest (strings skipped), without decoding it."""
    depth = deepest = 0
    for char in _STRINGS.sub("", text).translate(_BRACKETS):
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


class _DuplicateKeys:
    """An ``object_pairs_hook`` that remembers which decoded objects repeated a key."""

    def __init__(self) -> None:
        self.repeated: dict[int, str] = {}

    def __call__(self, pairs: list[tuple[str, object]]) -> dict[str, object]:
        obj = dict(pairs)
        if len(obj) != len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    self.repeated[id(obj)] = key
                    break
                seen.add(key)
        return obj

    def path_of_first(self, value: object) -> JsonPath | None:
        """Where the first object with a repeated key sits in `value` (depth-first), and the key."""
        stack: list[tuple[object, JsonPath]] = [(value, ())]
        while stack:
            item, path = stack.pop()
            if isinstance(item, dict):
                if id(item) in self.repeated:
                    return path + (self.repeated[id(item)],)
                stack.extend((v, path + (k,)) for k, v in reversed(list(item.items())))
            elif isinstance(item, list):
                stack.extend((v, path + (i,)) for i, v in reversed(list(enumerate(item))))
        return None


def parse_json(text: str, source: str = "") -> object:
    """The JSON value in `text`: at most :data:`MAX_DEPTH` deep, each object key given once.

    Raises:
        MalformedFileError: the text is not JSON (the message gives line and column), nests too
            deeply, or repeats a key (the message gives its JSON path).
    """
    prefix = f"{source}: " if source else ""
    if nesting_depth(text) > MAX_DEPTH:
        raise MalformedFileError(f"{prefix}$: lists and objects nested more than {MAX_DEPTH} deep, "
                                 "expected a Refuge file")
    hook = _DuplicateKeys()
    try:
        value = json.loads(text, object_pairs_hook=hook)
    except RecursionError:
        raise MalformedFileError(f"{prefix}$: nested too deeply to be a Refuge file") from None
    except json.JSONDecodeError as error:
        raise MalformedFileError(f"{prefix}$: not valid JSON: {error.msg} at line {error.lineno} "
                                 f"column {error.colno}") from None
    except ValueError as error:
        raise MalformedFileError(f"{prefix}$: not valid JSON: {str(error)[:80]}") from None
    if hook.repeated:
        path = hook.path_of_first(value)
        raise MalformedFileError(f"{prefix}{json_path(path or ())}: the key is given twice, "
                                 "expected each key of an object once")
    return value
