"""The `refuge` command line."""

from __future__ import annotations

import importlib
import signal
import sys
from types import FrameType

import click

from positions import RefugeError

LAZY_COMMANDS: dict[str, tuple[str, str]] = {
    "show": ("advisor.cli.files", "show"),
    "validate": ("advisor.cli.files", "validate"),
    "position": ("advisor.cli.files", "position"),
    "examples": ("advisor.cli.files", "examples"),
    "best-move": ("advisor.cli.advise", "best_move"),
    "solve": ("advisor.cli.advise", "solve"),
    "selfplay": ("advisor.cli.selfplay", "selfplay"),
    "play": ("advisor.cli.play", "play"),
    "track": ("advisor.cli.track", "track"),
    "annotate": ("advisor.cli.annotate", "annotate"),
    "arena": ("advisor.cli.arena", "arena_command"),
    "engine": ("advisor.cli.engine", "engine_command"),
    "ladder": ("advisor.cli.ladder", "ladder_command"),
    "bench": ("advisor.cli.bench", "bench_command"),
    "sprt": ("advisor.cli.sprt", "sprt_command"),
    "serve": ("advisor.cli.serve", "serve"),
    "insights": ("advisor.cli.insights", "insights_group"),
    "scaling": ("advisor.cli.scaling", "scaling_command"),
    "spsa": ("advisor.cli.spsa", "spsa_command"),
    "convergence": ("advisor.cli.convergence", "convergence_command"),
    "catalogue": ("advisor.cli.catalogue", "catalogue_command"),
}
"""Every command by name: its module and the click command in it, imported only when that command
runs (or ``--help`` lists them all), so a command pays for its own imports alone."""


class LazyGroup(click.Group):
    """A click group whose commands are loaded from :data:`LAZY_COMMANDS` on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command's name, sorted (as click lists them)."""
        return sorted(LAZY_COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The named command, its module imported now (a Ctrl-C meanwhile aborts as one does while a
        command runs); None for an unknown name."""
        if cmd_name not in LAZY_COMMANDS:
            return None
        module, attribute = LAZY_COMMANDS[cmd_name]
        try:
            command: click.Command = getattr(importlib.import_module(module), attribute)
        except KeyboardInterrupt:
            raise click.exceptions.Abort() from None
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="refuge-advisor")
def cli() -> None:
    """Refuge Advisor: rules engine, search and analysis for the board game Refuge."""


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
