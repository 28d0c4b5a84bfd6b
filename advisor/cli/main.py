"""The `refuge` command line."""

from __future__ import annotations

import signal
import sys
from types import FrameType

import click

from advisor.cli.advise import COMMANDS as ADVISE_COMMANDS
from advisor.cli.annotate import annotate
from advisor.cli.arena import arena_command
from advisor.cli.bench import bench_command
from advisor.cli.catalogue import catalogue_command
from advisor.cli.engine import engine_command
from advisor.cli.ladder import ladder_command
from advisor.cli.files import COMMANDS as FILE_COMMANDS
from advisor.cli.insights import insights_group
from advisor.cli.play import play
from advisor.cli.convergence import convergence_command
from advisor.cli.scaling import scaling_command
from advisor.cli.selfplay import selfplay
from advisor.cli.serve import serve
from advisor.cli.spsa import spsa_command
from advisor.cli.sprt import sprt_command
from advisor.cli.track import track
from positions import RefugeError


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="refuge-advisor")
def cli() -> None:
    """Refuge Advisor: rules engine, search and analysis for the board game Refuge."""


for _command in (*FILE_COMMANDS, *ADVISE_COMMANDS, selfplay, play, track, annotate,
                 arena_command, engine_command, ladder_command, bench_command, sprt_command, serve,
                 insights_group, scaling_command, spsa_command, convergence_command, catalogue_command):
    cli.add_command(_command)


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def main() -> None:
    """Entry point: run the CLI, turning bad input into a one-line error and exit code 1.

    SIGTERM stops a command as Ctrl-C does (an arena keeps its finished games and says so).
    """
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        code = cli.main(standalone_mode=False)
        if isinstance(code, int) and code:  # click returns, not raises, Exit(code) in this mode
            sys.exit(code)
    except click.exceptions.Exit as stop:
        sys.exit(stop.exit_code)
    except click.ClickException as error:
        error.show()
        sys.exit(2 if isinstance(error, click.UsageError) else 1)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except RefugeError as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(1)


if __name__ == "__main__":
    main()
