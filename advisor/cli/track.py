"""`refuge track`: follow a real game at the table, one typed event a line, writing its record."""

from __future__ import annotations

import os
import sys
from typing import Callable, Iterator

import click

from advisor.analysis.track import HELP, TrackSession
from advisor.cli.advise import echo_advice
from advisor.cli.errors import fail, reports_bad_input
from advisor.cli.files import render_tables
from positions.errors import InvalidActionError, IllegalActionError, RefugeError
from positions.files import write_atomically
from positions.record import GameRecord, dump_record, load_record
from positions.kernel.routes import parse_route
from positions.kernel.rulesets import RULESETS
from positions.errors import did_you_mean

TRACK_ITERATIONS = 1000


def _start(path: str, players: int | None, route: str, ruleset: str, names: str) -> TrackSession:
    if os.path.exists(path):
        if players is not None:
            raise click.UsageError(f"{path} exists: leave out --players to continue it, or give a "
                                   f"new file name")
        return TrackSession.from_record(load_record(path), path)
    if players is None:
        raise click.UsageError(f"{path} does not exist: give --players (and --route) to start a game")
    if ruleset not in RULESETS:
        raise click.UsageError(f"--ruleset: unknown ruleset {ruleset!r}"
                               + did_you_mean(ruleset, RULESETS))
    seats = tuple(n.strip() for n in names.split(",")) if names else ()
    if seats and len(seats) != players:
        raise click.UsageError(f"--names: {len(seats)} names for {players} players")
    return TrackSession(GameRecord(players, parse_route(route), RULESETS[ruleset], seats))


def _lines(session: TrackSession, interactive: bool) -> Iterator[str]:
    """Typed lines: with a prompt and tab completion on a terminal, else standard input."""
    if not interactive:
        for line in sys.stdin:
            yield line.rstrip("\n")
        return
    try:
        import readline  # noqa: F401  (line editing and history for input())
        readline.set_completer_delims("\n")
        readline.parse_and_bind("tab: complete")
        matches: list[str] = []

        def complete(text: str, state: int) -> str | None:
            if state == 0:
                matches[:] = session.completions(readline.get_line_buffer())
            return matches[state] if state < len(matches) else None

        readline.set_completer(complete)
    except ImportError:  # pragma: no cover - platforms without readline
        pass
    while True:
        try:
            yield input(session.prompt())
        except EOFError:
            click.echo()
            return


def _run_command(session: TrackSession, words: list[str], save: Callable[[], None],
                 iterations: int, seed: int) -> bool:
    """Run a command line (``advise 1``, ``undo 3`` ...); whether it was one."""
    command, args = words[0], words[1:]
    if command in ("help", "?"):
        click.echo(HELP)
    elif command == "show":
        click.echo(render_tables(session.position, session.names))
    elif command == "bags":
        for line in session.bags():
            click.echo(line)
    elif command == "save":
        save()
        click.echo("saved")
    elif command == "undo":
        count = _number(args, 1)
        dropped = session.undo(1 if count is None else count)
        save()
        click.echo(f"undid {dropped} event{'s' if dropped != 1 else ''}; next: "
                   f"{session.prompt().rstrip(' >')}")
    elif command == "advise":
        seat = session.seat(args[0]) if args else None  # `advise 1`, `advise Ann`
        advice = session.advise(seat, iterations, seed)
        echo_advice(advice, seed, 1, session.names)
    else:
        return False
    return True


def _number(args: list[str], default: int | None) -> int | None:
    if not args:
        return default
    if not args[0].isdigit():
        raise InvalidActionError(f"expected a number, found {args[0]!r}")
    return int(args[0])


@click.command("track")
@click.argument("game_file", metavar="GAME.json", type=click.Path(dir_okay=False))
@click.option("--players", type=click.IntRange(2, 4), default=None,
              help="Start a new game with this many players (else continue GAME.json).")
@click.option("--route", default="meadows", show_default=True,
              help="A new game's route: meadows, forest, mountains or 8 comma-separated kinds.")
@click.option("--ruleset", default="default", show_default=True, help="A new game's ruleset.")
@click.option("--names", default="", help="A new game's player names, comma-separated, seat order.")
@click.option("--iterations", type=click.IntRange(min=1), default=TRACK_ITERATIONS, show_default=True,
              help="Search budget of `advise`.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of `advise`.")
@reports_bad_input
def track(game_file: str, players: int | None, route: str, ruleset: str, names: str,
          iterations: int, seed: int) -> None:
    """Follow a game at the table: type each event as it happens; the record is kept in GAME.json.

    Events are in action notation, one a line, chance included (docs/notation.md), with short forms
    ("draw sign storm", "sun", "bear" at a buy); commands: advise, show, bags, undo [N], save,
    help, quit. Reads standard input when it is not a terminal (stops at the first bad line).

    Example: refuge track game.json --players 3 --route forest --names Ann,Ben,Cy
    """
    session = _start(game_file, players, route, ruleset, names)

    def save() -> None:
        write_atomically(game_file, dump_record(session.record()))

    save()
    interactive = sys.stdin.isatty()
    if interactive:
        click.echo(f"Tracking {game_file}; type help for the notation and commands.")
    for number, line in enumerate(_lines(session, interactive), 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        words = text.lower().split()
        if words[0] in ("quit", "exit"):
            break
        try:
            if _run_command(session, words, save, iterations, seed):
                continue
        except (InvalidActionError, IllegalActionError) as error:
            click.echo(f"  {error}", err=not interactive)  # a refused command changes nothing
            continue
        try:
            over = session.position.is_terminal()
            for out in session.enter_line(text).lines:
                click.echo(out)
            save()
            if session.position.is_terminal() and not over:
                click.echo(f"game over: scores {session.position.scores()}")
        except (InvalidActionError, IllegalActionError) as error:
            if not interactive:
                fail(f"line {number}: {text!r}: {error}")
            click.echo(f"  {error}")
        except RefugeError as error:
            fail(error)
    save()
    click.echo(f"record written to {game_file} ({len(session.record().events)} events)")
