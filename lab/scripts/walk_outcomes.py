"""Where an agent's games are won and lost, walk by walk (issue 27, docs/strength.md).

For one agent of an arena database (e.g. ``default-1000`` of ``refuge scaling --against``'s store):
over the games it won, shared and lost, its own and its opponents' mean victory points in each walk
and how often the Storm caught them (lab.walks). ``--same-seat``: instead, beside the
agent's walks those of the opponent who sat in the same seat in the other game of the deal (the same
draws and weather): where the agent did better or worse than its opponent would have.

Usage: .venv/bin/python -m lab.scripts.walk_outcomes --db FILE --agent NAME [--agent NAME ...] [--same-seat]
"""

from __future__ import annotations

import argparse
import sys

from lab.walks import format_walk_lines, same_seat_lines, walk_lines
from positions.errors import RefugeError


def main(argv: list[str] | None = None) -> int:
    """Print each agent's table; a bad database or agent is one line on stderr and exit 2."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--db", required=True, help="an arena database")
    parser.add_argument("--agent", required=True, action="append", help="a stored agent's name (repeatable)")
    parser.add_argument("--same-seat", action="store_true",
                        help="beside the opponent in the same seat of the deal's other game")
    args = parser.parse_args(argv)
    lines = same_seat_lines if args.same_seat else walk_lines
    try:
        for agent in args.agent:
            print(format_walk_lines(lines(args.db, agent)))
            print()
    except RefugeError as error:
        print(f"walk_outcomes.py: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
