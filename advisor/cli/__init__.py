"""The `refuge` click commands only: parse options, call a library function, print; may import every advisor package."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from advisor.cli.main import cli

__all__ = ["cli", "main"]


def main() -> None:
    """Run `refuge`; a Ctrl-C while its modules are still loading exits 130 without a traceback."""
    try:
        from advisor.cli.main import main as run
    except KeyboardInterrupt:
        print("aborted", file=sys.stderr)
        sys.exit(130)
    run()


def __getattr__(name: str) -> object:
    """`cli`, the click group, loaded on first use (so that `main` can guard the loading)."""
    if name == "cli":
        from advisor.cli.main import cli

        return cli
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
