"""`refuge engine`: serve an agent over the engine protocol (:mod:`advisor.players.engine`)."""

from __future__ import annotations

import sys

import click

from advisor.players.agents import make_agent
from advisor.players.engine import DEFAULT_AGENT, serve
from advisor.players.specs import parse_agent_spec
from positions import RefugeError


@click.command("engine")
@click.option("--agent", "spec_text", default=DEFAULT_AGENT, show_default=True, metavar="SPEC",
              help="the in-process agent to serve (random, heuristic, ismcts:iterations=N, ...)")
def engine_command(spec_text: str) -> None:
    """Serve an agent over the engine protocol (JSON lines on stdin/stdout; docs/engine-protocol.md).

    Example: echo '{"cmd":"identify"}' | refuge engine --agent heuristic
    """
    try:
        spec = parse_agent_spec(spec_text)
        agent = make_agent(spec)
    except RefugeError as error:
        click.echo(f"error: {error}", err=True)
        raise click.exceptions.Exit(1)
    serve(agent, spec, sys.stdin.buffer, sys.stdout)
