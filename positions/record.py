"""Game records, ``refuge-game/1``: the setup and every event in order (docs/formats.md).

An event is a chance outcome (``drawn sign fox``, ``drawn fox``, ``weather sun``, ``tiebreak 1``) or a
decision (``draw``, ``play compass``, ``option steps``, ``buy bear``) in action notation. Decisions
with a single legal option are made by the engine and are not events. Replaying a record re-checks
every event and names the first illegal one with its index, walk and turn.
"""

from __future__ import annotations

import json
from typing import NamedTuple, Sequence

from positions.kernel import phases
from positions.kernel.actions import Action, action_from_code, parse_action
from positions.errors import IllegalActionError, InvalidActionError, MalformedFileError
from positions.files import read_text_file, write_atomically
from positions.kernel.position import Position
from positions.kernel.routes import ROUTES, Route, parse_route
from positions.kernel.rulesets import DEFAULT_RULESET, RULES_VERSION, Ruleset
from positions.saved import (
    read_document, read_route, read_ruleset, route_to_data, ruleset_to_data,
)
from positions.kernel.view import walk_number
from positions.validation import (
    JsonPath, Problems, did_you_mean, parse_json, read_int, read_list, read_object,
    read_str,
)

FORMAT = "refuge-game/1"
"""The ``format`` value of a game record."""

FIELDS = ("format", "rules_version", "name", "story", "ruleset", "route", "players", "names", "seed",
          "events", "result")
EVENT_FIELDS = ("action", "player", "note")
MAX_EVENTS = 100_000
"""More events than any game of Refuge has (a game is a few hundred to a few thousand)."""


class GameRecord(NamedTuple):
    """A game: its setup and every event, in order."""

    players: int
    route: Route
    ruleset: Ruleset = DEFAULT_RULESET
    names: tuple[str, ...] = ()
    seed: int | None = None
    events: tuple[Action, ...] = ()
    result: tuple[int, ...] | None = None
    """Final scores as the file states them (checked on replay), or ``None``."""
    title: str = ""
    story: str = ""
    actors: tuple[int | None, ...] = ()
    """Who the file says made each event (``CHANCE_PLAYER`` for chance), ``None`` if unstated."""

    def start(self) -> Position:
        """The position before the first event."""
        return Position.new_game(self.players, self.route, self.ruleset)


class ReplayStep(NamedTuple):
    """One event of a replay and the position just before it."""

    event: int
    """The event's index in the record."""
    position: Position
    player: int
    """The player who made the decision, or ``CHANCE_PLAYER``."""
    action: Action


class Replay(NamedTuple):
    """A replayed record: every step and the position after the last event."""

    steps: list[ReplayStep]
    final: Position

    def position_at(self, index: int) -> Position:
        """The position before event `index` (``len(steps)``: after the last event)."""
        return self.steps[index].position if index < len(self.steps) else self.final


# --- replay ------------------------------------------------------------------------------------------

def where(pos: Position) -> str:
    """``walk 2, turn 3`` for messages (1-based, as players count)."""
    return f"walk {walk_number(pos)}, turn {pos.turn + 1}"


def replay(record: GameRecord, source: str = "") -> Replay:
    """Play every event of `record` from the start, checking each.

    Raises:
        IllegalActionError: an event is not legal where it stands (index, walk and turn named),
            or the stated result differs from the replayed one.
    """
    prefix = f"{source}: " if source else ""
    pos = record.start()
    steps: list[ReplayStep] = []
    for index, action in enumerate(record.events):
        player = pos.current_player()
        stated = record.actors[index] if index < len(record.actors) else None
        if pos.is_terminal():
            raise IllegalActionError(f"{prefix}events[{index}]: {action} after the end of the game")
        legal = pos.legal_actions()
        if action not in legal:
            who = "chance" if player == phases.CHANCE_PLAYER else f"player {player}"
            raise IllegalActionError(
                f"{prefix}events[{index}]: {where(pos)}: {action!s} is not legal for {who} at "
                f"{phases.NAMES[pos.phase]} (legal: {_short_list(legal)})")
        if stated is not None and stated != player:
            raise IllegalActionError(
                f"{prefix}events[{index}].player: {where(pos)}: the record says "
                f"{_who(stated)} made {action!s}, but it is {_who(player)}'s event")
        steps.append(ReplayStep(index, pos.copy(), player, action))
        pos.apply(action)
    if record.result is not None:
        if not pos.is_terminal():
            raise IllegalActionError(f"{prefix}result: the record states a result, but the game "
                                     f"is not over after {len(record.events)} events ({where(pos)})")
        if list(record.result) != pos.scores():
            raise IllegalActionError(f"{prefix}result.scores: the record says {list(record.result)}, "
                                     f"the replay gives {pos.scores()}")
    return Replay(steps, pos)


def _who(player: int) -> str:
    return "chance" if player == phases.CHANCE_PLAYER else f"player {player}"


def _short_list(actions: Sequence[Action], limit: int = 12) -> str:
    names = [str(a) for a in actions[:limit]]
    if len(actions) > limit:
        names.append(f"... {len(actions) - limit} more")
    return ", ".join(names)


def find_decision(record: GameRecord, walk: int, turn: int, player: int,
                  replayed: Replay | None = None) -> int:
    """The index of the first event at which `player` decides in walk `walk`, turn `turn` (1-based).

    Raises:
        IllegalActionError: no such decision in the record.
    """
    game = replayed or replay(record)
    for step in game.steps:
        pos = step.position
        if (pos.walk + 1, pos.turn + 1, step.player) == (walk, turn, player):
            return step.event
    raise IllegalActionError(f"player {player} makes no decision in walk {walk}, turn {turn} of "
                             f"this record")


# --- reading -------------------------------------------------------------------------------------------

def parse_record(data: object, source: str = "") -> GameRecord:
    """A game record from decoded JSON (structure only: :func:`replay` checks the events).

    Raises:
        MalformedFileError: wrong structure, types, names, notation or format (every problem listed).
    """
    obj, problems = read_document(data, source, FIELDS, ("format", "players", "route", "events"), FORMAT)
    ruleset = read_ruleset(obj.get("ruleset", DEFAULT_RULESET.name), ("ruleset",), problems)
    route = read_route(obj.get("route", "meadows"), ("route",), problems)
    counts = ruleset.player_counts
    players = read_int(obj.get("players", min(counts)), ("players",), problems, min(counts),
                       max(counts)) or min(counts)
    names: tuple[str, ...] = ()
    if "names" in obj:
        items = read_list(obj["names"], ("names",), problems, max_length=players) or []
        names = tuple(read_str(n, ("names", i), problems) or "" for i, n in enumerate(items))
        if len(names) not in (0, players):
            problems.add(("names",), f"found {len(names)} names, expected {players}")
    seed = None
    if "seed" in obj and obj["seed"] is not None:
        seed = read_int(obj["seed"], ("seed",), problems, 0, 2**63 - 1)
    events, actors = _read_events(obj.get("events"), problems)
    result = _read_result(obj["result"], players, problems) if "result" in obj else None
    title = (read_str(obj["name"], ("name",), problems) or "") if "name" in obj else ""
    story = (read_str(obj["story"], ("story",), problems) or "") if "story" in obj else ""
    problems.raise_if_any(MalformedFileError)
    return GameRecord(players, route, ruleset, names, seed, events, result, title, story, actors)


_ACTION_NAMES: list[str] = []


def _action_names() -> list[str]:
    if not _ACTION_NAMES:
        code = 0
        while True:
            try:
                _ACTION_NAMES.append(str(action_from_code(code)))
            except InvalidActionError:
                if code > 4096:
                    break
            code += 1
    return _ACTION_NAMES


def _read_action(value: object, path: JsonPath, problems: Problems) -> Action | None:
    text = read_str(value, path, problems)
    if text is None:
        return None
    try:
        return parse_action(text)
    except InvalidActionError as error:
        normal = " ".join(text.strip().lower().replace("-", "_").split())
        problems.add(path, str(error) + did_you_mean(normal, _action_names()))
        return None


def _read_events(value: object,
                 problems: Problems) -> tuple[tuple[Action, ...], tuple[int | None, ...]]:
    items = read_list(value, ("events",), problems, max_length=MAX_EVENTS) or []
    events: list[Action] = []
    actors: list[int | None] = []
    for i, item in enumerate(items):
        path: JsonPath = ("events", i)
        actor: int | None = None
        if isinstance(item, dict):
            obj = read_object(item, path, problems, EVENT_FIELDS, required=("action",)) or {}
            action = _read_action(obj.get("action"), path + ("action",), problems)
            if "player" in obj:
                actor = (phases.CHANCE_PLAYER if obj["player"] == "chance"
                         else read_int(obj["player"], path + ("player",), problems, 0, 3))
            if "note" in obj:
                read_str(obj["note"], path + ("note",), problems)
        else:
            action = _read_action(item, path, problems)
        if action is not None:
            events.append(action)
            actors.append(actor)
        if len(problems) >= 50:
            problems.add(("events",), "too many errors, stopped reading")
            break
    return tuple(events), tuple(actors)


def _read_result(value: object, players: int, problems: Problems) -> tuple[int, ...] | None:
    obj = read_object(value, ("result",), problems, ("scores",), required=("scores",)) or {}
    items = read_list(obj.get("scores", []), ("result", "scores"), problems, max_length=4)
    if items is None:
        return None
    if len(items) != players:
        problems.add(("result", "scores"), f"found {len(items)} scores, expected {players}")
    scores = [read_int(v, ("result", "scores", i), problems) for i, v in enumerate(items)]
    return tuple(s for s in scores if s is not None)


def read_record_text(text: str, source: str = "") -> GameRecord:
    """A game record from JSON text.

    Raises:
        MalformedFileError: not JSON, or not a well-formed game record.
    """
    return parse_record(parse_json(text, source), source)


def load_record(path: str) -> GameRecord:
    """A game record from the JSON file at `path`.

    Raises:
        MalformedFileError: unreadable file, not JSON, or not a well-formed game record.
    """
    return read_record_text(read_text_file(path), path)


# --- writing ---------------------------------------------------------------------------------------

def record_to_data(record: GameRecord, final: Position | None = None) -> dict[str, object]:
    """The record as a ``refuge-game/1`` JSON object; with `final` over, its scores as the result."""
    data: dict[str, object] = {"format": FORMAT, "rules_version": RULES_VERSION}
    if record.title:
        data["name"] = record.title
    if record.story:
        data["story"] = record.story
    data["ruleset"] = ruleset_to_data(record.ruleset)
    data["route"] = route_to_data(record.route)
    data["players"] = record.players
    if record.names:
        data["names"] = list(record.names)
    if record.seed is not None:
        data["seed"] = record.seed
    data["events"] = [str(a) for a in record.events]
    scores = final.scores() if final is not None and final.is_terminal() else record.result
    if scores is not None:
        data["result"] = {"scores": list(scores)}
    return data


def dump_record(record: GameRecord, final: Position | None = None) -> str:
    """The record as JSON text: one setup field per line, then one event per line."""
    data = record_to_data(record, final)
    lines = []
    for key, value in data.items():
        if key == "events":
            assert isinstance(value, list)
            texts = [json.dumps(event, ensure_ascii=False) for event in value]
            body = "".join(f"\n    {text}," for text in texts).rstrip(",")
            lines.append(f'  "events": [{body}\n  ]' if texts else '  "events": []')
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


class GameRecorder:
    """A game being played and recorded: wraps a :class:`Position` and logs every applied event."""

    def __init__(self, record: GameRecord) -> None:
        self.setup = record._replace(events=(), result=None, actors=())
        self.position = record.start()
        self.events: list[Action] = []
        for action in record.events:
            self.apply(action)

    @classmethod
    def new(cls, players: int = 2, route: Route | str = "meadows", names: Sequence[str] = (),
            seed: int | None = None, ruleset: Ruleset = DEFAULT_RULESET) -> "GameRecorder":
        """A recorder at the start of a new game.

        Raises:
            ImpossiblePositionError: unknown route or unsupported player count.
        """
        if isinstance(route, str):
            route = ROUTES[route] if route in ROUTES else parse_route(route)
        return cls(GameRecord(players, route, ruleset, tuple(names), seed))

    def apply(self, action: int) -> None:
        """Apply a decision or chance outcome to the position and record it.

        Raises:
            IllegalActionError: the action is not legal here (nothing is recorded).
        """
        place = where(self.position)
        try:
            self.position.apply(action)  # checks legality and changes nothing when it refuses
        except IllegalActionError as error:
            raise IllegalActionError(f"event {len(self.events)}: {place}: {error}") from None
        self.events.append(action_from_code(action))

    def record(self) -> GameRecord:
        """The game so far as a record (with its result once the game is over)."""
        result = tuple(self.position.scores()) if self.position.is_terminal() else None
        return self.setup._replace(events=tuple(self.events), result=result)

    def to_data(self) -> dict[str, object]:
        """The game so far as a ``refuge-game/1`` JSON object."""
        return record_to_data(self.record())

    def to_json(self) -> str:
        """The game so far as ``refuge-game/1`` JSON text."""
        return dump_record(self.record())

    def write(self, path: str) -> None:
        """Write the game so far to `path`, replacing it atomically.

        Raises:
            FileWriteError: the file cannot be written (not a regular file, read-only, ...).
        """
        write_atomically(path, self.to_json())


def _describe(action: int) -> str:
    try:
        return str(action_from_code(action))
    except InvalidActionError:
        return f"action code {action}"
