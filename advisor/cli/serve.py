"""`refuge serve`: the analysis board in the browser (advisor/web), on uvicorn."""

from __future__ import annotations

import logging
import os
import secrets
import socket

import click

from advisor.cli.errors import fail
from advisor.web.config import LOOPBACK_HOSTS, WebConfig


def _listen(host: str, port: int) -> socket.socket:
    """A socket bound to `host`:`port`, or one line on stderr and exit 1 (before any banner)."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        sock = socket.socket(family, kind, proto)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError as error:
        fail(f"cannot listen on {host}:{port}: {error.strerror or error} (another server? "
             "--port chooses another)")
    return sock


def _names(host: str, allowed: tuple[str, ...]) -> tuple[str, ...]:
    """The Host names the server answers to: loopback, what --host names, --allow-host."""
    names = list(LOOPBACK_HOSTS) + list(allowed)
    if host in ("0.0.0.0", "::", ""):
        names += [socket.gethostname(), socket.getfqdn()]
    else:
        names.append(host)
    return tuple(dict.fromkeys(n.lower().strip("[]") for n in names if n))


@click.command("serve")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True)
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on; 127.0.0.1 keeps the server to this machine. Any other "
                   "address needs a token (generated unless --token gives one).")
@click.option("--allow-host", "allow_host", multiple=True, metavar="NAME",
              help="Another name clients may reach the server by (the Host header); repeatable.")
@click.option("--token", default="", help="The token every request must carry (printed in the URL; "
                                          "generated when listening beyond loopback).")
@click.option("--games", "games_dir", type=click.Path(file_okay=False), default=".",
              show_default="the current folder",
              help="Folder of game records to review; tracked games are saved here. No file outside "
                   "it is ever read or written.")
@click.option("--max-seconds", type=click.FloatRange(min=0.1), default=60.0, show_default=True,
              help="Running time cap of one analysis or annotation.")
@click.option("--max-iterations", type=click.IntRange(min=1), default=200_000, show_default=True,
              help="Iteration cap of one analysis.")
@click.option("--slots", type=click.IntRange(min=1), default=os.cpu_count() or 1,
              show_default="one per core", help="Searches running at once; the rest wait in a queue.")
@click.option("--max-paused", type=click.IntRange(min=1), default=None, show_default="twice the slots",
              help="Paused analyses kept at once; pausing one more cancels the one paused longest ago.")
@click.option("--max-tracked", type=click.IntRange(min=1), default=200, show_default=True,
              help="Tracked games the folder may hold; starting one more is refused.")
def serve(port: int, host: str, allow_host: tuple[str, ...], token: str, games_dir: str,
          max_seconds: float, max_iterations: int, slots: int, max_paused: int | None,
          max_tracked: int) -> None:
    """Serve the analysis board: board, editor, live analysis, game review and table tracker.

    Example: refuge serve --games runs/demo   (then open http://127.0.0.1:8765/)
    """
    try:
        import uvicorn

        from advisor.web.app import create_app
        from advisor.web.serving import uvicorn_config
    except ImportError as error:
        fail(f"refuge serve needs the [web] extra ({error.name} is missing): pip install -e '.[web]'")
    if not os.path.isdir(games_dir):
        fail(f"--games {games_dir}: no such folder")
    beyond = host not in LOOPBACK_HOSTS
    if beyond and not token:
        token = secrets.token_hex(24)
    config = WebConfig(games_dir=os.path.abspath(games_dir), max_seconds=max_seconds,
                       max_iterations=max_iterations, slots=slots, max_paused=max_paused or 0,
                       max_tracked=max_tracked, hosts=_names(host, allow_host), token=token)
    sock = _listen(host, port)
    port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    query = f"?token={token}" if token else ""
    click.echo(f"refuge serve: http://{shown}:{port}/{query}  (games: {config.games_dir}; Ctrl-C stops)")
    if beyond:
        click.echo(f"note: listening on {host}: other machines can reach this server; every request "
                   f"needs the token in the URL above", err=True)
    logging.basicConfig(format="refuge serve: %(message)s", level=logging.INFO)
    logging.getLogger("refuge.web").setLevel(logging.INFO)
    app = create_app(config)

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: object) -> None:
            app.state.jobs.stopping = True  # open event streams end, so the shutdown does not wait
            super().handle_exit(sig, frame)  # type: ignore[arg-type]

    server = Server(uvicorn_config(app, config, log_level="warning", timeout_graceful_shutdown=5))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn re-raises the Ctrl-C it handled, once it has shut down
        pass
    click.echo("refuge serve: stopped")
