"""`refuge engine`: serve an agent over the engine protocol (:mod:`advisor.players.engine`)."""

from __future__ import annotations

import click

from advisor.players.engine import DEFAULT_AGENT, main


@click.command("engine")
@click.option("--agent", "spec_text", default=DEFAULT_AGENT, show_default=True, metavar="SPEC",
              help="the in-process agent to serve (random, heuristic, ismcts:iterations=N, ...)")
def engine_command(spec_text: str) -> None:
    """Serve an agent over the engine protocol (JSON lines on stdin/stdout; docs/engine-protocol.md).

    While a search thinks it streams info lines ({"cmd":"setoption","name":"info","value":true}),
    lists several options ({"cmd":"setoption","name":"multipv","value":3}), searches until told
    ({"cmd":"go","infinite":true}) and answers {"cmd":"stop"} at once.

    Example: echo '{"cmd":"identify"}' | refuge engine --agent heuristic
    """
    main(["--agent", spec_text])
