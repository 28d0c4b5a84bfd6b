"""Fixtures for the web app: a games folder, an in-process client, a live server, a headless browser."""

from __future__ import annotations

import os
from typing import Iterator

import pytest
from starlette.testclient import TestClient

from advisor.web.app import create_app
from webtools import CHROMIUM, CHROMIUM_ARGS, SCREENS, LiveServer, make_games, small_config, LOCAL


@pytest.fixture
def games(tmp_path) -> str:
    return make_games(str(tmp_path / "games"))


@pytest.fixture
def client(games) -> Iterator[TestClient]:
    with TestClient(create_app(small_config(games)), raise_server_exceptions=False, base_url=LOCAL) as test_client:
        yield test_client


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



@pytest.fixture
def page_at(browser):
    """A fresh page at one of :data:`SCREENS`; a script error on any page fails the test."""
    from test_browser import TIMEOUT_MS

    contexts, errors = [], []

    def make(screen: str):
        width, height = SCREENS[screen]
        context = browser.new_context(viewport={"width": width, "height": height}, bypass_csp=True)
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS * 3)
        page.on("pageerror", lambda error: errors.append(str(error)))
        return page

    yield make
    for context in contexts:
        context.close()
    assert not errors, f"script errors on the page: {errors}"
