"""`refuge serve`: the analysis board in the browser (advisor/web), on uvicorn."""

from __future__ import annotations

import os
import socket

import click

from advisor.cli.errors import fail
from advisor.web.config import WebConfig


def _check_listening(host: str, port: int) -> None:
    """Fail with one line, before anything is printed, when the address cannot be listened on."""
    if port == 0:
        return
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as error:
        fail(f"--host {host}: {error.strerror or error}")
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind(address)
        except OSError as error:
            fail(f"cannot listen on {host}:{port}: {error.strerror or error} (another server? "
                 "--port chooses another)")


@click.command("serve")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True)
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on; 127.0.0.1 keeps the server to this machine.")
@click.option("--games", "games_dir", type=click.Path(file_okay=False), default=".",
              show_default="the current folder",
              help="Folder of game records to review; tracked games are saved here. No file outside "
                   "it is ever read.")
@click.option("--max-seconds", type=click.FloatRange(min=0.1), default=60.0, show_default=True,
              help="Running time cap of one analysis or annotation.")
@click.option("--max-iterations", type=click.IntRange(min=1), default=200_000, show_default=True,
              help="Iteration cap of one analysis.")
@click.option("--slots", type=click.IntRange(min=1), default=os.cpu_count() or 1,
              show_default="one per core", help="Searches running at once; the rest wait in a queue.")
def serve(port: int, host: str, games_dir: str, max_seconds: float, max_iterations: int,
          slots: int) -> None:
    """Serve the analysis board: board, editor, live analysis, game review and table tracker.

    Example: refuge serve --games runs/demo   (then open http://127.0.0.1:8765/)
    """
    try:
        import uvicorn

        from advisor.web.app import create_app
    except ImportError as error:
        fail(f"refuge serve needs the [web] extra ({error.name} is missing): pip install -e '.[web]'")
    if not os.path.isdir(games_dir):
        fail(f"--games {games_dir}: no such folder")
    _check_listening(host, port)
    config = WebConfig(games_dir=os.path.abspath(games_dir), max_seconds=max_seconds,
                       max_iterations=max_iterations, slots=slots)
    shown = f"[{host}]" if ":" in host else host
    click.echo(f"refuge serve: http://{shown}:{port}/  (games: {config.games_dir}; Ctrl-C stops)")
    if host not in ("127.0.0.1", "localhost", "::1"):
        click.echo(f"note: listening on {host}: other machines can reach this server", err=True)
    app = create_app(config)

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: object) -> None:
            app.state.jobs.stopping = True  # open event streams end, so the shutdown does not wait
            super().handle_exit(sig, frame)  # type: ignore[arg-type]

    server = Server(uvicorn.Config(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=5))
    try:
        server.run()
    except KeyboardInterrupt:  # uvicorn re-raises the Ctrl-C it handled, once it has shut down
        pass
    click.echo("refuge serve: stopped")
