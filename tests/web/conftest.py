"""Fixtures for the web app: a games folder, an in-process client, a live server, a headless browser."""

from __future__ import annotations

import os
import shutil
import threading
import time
from typing import Iterator

import pytest

import uvicorn
from starlette.testclient import TestClient

from advisor.web.app import create_app
from advisor.web.config import WebConfig

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data")
GAME = "blunder-game.json"
CHROMIUM = os.environ.get("REFUGE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def make_games(folder: str) -> str:
    """A games folder holding one finished 2-player game record."""
    os.makedirs(folder, exist_ok=True)
    shutil.copy(os.path.join(DATA, GAME), os.path.join(folder, GAME))
    return folder


@pytest.fixture
def games(tmp_path) -> str:
    return make_games(str(tmp_path / "games"))


def small_config(games_dir: str, **caps: object) -> WebConfig:
    """Caps small enough that every search in a test ends in a second or two."""
    settings: dict[str, object] = {"games_dir": games_dir, "max_iterations": 400, "max_seconds": 20.0,
                                   "max_body_bytes": 200_000, "max_file_bytes": 200_000,
                                   "max_annotate_iterations": 50, "update_seconds": 0.05}
    settings.update(caps)
    return WebConfig(**settings)  # type: ignore[arg-type]


@pytest.fixture
def client(games) -> Iterator[TestClient]:
    with TestClient(create_app(small_config(games)), raise_server_exceptions=False) as test_client:
        yield test_client


class LiveServer:
    """The app on uvicorn in a thread, on a free loopback port."""

    def __init__(self, config: WebConfig) -> None:
        self.server = uvicorn.Server(uvicorn.Config(create_app(config), host="127.0.0.1", port=0,
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


@pytest.fixture(scope="module")
def live(tmp_path_factory) -> Iterator[LiveServer]:
    folder = make_games(str(tmp_path_factory.mktemp("live") / "games"))
    with LiveServer(small_config(folder, max_iterations=200_000, max_seconds=30.0, update_seconds=0.2,
                                 max_annotate_iterations=50)) as server:
        yield server


@pytest.fixture(scope="module")
def browser():
    """Headless system Chromium driven by Playwright; skips where either is missing."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium; .ci/run installs it)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
