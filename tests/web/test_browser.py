"""The pages in a real browser (headless system Chromium via Playwright) against a live server.

Few and quick: each walks one screen through what a player does and saves a screenshot of it
under the test's tmp dir (checked not blank).
"""

from __future__ import annotations

import os
import re

import pytest

from webtools import GAME, LiveServer
from positions.record import load_record

TIMEOUT_MS = 20_000


def not_blank(path: str) -> None:
    """The screenshot exists and shows more than one flat colour."""
    from PIL import Image

    with Image.open(path) as image:
        grey = image.convert("L")
        low, high = grey.getextrema()
        colours = len(grey.getcolors(maxcolors=256 * 256) or [])
    assert high - low > 100 and colours > 20, f"{path} looks blank"


@pytest.fixture
def page(browser, live: LiveServer):
    context = browser.new_context(viewport={"width": 1200, "height": 900}, bypass_csp=True)  # lets the test evaluate JS
    tab = context.new_page()
    tab.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    yield tab
    context.close()
    assert not errors, f"script errors on the page: {errors}"


def shot(page, tmp_path, name: str) -> str:
    path = os.path.join(tmp_path, f"{name}.png")
    page.screenshot(path=path, full_page=True)
    not_blank(path)
    return path


def test_board_fills_and_updates_the_options_during_an_analysis(page, live: LiveServer, tmp_path) -> None:
    page.goto(f"{live.url}/board?example=opening-2p")
    page.wait_for_selector(".player >> nth=1")
    assert page.inner_text("#decision-text") == "Ann (0) to decide: which tile to play"
    assert page.locator(".player").first.locator(".path .tile").count() == 1
    shot(page, tmp_path, "board")
    page.click("#analyse")
    page.wait_for_selector("#options tbody tr >> nth=1")
    first = page.inner_text("#analysis-rate")
    page.wait_for_function("(first) => document.querySelector('#analysis-rate').textContent !== first", arg=first)
    assert re.search(r"[\d,]+ it/s", page.inner_text("#analysis-rate"))
    visits = page.locator("#options td.visits").all_inner_texts()
    assert len(visits) == 2 and sum(int(v.replace(",", "")) for v in visits) > 0
    page.click("#stop")
    page.wait_for_function("document.querySelector('#analysis-status').textContent === 'paused'")
    shot(page, tmp_path, "analysis")
    assert page.locator("#options thead th").all_inner_texts()[:6] == [
        "#", "action", "win", "noise (95%)", "exp. score", "visits"]
    assert page.inner_text("#noise-note").startswith("noise (95%): the search's Monte Carlo noise")
    wins = page.locator("#players tbody tr td:nth-child(2)").all_inner_texts()
    assert len(wins) == 2 and abs(sum(float(w.rstrip("%")) for w in wins) - 100) <= 0.1  # one decimal each
    assert page.locator("#players tbody tr").first.inner_text().startswith("Ann (0), to decide")
    best = page.locator("#options tbody tr.best").get_attribute("data-action")
    assert page.inner_text("#options tbody tr.best td.rank") == "1"
    assert re.fullmatch(rf"Recommendation: {re.escape(best)} \(.+\)", page.inner_text("#recommendation"))
    assert page.inner_text("#principal-line").startswith(f"Line: {best}")
    page.locator("#options tbody tr.best button").click()  # plays it on the board
    page.wait_for_function("(a) => document.querySelector('#line-text').textContent.includes(a)", arg=best)
    page.set_viewport_size({"width": 390, "height": 844})  # a phone
    page.wait_for_timeout(200)
    assert page.evaluate("document.documentElement.scrollWidth") <= 392
    shot(page, tmp_path, "board-phone")


def test_editing_a_tile_shows_the_readers_error_beside_the_field(page, live: LiveServer, tmp_path) -> None:
    page.goto(f"{live.url}/editor")
    page.wait_for_selector(".validity.ok")
    player = page.locator('fieldset[data-path="players[0]"]')
    player.locator('.field.tiles[data-path="players[0].path"] select.add-tile').select_option("bear")
    # (a second problem says the path is now longer than its turns allow)
    problem = player.locator(".problem", has_text="bear").first
    problem.wait_for()
    assert "bear" in problem.inner_text() and "route meadows" in problem.inner_text()
    assert page.inner_text("#validity").startswith("✗")
    shot(page, tmp_path, "editor")
    player.locator('button[aria-label="remove bear from players[0].path"]').click()
    page.wait_for_selector(".validity.ok")


def test_stepping_through_a_game_and_clicking_a_chart_marker(page, live: LiveServer, tmp_path) -> None:
    page.goto(f"{live.url}/review?file={GAME}&iterations=3")
    page.wait_for_selector('.move[data-event="0"].current')
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    page.wait_for_selector('.move[data-event="3"].current')
    assert page.inner_text("#at-text").startswith("before event 3")
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector('.move[data-event="2"].current')
    page.click("#annotate")
    page.wait_for_selector("svg.win-chart circle.point", timeout=60_000)
    markers = page.locator("svg.win-chart g.marker")
    target = markers.first if markers.count() else page.locator("svg.win-chart circle.point").nth(5)
    event = target.get_attribute("data-event")
    target.click()
    page.wait_for_selector(f'.move[data-event="{event}"].current')
    assert page.inner_text("#at-text").startswith(f"before event {event}")
    assert page.locator("svg.win-chart line.walk").count() == 4  # walks 1 to 4 start in this record
    shot(page, tmp_path, "review")


def test_following_three_events_at_the_table_and_undoing_one(page, live: LiveServer, tmp_path) -> None:
    page.goto(f"{live.url}/track")
    page.fill("#names", "<i>Ann</i>, Ben")
    page.click("#create")
    page.wait_for_selector('button.action[data-action="draw"]')
    page.click('button.action[data-action="draw"]')  # Ann draws
    page.wait_for_selector("#saved:has-text('1 events')")
    page.click('button.action[data-action="draw"]')  # Ben draws
    page.wait_for_selector(".draw-picker")
    picker = page.locator(".draw-picker")
    picker.locator('button.tile[data-tile="sign"]').click()  # Ann's deal, tapped tile by tile
    picker.locator('button.tile[data-tile="signpost"]').click()
    page.wait_for_selector("#saved:has-text('3 events')")
    name = page.locator(".player-name").first
    assert name.inner_text() == "<i>Ann</i>" and name.locator("i").count() == 0  # shown as text
    game_id = re.search(r"id=([\w-]+)", page.url).group(1)  # type: ignore[union-attr]
    saved = load_record(os.path.join(live.app.state.config.games_dir, f"tracked-{game_id}.json"))
    assert [str(e) for e in saved.events] == ["draw", "draw", "drawn sign signpost"]
    assert page.locator("#moves li").last.inner_text() == "1.1 <i>Ann</i> (0) drew sign signpost"  # whose draw
    shot(page, tmp_path, "track")
    page.click("#undo")
    page.wait_for_selector("#saved:has-text('2 events')")
    assert len(load_record(os.path.join(live.app.state.config.games_dir, f"tracked-{game_id}.json")).events) == 2
    page.wait_for_selector(".draw-picker")
