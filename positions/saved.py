"""Saved positions, ``refuge-position/1``: what the player to decide can see, as JSON (docs/formats.md).

A saved position holds the public facts (walk, turn, weather, market, box, every player's tiles and
scores) and the pending decision. It never holds hidden facts: the bags have no order, and in a
simultaneous step (decide, choose, buy) the choices already made by players earlier in seat order are
absent. On loading, each such player gets a placeholder choice (their first legal option) that
:meth:`Position.determinize` resamples.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Callable, NamedTuple

from positions.kernel import phases, rules
from positions.kernel.actions import (
    DRAW, RETURN, Action, action_from_code, parse_action,
)
from positions.errors import ImpossiblePositionError, InvalidActionError, MalformedFileError
from positions.files import read_text_file
from positions.kernel.position import Position
from positions.kernel.view import public_fact_ints, walk_number
from positions.kernel.routes import ROUTES, Route, make_route
from positions.kernel.rulesets import DEFAULT_RULESET, RULES_VERSION, RULESETS, Ruleset
from positions.kernel.tiles import KIND_COUNT, STORM, TILES, Kind
from positions.validation import (
    JsonPath, Problems, check_position, did_you_mean, describe, parse_json, read_choice, read_int,
    read_kind, read_kind_counts, read_kind_list, read_list, read_object, read_str,
)

FORMAT = "refuge-position/1"
"""The ``format`` value of a saved position."""

TOP_FIELDS = ("format", "rules_version", "name", "story", "ruleset", "route", "walk", "turn",
              "decision", "weather", "market", "box", "players")
PLAYER_FIELDS = ("name", "status", "vp", "steps", "storms", "path", "hand", "set_aside", "bag",
                 "choice")
DECISION_FIELDS = ("phase", "player", "tile", "extra_plays", "discards_left", "discards_required",
                   "ties")
WEATHER_FIELDS = ("track_suns", "track_storms", "deck_suns", "deck_storms", "reserve")
RULESET_FIELDS = ("name", "start_bag", "storm_thresholds", "penalised_kinds", "walks", "start_steps",
                  "deck_suns", "deck_storms", "reserve_storms", "stack_size")
TIE_FIELDS = ("tile", "players", "slots")
STATUSES = ("walking", "home")
RESOLVING = phases.RESOLVING
NO_ACTOR_PHASES = (phases.WEATHER, phases.TIEBREAK, phases.OVER)
"""Phases with no player to act: a saved position's decision names no ``player``."""
MAX_TURN = 100
UNKNOWN = "unknown"
"""A bag the player to decide does not know (``"bag": "unknown"``)."""


class SavedPosition(NamedTuple):
    """A loaded position with the facts a file carries besides the game: names and a story."""

    position: Position
    names: tuple[str, ...] = ()
    title: str = ""
    story: str = ""


# --- rules version, ruleset and route (shared with game records) -----------------------------------

FORMAT_HINTS = {
    "refuge-game/1": " (this is a game record: use it with refuge position)",
    "refuge-position/1": " (this is a saved position; this command takes a game record)",
}


def read_document(data: object, source: str, fields: tuple[str, ...], required: tuple[str, ...],
                  expected_format: str) -> tuple[dict[str, object], Problems]:
    """The top-level object of a saved file, its ``format`` and ``rules_version`` checked.

    Raises:
        MalformedFileError: not an object, or another format.
    """
    problems = Problems(source)
    if isinstance(data, dict) and "format" in data and data["format"] != expected_format:
        # Another kind of file: its fields are not worth listing one by one.
        fmt = data["format"]
        hint = FORMAT_HINTS.get(fmt, "") if isinstance(fmt, str) else ""
        problems.add(("format",), f"found {describe(fmt)}, expected {expected_format!r}{hint}")
        problems.raise_if_any(MalformedFileError)
    obj = read_object(data, (), problems, fields, required=required)
    if obj is None:
        problems.raise_if_any(MalformedFileError)
        raise AssertionError("unreachable")
    if "rules_version" in obj:
        read_rules_version(obj["rules_version"], ("rules_version",), problems)
    return obj, problems


def read_rules_version(value: object, path: JsonPath, problems: Problems) -> None:
    """Check a file's ``rules_version``: same major version as this program's."""
    text = read_str(value, path, problems)
    if text is not None and text.split(".")[0] != RULES_VERSION.split(".")[0]:
        problems.add(path, f"found {describe(text)}, expected rules version "
                     f"{RULES_VERSION.split('.')[0]}.x (this program plays {RULES_VERSION})")


def read_ruleset(value: object, path: JsonPath, problems: Problems) -> Ruleset:
    """A ruleset by name (``default``) or as an object overriding the default's fields."""
    if isinstance(value, str):
        if value in RULESETS:
            return RULESETS[value]
        problems.add(path, f"unknown ruleset {value[:40]!r}" + did_you_mean(value, RULESETS)
                     + f", expected one of {', '.join(RULESETS)} or an object")
        return DEFAULT_RULESET
    obj = read_object(value, path, problems, RULESET_FIELDS)
    if obj is None:
        return DEFAULT_RULESET
    base = DEFAULT_RULESET
    fields: dict[str, object] = {"name": "custom"}
    if "name" in obj:
        fields["name"] = read_str(obj["name"], path + ("name",), problems) or "custom"
    if "start_bag" in obj:
        bag = read_kind_counts(obj["start_bag"], path + ("start_bag",), problems)
        if not 1 <= len(bag) <= 40:
            problems.add(path + ("start_bag",), f"found {len(bag)} tiles, expected 1 to 40")
        fields["start_bag"] = bag
    if "storm_thresholds" in obj:
        fields["storm_thresholds"] = _read_thresholds(obj["storm_thresholds"],
                                                      path + ("storm_thresholds",), problems)
    if "penalised_kinds" in obj and obj["penalised_kinds"] is not None:
        fields["penalised_kinds"] = tuple(sorted(set(read_kind_list(
            obj["penalised_kinds"], path + ("penalised_kinds",), problems))))
    elif "penalised_kinds" in obj:
        fields["penalised_kinds"] = None
    for key, low, high in (("walks", 1, 20), ("start_steps", 0, 100), ("deck_suns", 0, 20),
                           ("deck_storms", 0, 20), ("reserve_storms", 0, 20), ("stack_size", 1, 20)):
        if key in obj:
            number = read_int(obj[key], path + (key,), problems, low, high)
            fields[key] = getattr(base, key) if number is None else number
    return base._replace(**fields)  # type: ignore[arg-type]


def _read_thresholds(value: object, path: JsonPath,
                     problems: Problems) -> tuple[tuple[int, int], ...]:
    if not isinstance(value, dict) or not value:
        problems.add(path, f"found {describe(value)}, expected an object of player count: Storms, "
                     f"e.g. {{\"2\": 6, \"3\": 7, \"4\": 9}}")
        return DEFAULT_RULESET.storm_thresholds
    pairs = []
    for key, number in value.items():
        count = int(key) if isinstance(key, str) and key in ("2", "3", "4") else None
        if count is None:
            problems.add(path + (str(key)[:20],), "expected a player count 2, 3 or 4")
            continue
        threshold = read_int(number, path + (key,), problems, 1, 100)
        if threshold is not None:
            pairs.append((count, threshold))
    return tuple(sorted(pairs))


def ruleset_to_data(ruleset: Ruleset) -> object:
    """A ruleset as JSON: its name if it is a known one, else every field."""
    if RULESETS.get(ruleset.name) == ruleset:
        return ruleset.name
    return {
        "name": ruleset.name,
        "start_bag": kind_counts_to_data(ruleset.start_bag),
        "storm_thresholds": {str(count): threshold for count, threshold in ruleset.storm_thresholds},
        "penalised_kinds": (None if ruleset.penalised_kinds is None
                            else [TILES[k].name for k in ruleset.penalised_kinds]),
        "walks": ruleset.walks, "start_steps": ruleset.start_steps,
        "deck_suns": ruleset.deck_suns, "deck_storms": ruleset.deck_storms,
        "reserve_storms": ruleset.reserve_storms, "stack_size": ruleset.stack_size,
    }


def read_route(value: object, path: JsonPath, problems: Problems) -> Route:
    """A route by name (``meadows``) or as a list of 8 tile kind names (C3)."""
    if isinstance(value, str):
        if value in ROUTES:
            return ROUTES[value]
        problems.add(path, f"unknown route {value[:40]!r}" + did_you_mean(value, ROUTES)
                     + f", expected one of {', '.join(ROUTES)} or a list of 8 tile kinds")
        return ROUTES["meadows"]
    if not isinstance(value, list):
        problems.add(path, f"found {describe(value)}, expected a route name or a list of 8 tile kinds")
        return ROUTES["meadows"]
    count = len(problems)
    kinds = read_kind_list(value, path, problems)
    if len(problems) > count:
        return ROUTES["meadows"]
    try:
        route = make_route(kinds)
    except ImpossiblePositionError as error:
        problems.add(path, str(error))
        return ROUTES["meadows"]
    for known in ROUTES.values():
        if known.kinds == route.kinds:
            return known
    return route


def route_to_data(route: Route) -> object:
    """A route as JSON: its name if it is one of the rulebook's, else its 8 kind names."""
    if ROUTES.get(route.name) == route:
        return route.name
    return [TILES[k].name for k in route.kinds]


def kind_counts_to_data(tiles: tuple[Kind, ...] | list[Kind]) -> dict[str, int]:
    """A multiset of kinds as ``{name: count}`` in catalogue order."""
    counts = Counter(tiles)
    return {TILES[k].name: counts[k] for k in sorted(counts)}


# --- reading -------------------------------------------------------------------------------------------

class _Decision(NamedTuple):
    phase: int
    player: int
    tile: Kind
    extra_plays: int
    discards_left: int
    discards_required: int
    ties: tuple[tuple[Kind, tuple[int, ...], int], ...]


def parse_position(data: object, source: str = "") -> SavedPosition:
    """A position from decoded JSON, checked in full.

    Raises:
        MalformedFileError: wrong structure, types, names or format (every problem listed).
        ImpossiblePositionError: well formed, but not a position the rules can reach.
    """
    obj, problems = read_document(data, source, TOP_FIELDS, ("format", "route", "walk", "decision",
                                                            "players"), FORMAT)
    title = _read_text_field(obj, "name", problems)
    story = _read_text_field(obj, "story", problems)
    ruleset = read_ruleset(obj.get("ruleset", DEFAULT_RULESET.name), ("ruleset",), problems)
    route = read_route(obj.get("route", "meadows"), ("route",), problems)
    pos = Position.__new__(Position)
    pos.ruleset = ruleset
    pos.route = route
    names, choices = _read_players(obj.get("players"), pos, problems)
    walk = read_int(obj.get("walk", 1), ("walk",), problems, 1, ruleset.walks)
    decision = _read_decision(obj.get("decision"), pos, problems)
    _read_weather(obj.get("weather", {}), pos, problems)
    turned = pos.track_suns + pos.track_storms
    turn = read_int(obj.get("turn", turned + 1), ("turn",), problems, 1, MAX_TURN)
    _read_market_and_box(obj, pos, decision, problems)
    problems.raise_if_any(MalformedFileError)
    if pos.hidden_bags:
        fill_unknown_bags(obj, pos, decision, problems)
        problems.raise_if_any(ImpossiblePositionError)
    assert walk is not None and turn is not None
    pos.walk = ruleset.walks if decision.phase == phases.OVER else walk - 1
    pos.turn = turn - 1
    pos.phase = decision.phase
    pos.actor = (phases.TERMINAL_PLAYER if decision.phase == phases.OVER
                 else rules.NO_ACTOR if decision.phase in NO_ACTOR_PHASES else decision.player)
    pos.tile = decision.tile
    pos.extra_plays = decision.extra_plays
    pos.discards_left = decision.discards_left
    pos.discards_required = decision.discards_required
    pos.ties = decision.ties
    pos.pending = [rules.NO_CHOICE] * pos.players
    pos.legal = ()
    pos.history = 0
    check_position(pos, problems)
    _check_ties(pos, problems)
    problems.raise_if_any(ImpossiblePositionError)
    _set_choices(pos, choices, problems)
    problems.raise_if_any(ImpossiblePositionError)
    _set_legal(pos, problems)
    problems.raise_if_any(ImpossiblePositionError)
    pos.history = rules.fold(0, public_fact_ints(pos))
    return SavedPosition(pos, names, title, story)


def _read_text_field(obj: dict[str, object], key: str, problems: Problems) -> str:
    if key not in obj:
        return ""
    return read_str(obj[key], (key,), problems) or ""


def _read_players(value: object, pos: Position,
                  problems: Problems) -> tuple[tuple[str, ...], list[object]]:
    ruleset = pos.ruleset
    items = read_list(value, ("players",), problems, max_length=8)
    counts = ruleset.player_counts
    if items is not None and len(items) not in counts:
        problems.add(("players",), f"found {describe(items)}, expected {' or '.join(map(str, counts))} "
                     f"players (ruleset {ruleset.name!r})")
    items = (items or [])[:max(counts)] or [{}] * min(counts)
    pos.players = len(items)
    pos.threshold = ruleset.storm_threshold(pos.players) if pos.players in counts else 99
    pos.bags, pos.hands, pos.paths, pos.set_aside = [], [], [], []
    pos.steps, pos.vp, pos.walking, pos.owned_storms = [], [], [], []
    names: list[str] = []
    choices: list[object] = []
    hidden: list[int] = []
    for i, item in enumerate(items):
        path: JsonPath = ("players", i)
        obj = read_object(item, path, problems, PLAYER_FIELDS, required=("bag",)) or {}
        names.append((read_str(obj["name"], path + ("name",), problems) or "") if "name" in obj else "")
        status = read_choice(obj.get("status", "walking"), path + ("status",), problems, STATUSES)
        pos.walking.append(status != "home")
        pos.vp.append(read_int(obj.get("vp", 0), path + ("vp",), problems) or 0)
        pos.steps.append(read_int(obj.get("steps", ruleset.start_steps), path + ("steps",),
                                  problems) or 0)
        pos.owned_storms.append(read_int(obj.get("storms", 0), path + ("storms",), problems, 0, 40)
                                or 0)
        pos.paths.append(read_kind_list(obj.get("path", []), path + ("path",), problems))
        pos.hands.append(read_kind_list(obj.get("hand", []), path + ("hand",), problems))
        pos.set_aside.append(read_kind_list(obj.get("set_aside", []), path + ("set_aside",), problems))
        if obj.get("bag") == UNKNOWN:
            hidden.append(i)
            pos.bags.append(())
        else:
            pos.bags.append(read_kind_counts(obj.get("bag", {}), path + ("bag",), problems))
        choices.append(obj.get("choice"))
    pos.hidden_bags = tuple(hidden)
    kept = tuple(names) if any(names) else ()
    return kept, choices


def _read_decision(value: object, pos: Position, problems: Problems) -> _Decision:
    path: JsonPath = ("decision",)
    obj = read_object(value, path, problems, DECISION_FIELDS, required=("phase",)) or {}
    name = read_choice(obj.get("phase", "decide"), path + ("phase",), problems, phases.NAMES)
    phase = phases.NAMES.index(name) if name is not None else phases.DECIDE
    player = 0
    if phase in NO_ACTOR_PHASES:
        if "player" in obj:
            problems.add(path + ("player",), f"not expected at {phases.NAMES[phase]}: nobody decides")
    elif "player" not in obj:
        problems.add(path + ("player",), f"missing, expected the player who acts at "
                     f"{phases.NAMES[phase]}")
    else:
        player = read_int(obj["player"], path + ("player",), problems, 0, pos.players - 1) or 0
    tile = rules.NO_CHOICE
    if phase in (phases.OPTION, phases.DISCARD):
        if "tile" not in obj:
            problems.add(path + ("tile",), f"missing, expected the tile being resolved at "
                         f"{phases.NAMES[phase]}")
        else:
            kind = read_kind(obj["tile"], path + ("tile",), problems)
            tile = rules.NO_CHOICE if kind is None else kind
    elif "tile" in obj:
        problems.add(path + ("tile",), "only expected at option and discard")
    discard_effect = next((e for e in TILES[tile].effects if e.discards), None) if tile >= 0 else None
    if phase == phases.DISCARD and tile >= 0 and discard_effect is None:
        problems.add(path + ("tile",), f"{TILES[tile].name} discards nothing, expected cairn, hiker "
                     f"or cave (C11)")
    if phase == phases.OPTION and tile >= 0 and not TILES[tile].has_choice:
        problems.add(path + ("tile",), f"{TILES[tile].name} has no \"X OR Y\" option, expected one "
                     f"of {', '.join(t.name for t in TILES if t.has_choice)} (C9)")
    most = discard_effect.discards if discard_effect and phase == phases.DISCARD else 0
    left = _optional_int(obj, "discards_left", most, 0 if phase != phases.DISCARD else 1,
                         max(most, 1) if phase == phases.DISCARD else 0, problems)
    required = discard_effect.discards_required if discard_effect else 0
    required = _optional_int(obj, "discards_required", min(required, left), 0, left, problems)
    low = 1 if phase in (phases.EXTRA, phases.EXTRA_DRAW) else 0
    high = 20 if phase in RESOLVING else 0
    extra = _optional_int(obj, "extra_plays", low, low, high, problems)
    ties: tuple[tuple[Kind, tuple[int, ...], int], ...] = ()
    if phase == phases.TIEBREAK:
        ties = _read_ties(obj.get("ties"), pos, problems)
    elif "ties" in obj:
        problems.add(path + ("ties",), "only expected at tiebreak")
    return _Decision(phase, player, tile, extra, left, required, ties)


def _optional_int(obj: dict[str, object], key: str, default: int, low: int, high: int,
                  problems: Problems) -> int:
    if key not in obj:
        return default
    number = read_int(obj[key], ("decision", key), problems, low, high)
    return default if number is None else number


def _read_ties(value: object, pos: Position,
               problems: Problems) -> tuple[tuple[Kind, tuple[int, ...], int], ...]:
    path: JsonPath = ("decision", "ties")
    items = read_list(value, path, problems, max_length=8)
    if not items:
        if items is not None:
            problems.add(path, "empty, expected at least one contested stack (C12)")
        return ()
    ties = []
    for i, item in enumerate(items):
        obj = read_object(item, path + (i,), problems, TIE_FIELDS, required=TIE_FIELDS) or {}
        if len(obj) < len(TIE_FIELDS):
            continue
        kind = read_kind(obj["tile"], path + (i, "tile"), problems)
        seats = read_list(obj["players"], path + (i, "players"), problems, max_length=4) or []
        players = tuple(p for j, s in enumerate(seats)
                        if (p := read_int(s, path + (i, "players", j), problems, 0,
                                          pos.players - 1)) is not None)
        slots = read_int(obj["slots"], path + (i, "slots"), problems, 1, 3)
        if kind is None or slots is None or len(players) != len(seats):
            continue
        if len(set(players)) != len(players) or len(players) <= slots:
            problems.add(path + (i, "players"), f"found {list(players)} for {slots} tiles, expected "
                         f"more distinct players than tiles (C12)")
            continue
        ties.append((kind, tuple(sorted(players)), slots))
    return tuple(ties)


def _read_weather(value: object, pos: Position, problems: Problems) -> None:
    ruleset = pos.ruleset
    path: JsonPath = ("weather",)
    obj = read_object(value, path, problems, WEATHER_FIELDS) or {}
    suns = read_int(obj.get("track_suns", 0), path + ("track_suns",), problems, 0,
                    ruleset.deck_suns) or 0
    storms = read_int(obj.get("track_storms", 0), path + ("track_storms",), problems, 0,
                      ruleset.deck_storms + ruleset.reserve_storms) or 0
    pos.track_suns = suns
    pos.track_storms = storms
    defaults = {"deck_suns": ruleset.deck_suns - suns,
                "deck_storms": max(0, ruleset.deck_storms - storms),
                "reserve": ruleset.reserve_storms - max(0, storms - ruleset.deck_storms)}
    limits = {"deck_suns": ruleset.deck_suns, "deck_storms": ruleset.deck_storms,
              "reserve": ruleset.reserve_storms}
    for key, default in defaults.items():
        number = read_int(obj.get(key, default), path + (key,), problems, 0, limits[key])
        setattr(pos, key, default if number is None else number)


def _read_market_and_box(obj: dict[str, object], pos: Position, decision: _Decision,
                         problems: Problems) -> None:
    """Market and box, each derived from the other facts when absent (docs/formats.md)."""
    ruleset = pos.ruleset
    held: Counter[Kind] = Counter()
    for player in range(pos.players):
        held.update(pos.bags[player] + pos.hands[player] + pos.paths[player] + pos.set_aside[player])
    if decision.tile >= 0:
        held[decision.tile] += 1
    market = [0] * KIND_COUNT
    market_given = "market" in obj
    if market_given:
        counts = read_kind_counts(obj["market"], ("market",), problems)
        for kind in counts:
            market[kind] += 1
    if "box" in obj:
        box = read_kind_counts(obj["box"], ("box",), problems)
    else:
        missing: list[Kind] = []
        for kind in range(1, KIND_COUNT):
            if kind in pos.route.kinds and not market_given:
                continue
            outside = rules.supply(pos, kind) - market[kind]  # a route's stack: less its market
            missing.extend([kind] * max(0, outside - held[kind]))
        box = tuple(missing)
    if not market_given:
        boxed = Counter(box)
        for kind in pos.route.kinds:
            market[kind] = max(0, ruleset.stack_size - held[kind] - boxed[kind])
    pos.market = tuple(market)
    pos.box = box


def fill_unknown_bags(obj: dict[str, object], pos: Position, decision: _Decision,
                      problems: Problems) -> None:
    """Fill the ``"bag": "unknown"`` bags from what the rest of the position implies.

    Their tiles together are the supply less every tile seen elsewhere (market, box, the known bags,
    hands, paths); each player's Storms are the start bag's less their Storms on the track (C5).
    When one bag is unknown, or the pool leaves one way to split it, the bags are inferred and the
    position has no hidden bag; otherwise the rest is split so that the players' tile totals are as
    even as possible, and the bags stay hidden for :meth:`Position.determinize` to deal afresh.
    """
    hidden = pos.hidden_bags
    for key in ("market", "box"):
        if key not in obj:
            problems.add((key,), f"missing, expected the {key} in full when a bag is unknown "
                         f"(players[{hidden[0]}].bag): the unknown bags are what the market, box "
                         f"and other players do not hold")
    if decision.player in hidden and decision.phase not in NO_ACTOR_PHASES:
        problems.add(("players", decision.player, "bag"), "unknown, expected the bag of the player to "
                     "act: a player knows their own bag")
    if problems:
        return
    ruleset = pos.ruleset
    seen: Counter[Kind] = Counter(pos.box)
    for player in range(pos.players):
        seen.update(pos.bags[player] + pos.hands[player] + pos.paths[player] + pos.set_aside[player])
    if decision.tile >= 0:
        seen[decision.tile] += 1
    pool: list[Kind] = []
    for kind in range(1, KIND_COUNT):
        left = rules.supply(pos, kind) - pos.market[kind] - seen[kind]
        if left < 0:
            problems.add(("players", hidden[0], "bag"), f"unknown, but the market, box and the "
                         f"other players already account for {-left} {TILES[kind].name} more than "
                         f"there are (C1, C3)")
        pool.extend([kind] * max(0, left))
    start_storms = ruleset.start_bag.count(STORM)
    for player in hidden:
        storms = start_storms - pos.owned_storms[player]
        pos.bags[player] = (STORM,) * max(0, storms)
    for kind in pool:  # each tile to the player holding fewest tiles so far
        player = min(hidden, key=lambda p: (len(pos.bags[p]) + len(pos.hands[p]) + len(pos.paths[p])
                                            + len(pos.set_aside[p]), p))
        pos.bags[player] = pos.bags[player] + (kind,)
    if len(hidden) == 1 or len(set(pool)) <= 1:
        pos.hidden_bags = ()


def _set_choices(pos: Position, choices: list[object], problems: Problems) -> None:
    """The players' pending choices: placeholders if hidden, the file's if public (module doc)."""
    phase, actor = pos.phase, pos.actor
    for player, value in enumerate(choices):
        public = rules.choice_revealed(pos, player)
        path: JsonPath = ("players", player, "choice")
        if value is not None and not public:
            problems.add(path, "not expected here: a saved position keeps only the revealed choices "
                         "of players after the actor at return-discard, option, discard, extra "
                         "and extra-draw")
            continue
        if phase in phases.SIMULTANEOUS and player < actor and rules.takes_part(pos, player):
            pos.pending[player] = rules.step_legal(pos, player)[0]
        elif phase == phases.DEAL and pos.walking[player]:
            pos.pending[player] = DRAW
        elif phase == phases.RETURN_DISCARD and pos.walking[player]:
            if player < actor and not pos.bags[player]:
                problems.add(("players", player, "bag"), "empty for a player who chose to draw, "
                             "expected tiles (C6)")
            options: tuple[Action, ...] = ((RETURN,) if player == actor else (DRAW,) if player < actor
                       else (RETURN, DRAW) if pos.bags[player] else (RETURN,))
            pos.pending[player] = _read_public_choice(value, options, path, problems)
        elif public:
            options = rules.choose_options(pos.hands[player])
            pos.pending[player] = _read_public_choice(value, options, path, problems)


def _read_public_choice(value: object, options: tuple[Action, ...], path: JsonPath,
                        problems: Problems) -> int:
    if value is None:
        if len(options) == 1:
            return options[0]
        problems.add(path, f"missing, expected this player's revealed choice, one of "
                     f"{', '.join(map(str, options))}")
        return rules.NO_CHOICE
    text = read_str(value, path, problems)
    if text is None:
        return rules.NO_CHOICE
    try:
        action = parse_action(text)
    except InvalidActionError as error:
        problems.add(path, str(error))
        return rules.NO_CHOICE
    if action not in options:
        problems.add(path, f"found {describe(text)}, expected one of {', '.join(map(str, options))}")
        return rules.NO_CHOICE
    return action


def _check_ties(pos: Position, problems: Problems) -> None:
    for i, (kind, players, slots) in enumerate(pos.ties):
        path: JsonPath = ("decision", "ties", i)
        if kind not in pos.route.kinds or pos.market[kind] < slots:
            problems.add(path + ("tile",), f"{TILES[kind].name}: {pos.market[kind]} left in the "
                         f"market, expected at least the {slots} contested (C12)")
        for player in players:
            if not pos.walking[player]:
                problems.add(path + ("players",), f"player {player} is at home and cannot buy (C12)")


def _set_legal(pos: Position, problems: Problems) -> None:
    """The actor's legal actions, computed by the engine's own flow functions."""
    phase, actor = pos.phase, pos.actor
    here: JsonPath = ("decision",)
    if phase in phases.SIMULTANEOUS:
        if phase == phases.CHOOSE and not pos.hands[actor]:
            problems.add(("players", actor, "hand"), "empty, expected tiles to choose from (C8)")
            return
        pos.legal = rules.step_legal(pos, actor)
    elif phase == phases.RETURN_DISCARD:
        pos.legal = rules.return_discard_options(pos.paths[actor])
    elif phase == phases.OPTION:
        # The engine decides which options are open (C9, C11).
        _set_engine_stop(pos, lambda trial: rules.play_tile(trial, pos.tile), problems,
                         f"{TILES[pos.tile].name} has a single open option here (nothing to "
                         f"discard, C11)")
    elif phase == phases.DISCARD:
        if not (pos.hands[actor] or pos.paths[actor]):
            problems.add(here, "nothing to discard: expected a second tile in hand or a path (C11)")
            return
        _set_engine_stop(pos, rules.offer_discard, problems,
                         "a single discard target for a required discard (C11)")
    elif phase == phases.EXTRA:
        if len(pos.hands[actor]) != 1 or not pos.bags[actor]:
            problems.add(("players", actor, "hand"), "expected exactly one second tile in hand and "
                         "tiles in the bag to choose between them (C10)")
            return
        _set_engine_stop(pos, rules.continue_extra_plays, problems, "no choice for this play")
    elif phase == phases.EXTRA_DRAW and pos.hands[actor]:
        problems.add(("players", actor, "hand"), "expected no tile in hand at extra-draw: the second "
                     "tile is played or set aside first (C10)")
    elif phase == phases.WEATHER and not pos.deck_suns + pos.deck_storms:
        problems.add(("weather",), "the deck is empty, so no weather tile is turned (C13)")
    if phase not in phases.CHANCE_PHASES and phase != phases.OVER and len(pos.legal) < 2:
        legal = ", ".join(map(str, pos.legal)) or "nothing"
        problems.add(here + ("player",), f"player {actor} has a single legal action ({legal}), "
                     f"which the engine plays by itself: expected a real choice")


def _set_engine_stop(pos: Position, flow: Callable[[Position], None], problems: Problems,
                     why: str) -> None:
    """Run the engine's flow function on a copy: the legal actions if it stops right here."""
    trial = pos.copy()
    flow(trial)
    if (trial.phase, trial.actor, trial.tile) != (pos.phase, pos.actor, pos.tile):
        problems.add(("decision",), f"{why}: the engine plays it by itself, so no decision is "
                     f"pending at {phases.NAMES[pos.phase]}")
        return
    pos.legal = trial.legal


def read_position_text(text: str, source: str = "") -> SavedPosition:
    """A position from JSON text.

    Raises:
        MalformedFileError: not JSON, or not a well-formed saved position.
        ImpossiblePositionError: not a position the rules can reach.
    """
    return parse_position(parse_json(text, source), source)


def load_position(path: str) -> SavedPosition:
    """A position from the JSON file at `path`.

    Raises:
        MalformedFileError: unreadable file, not JSON, or not a well-formed saved position.
        ImpossiblePositionError: not a position the rules can reach.
    """
    return read_position_text(read_text_file(path), path)


# --- writing ---------------------------------------------------------------------------------------

def position_to_data(pos: Position, names: tuple[str, ...] | list[str] = (), title: str = "",
                     story: str = "") -> dict[str, object]:
    """The position as a ``refuge-position/1`` JSON object, seen by the player to decide."""
    data: dict[str, object] = {"format": FORMAT, "rules_version": RULES_VERSION}
    if title:
        data["name"] = title
    if story:
        data["story"] = story
    data["ruleset"] = ruleset_to_data(pos.ruleset)
    data["route"] = route_to_data(pos.route)
    data["walk"] = walk_number(pos)
    data["turn"] = pos.turn + 1
    data["decision"] = _decision_to_data(pos)
    data["weather"] = {"track_suns": pos.track_suns, "track_storms": pos.track_storms,
                       "deck_suns": pos.deck_suns, "deck_storms": pos.deck_storms,
                       "reserve": pos.reserve}
    data["market"] = {TILES[k].name: pos.market[k] for k in pos.route.kinds}
    data["box"] = kind_counts_to_data(pos.box)
    data["players"] = [_player_to_data(pos, p, names[p] if p < len(names) else "")
                       for p in range(pos.players)]
    return data


def _decision_to_data(pos: Position) -> dict[str, object]:
    phase = pos.phase
    data: dict[str, object] = {"phase": phases.NAMES[phase]}
    if phase not in NO_ACTOR_PHASES:
        data["player"] = pos.actor
    if phase in (phases.OPTION, phases.DISCARD):
        data["tile"] = TILES[pos.tile].name
    if phase in RESOLVING:
        data["extra_plays"] = pos.extra_plays
    if phase == phases.DISCARD:
        data["discards_left"] = pos.discards_left
        data["discards_required"] = pos.discards_required
    if phase == phases.TIEBREAK:
        data["ties"] = [{"tile": TILES[kind].name, "players": list(players), "slots": slots}
                        for kind, players, slots in pos.ties]
    return data


def _player_to_data(pos: Position, player: int, name: str) -> dict[str, object]:
    data: dict[str, object] = {"name": name} if name else {}
    data.update({
        "status": "walking" if pos.walking[player] else "home",
        "vp": pos.vp[player], "steps": pos.steps[player], "storms": pos.owned_storms[player],
        "path": [TILES[k].name for k in pos.paths[player]],
        "hand": [TILES[k].name for k in pos.hands[player]],
        "set_aside": [TILES[k].name for k in pos.set_aside[player]],
        "bag": UNKNOWN if player in pos.hidden_bags else kind_counts_to_data(pos.bags[player]),
    })
    choice = pos.pending[player] if pos.phase != phases.OVER else rules.NO_CHOICE
    if choice >= 0 and rules.choice_revealed(pos, player):
        data["choice"] = str(action_from_code(choice))
    return data


def dump_position(pos: Position, names: tuple[str, ...] | list[str] = (), title: str = "",
                  story: str = "") -> str:
    """The position as ``refuge-position/1`` JSON text (one fact per line, short lists inline)."""
    return compact_json(position_to_data(pos, names, title, story)) + "\n"


def compact_json(value: object, indent: str = "") -> str:
    """JSON text with objects one key per line and flat lists or objects kept on one line."""
    flat = json.dumps(value, ensure_ascii=False)
    if not isinstance(value, (dict, list)) or len(flat) + len(indent) <= 96 and not any(
            isinstance(item, (dict, list)) and item
            for item in (value.values() if isinstance(value, dict) else value)):
        return flat
    inner = indent + "  "
    if isinstance(value, list):
        items = [inner + compact_json(item, inner) for item in value]
        return "[\n" + ",\n".join(items) + "\n" + indent + "]"
    items = [f"{inner}{json.dumps(key, ensure_ascii=False)}: {compact_json(item, inner)}"
             for key, item in value.items()]
    return "{\n" + ",\n".join(items) + "\n" + indent + "}"


def saved_to_data(saved: SavedPosition) -> dict[str, object]:
    """A loaded position back to JSON, with its names and story."""
    return position_to_data(saved.position, saved.names, saved.title, saved.story)

