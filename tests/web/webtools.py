"""Helpers for the web tests: a games folder, small caps, a live server on a free port."""

from __future__ import annotations

import os
import shutil
import threading
import time

import uvicorn

from advisor.web.app import create_app
from advisor.web.config import WebConfig
from advisor.web.serving import uvicorn_config

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data")
GAME = "blunder-game.json"
LOCAL = "http://127.0.0.1"
"""The TestClient's base URL: a loopback Host, as a browser on this machine sends it."""
CHROMIUM = os.environ.get("REFUGE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def make_games(folder: str) -> str:
    """A games folder holding one 2-player game record (141 events, into walk 4)."""
    os.makedirs(folder, exist_ok=True)
    shutil.copy(os.path.join(DATA, GAME), os.path.join(folder, GAME))
    return folder


def small_config(games_dir: str, **caps: object) -> WebConfig:
    """Caps small enough that every search in a test ends in a second or two."""
    settings: dict[str, object] = {"games_dir": games_dir, "max_iterations": 400, "max_seconds": 20.0,
                                   "max_body_bytes": 200_000, "max_file_bytes": 200_000,
                                   "max_annotate_iterations": 50, "update_seconds": 0.05}
    settings.update(caps)
    return WebConfig(**settings)  # type: ignore[arg-type]


class LiveServer:
    """The app on uvicorn in a thread, on a free loopback port."""

    def __init__(self, config: WebConfig) -> None:
        self.server = uvicorn.Server(uvicorn_config(create_app(config), config, host="127.0.0.1", port=0,
                                                    log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> "LiveServer":
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(15)

    @property
    def app(self):  # the Starlette app, for its job manager
        return self.server.config.app


def stubborn_job(conn: object) -> None:
    """A job's child that ignores the cancel message and SIGTERM: only SIGKILL ends it."""
    import signal

    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    while True:
        time.sleep(0.05)

SCREENS = {"desktop": (1280, 800), "phone": (390, 844)}
"""The two screens pages are looked at on: a laptop and a phone (CSS pixels)."""
