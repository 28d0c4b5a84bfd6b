"""Bad input becomes one line on stderr and exit code 1; a traceback never reaches a user."""

from __future__ import annotations

import functools
from typing import Callable, NoReturn, TypeVar

import click

from positions.errors import RefugeError
from search.errors import SearchError

BAD_INPUT_EXIT = 1
USER_ERRORS = (RefugeError, SearchError, OSError)
"""What a command reports as bad input rather than as a bug."""

F = TypeVar("F", bound=Callable[..., object])


def fail(error: BaseException | str) -> NoReturn:
    """Print `error` as ``error: ...`` lines on stderr and exit with code 1."""
    for line in str(error).splitlines() or ["error"]:
        click.echo(f"error: {line}", err=True)
    raise click.exceptions.Exit(BAD_INPUT_EXIT)


def reports_bad_input(command: F) -> F:
    """Wrap a command so that bad input (files, positions, options) ends in :func:`fail`."""

    @functools.wraps(command)
    def wrapper(*args: object, **kwargs: object) -> object:
        try:
            return command(*args, **kwargs)
        except BrokenPipeError:
            raise  # the reader went away (`refuge ... | head`): click ends quietly, exit code 1
        except USER_ERRORS as error:
            fail(error)

    return wrapper  # type: ignore[return-value]


def fail_on_one_line(error: Exception) -> NoReturn:
    """Report bad input on one line and exit 1 (the whole message on one line, no traceback)."""
    click.echo("error: " + " ".join(str(error).split()), err=True)
    raise click.exceptions.Exit(1)
