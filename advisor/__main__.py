"""The `refuge` command's entry point (and `python -m advisor`): load the command line, then run it.

It sits outside `advisor.cli` so that nothing but the `advisor` package (its compiled-build guard)
loads before it can catch Ctrl-C: the commands take about half a second to import, and a Ctrl-C in
that time ends with one line, as it does once a command runs, instead of Python's traceback.
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
