"""The file commands of `refuge`: show, validate and position (saved positions and game records)."""

from __future__ import annotations

import os
from collections import Counter
from typing import NoReturn

import click
from tabulate import tabulate

from positions.kernel import phases
from positions.documents import is_record, parse_document
from positions.errors import MalformedFileError, RefugeError
from positions.events import movetext
from positions.examples import example_names, load_example
from positions.files import read_text_file, write_atomically
from positions.kernel.position import Position
from positions.render import bag_text, printable
from positions.record import FORMAT as GAME_FORMAT
from positions.record import GameRecord, Replay, find_decision, parse_record, replay, where
from positions.saved import SavedPosition, dump_position, parse_position, position_to_data
from positions.kernel.tiles import TILES, Kind
from positions.kernel.view import walk_number
from positions.validation import did_you_mean, parse_json

ERROR_EXIT = 1


# --- loading a position or a game from a command-line argument -----------------------------------

def _read_document(text: str) -> tuple[object, str]:
    """The decoded JSON of a file path or an example name, and its source label."""
    if os.path.exists(text) or text.endswith(".json") or os.sep in text:
        return parse_json(read_text_file(text), text), text
    names = example_names()
    if text in names:
        saved = load_example(text)
        return position_to_data(saved.position, saved.names, saved.title, saved.story), text
    raise MalformedFileError(f"{text}: no such file or example" + did_you_mean(text, names)
                             + f" (examples: {', '.join(names)})")


def load_saved_arg(text: str) -> SavedPosition:
    """A position from a path or an example name; a game record gives its final position.

    Raises:
        RefugeError: no such file or example, or the file is not a valid position or record.
    """
    data, source = _read_document(text)
    document = parse_document(data, source)
    if isinstance(document, GameRecord):
        return _seen_by_actor(replay(document, source).final, document.names)
    return document


def load_position_arg(text: str) -> Position:
    """The position named on the command line: a saved-position file, a game record or an example.

    Raises:
        RefugeError: no such file or example, or the file is not a valid position or record.
    """
    return load_saved_arg(text).position


def _seen_by_actor(pos: Position, names: tuple[str, ...] = ()) -> SavedPosition:
    """The position as the player to decide sees it (others' unrevealed choices replaced)."""
    return parse_position(position_to_data(pos, names))


def _fail(error: RefugeError | OSError) -> NoReturn:
    for line in str(error).splitlines() or ["error"]:
        click.echo(f"error: {line}", err=True)
    raise click.exceptions.Exit(ERROR_EXIT)


# --- rendering ----------------------------------------------------------------------------------------

def _tiles(tiles: tuple[Kind, ...] | list[Kind]) -> str:
    return ", ".join(TILES[k].name for k in tiles) or "-"


def _counts(tiles: tuple[Kind, ...] | list[Kind]) -> str:
    counts = Counter(tiles)
    return ", ".join(f"{counts[k]} {TILES[k].name}" for k in sorted(counts)) or "-"


def render_tables(pos: Position, names: tuple[str, ...] = ()) -> str:
    """The position as text tables: header, decision, weather, market, players."""
    walks = pos.ruleset.walks
    lines = [f"Refuge, {pos.players} players, route {pos.route.name}, ruleset {pos.ruleset.name}",
             f"Walk {walk_number(pos)}/{walks}, turn {pos.turn + 1}",
             "Decision: " + _decision_text(pos, names), ""]
    lines.append(tabulate(
        [["track", pos.track_suns, f"{pos.track_storms} + {sum(pos.owned_storms)} owned "
          f"= {pos.storms_on_track()}/{pos.threshold}"],
         ["deck", pos.deck_suns, pos.deck_storms], ["reserve", "", pos.reserve]],
        headers=["weather", "suns", "storms"]))
    lines.append("")
    lines.append(tabulate([[TILES[k].name, TILES[k].cost, pos.market[k]] for k in pos.route.kinds],
                          headers=["market", "cost", "left"]))
    lines.append("")
    rows = []
    for p in range(pos.players):
        label = f"{p} {printable(names[p])}" if p < len(names) and names[p] else str(p)
        rows.append([label, "walking" if pos.walking[p] else "home", pos.vp[p], pos.steps[p],
                     pos.owned_storms[p], _tiles(pos.paths[p]), _tiles(pos.hands[p]),
                     _tiles(pos.set_aside[p]), bag_text(pos, p)])
    lines.append(tabulate(rows, headers=["player", "status", "VP", "steps", "storms", "path", "hand",
                                         "set aside", "bag"]))
    if pos.box:
        lines.append(f"\nBox: {_counts(pos.box)}")
    return "\n".join(lines)


def _decision_text(pos: Position, names: tuple[str, ...]) -> str:
    player = pos.current_player()
    if player == phases.TERMINAL_PLAYER:
        return f"game over, scores {pos.scores()}"
    if player == phases.CHANCE_PLAYER:
        count = len(pos.chance_outcomes())
        return f"chance ({phases.NAMES[pos.phase]}, {count} outcomes)"
    name = f" ({printable(names[player])})" if player < len(names) and names[player] else ""
    legal = ", ".join(str(a) for a in pos.legal_actions())
    tile = f" {TILES[pos.tile].name}" if pos.phase in (phases.OPTION, phases.DISCARD) else ""
    return f"player {player}{name} at {phases.NAMES[pos.phase]}{tile}: {legal}"


def render_game(record: GameRecord, game: Replay) -> str:
    """A game record: setup, events per walk, and the final position's tables."""
    names = ", ".join(printable(n) for n in record.names) or "-"
    header: list[list[object]] = [["players", record.players], ["names", names], ["route", record.route.name],
              ["ruleset", record.ruleset.name], ["seed", "-" if record.seed is None else record.seed],
              ["events", len(record.events)]]
    if record.title:
        header.insert(0, ["name", printable(record.title)])
    per_walk = Counter(walk_number(step.position) for step in game.steps)
    walks = tabulate([[walk, per_walk[walk]] for walk in sorted(per_walk)],
                     headers=["walk", "events"])
    final = "Final position:" if game.final.is_terminal() else f"Position after the last event " \
                                                               f"({where(game.final)}):"
    return "\n".join([tabulate(header, tablefmt="plain"), "", walks, "", final,
                      render_tables(game.final, record.names)])


# --- commands ------------------------------------------------------------------------------------------

@click.command()
@click.argument("target")
@click.option("--events", "as_events", is_flag=True,
              help="A game record's events, one a line, as `refuge track` reads them.")
def show(target: str, as_events: bool) -> None:
    """Render a saved position, a game record or an example as tables.

    TARGET is a file (refuge-position/1 or refuge-game/1) or an example name (see
    `refuge examples`).

    \b
    Examples:
      refuge show opening-2p
      refuge show game.json --events | refuge track copy.json --players 3
    """
    try:
        data, source = _read_document(target)
        if is_record(data):
            record = parse_record(data, source)
            game = replay(record, source)
            if as_events:
                for line in movetext([(step.position, step.action) for step in game.steps]):
                    click.echo(line)
                return
            click.echo(render_game(record, game))
            return
        if as_events:
            raise MalformedFileError(f"{source}: --events: a saved position has no events "
                                     f"(expected a game record, {GAME_FORMAT})")
        saved = parse_position(data, source)
    except RefugeError as error:
        _fail(error)
    if saved.title or saved.story:
        click.echo(printable(f"{saved.title}: {saved.story}".strip(": ")) + "\n")
    click.echo(render_tables(saved.position, saved.names))


@click.command()
@click.argument("files", nargs=-1, required=True)
def validate(files: tuple[str, ...]) -> None:
    """Check saved positions and game records; exit 0 if all are valid, 1 otherwise.

    Prints one line per problem: FILE: JSONPATH: what was found, what was expected.

    Example: refuge validate game.json my-position.json
    """
    failed = False
    for name in files:
        try:
            data, source = _read_document(name)
            if is_record(data):
                record = parse_record(data, source)
                game = replay(record, source)
                click.echo(f"{name}: ok ({GAME_FORMAT}, {len(record.events)} events, "
                           f"{'over' if game.final.is_terminal() else where(game.final)})")
            else:
                parse_position(data, source)
                click.echo(f"{name}: ok (refuge-position/1)")
        except RefugeError as error:
            failed = True
            for line in str(error).splitlines():
                click.echo(line, err=True)
    if failed:
        raise click.exceptions.Exit(ERROR_EXIT)


@click.command()
@click.argument("game")
@click.option("--at", "event", type=click.IntRange(min=0), default=None,
              help="Event index: the position just before this event (default: after the last).")
@click.option("--walk", type=click.IntRange(min=1), default=None, help="Walk (1-based), with --turn.")
@click.option("--turn", type=click.IntRange(min=1), default=None, help="Turn (1-based), with --walk.")
@click.option("--player", type=click.IntRange(0, 3), default=None,
              help="Seat (0-based) whose decision in that walk and turn to stop at.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write the saved position here instead of printing it.")
def position(game: str, event: int | None, walk: int | None, turn: int | None,
             player: int | None, output: str | None) -> None:
    """Write the saved position at a point of a game record, seen by the player to decide.

    \b
    Examples:
      refuge position game.json --at 57 -o before-buy.json
      refuge position game.json --walk 2 --turn 3 --player 1
    """
    by_turn = (walk, turn, player)
    if event is not None and any(v is not None for v in by_turn):
        raise click.UsageError("give either --at or --walk/--turn/--player, not both")
    if event is None and any(v is not None for v in by_turn) and None in by_turn:
        raise click.UsageError("--walk, --turn and --player go together")
    try:
        data, source = _read_document(game)
        if not is_record(data):
            raise MalformedFileError(f"{source}: format: expected a game record ({GAME_FORMAT})")
        record = parse_record(data, source)
        played = replay(record, source)
        if walk is not None and turn is not None and player is not None:
            event = find_decision(record, walk, turn, player, played)
        if event is not None and event > len(record.events):
            raise MalformedFileError(f"{source}: --at {event}: the record has only "
                                     f"{len(record.events)} events")
        index = len(record.events) if event is None else event
        saved = _seen_by_actor(played.position_at(index), record.names)
        text = dump_position(saved.position, saved.names,
                             story=f"{record.title or source}, before event {index}")
        if output is None:
            click.echo(text, nl=False)
        else:
            write_atomically(output, text)
    except RefugeError as error:
        _fail(error)
    except OSError as error:
        _fail(OSError(f"{output}: cannot write the file ({error.strerror or error})"))


@click.command("examples")
def examples() -> None:
    """List the example positions shipped with the program, with their stories.

    Every command that takes a position accepts an example name in place of a file.

    Example: refuge examples
    """
    for name in example_names():
        saved = load_example(name)
        click.echo(f"{name:22} {saved.story or saved.title}")


COMMANDS = (show, validate, position, examples)
"""The commands this module adds to the `refuge` group."""
