"""The `refuge` command's entry point (and `python -m advisor`): load the command line, then run it.

It sits outside `advisor.cli` so that nothing but the `advisor` package loads before it can catch
Ctrl-C: a Ctrl-C while the command line loads ends with one line, as it does once a command runs,
instead of Python's traceback (each command's own modules load when it runs:
``advisor.cli.main.LAZY_COMMANDS``).
"""

from __future__ import annotations

import sys

INTERRUPTED_EXIT_CODE = 130
"""The exit status of a command stopped by Ctrl-C (128 + SIGINT), as the shell reports it."""


def main() -> None:
    """Run `refuge`: import the commands (a Ctrl-C meanwhile prints "aborted"), then run them."""
    try:
        from advisor.cli.main import main as run_command_line
    except KeyboardInterrupt:
        print("aborted", file=sys.stderr)
        sys.exit(INTERRUPTED_EXIT_CODE)
    run_command_line()


if __name__ == "__main__":
    main()
