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
        low, high = (float(v) for v in grey.getextrema())  # type: ignore[arg-type]  # one band: two numbers
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
    shot(page, tmp_path, "board")  # the engine is on (the default): the analysis starts by itself
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
    assert page.inner_text("#principal-line").startswith(f"Line: Ann (0): {best}")
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
    target = markers.last if markers.count() else page.locator("svg.win-chart circle.point").nth(5)  # drawn last: on top
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


# --- a whole turn, weather tile included (issue 23 item 3) -----------------------------------------

def tap(page, button, tapped: list[str]) -> None:
    """Click `button` and wait until the page has re-rendered (the button gone)."""
    handle = button.element_handle()
    handle.click()
    try:
        page.wait_for_function("(el) => !el.isConnected", arg=handle)
    except Exception:
        raise AssertionError(f"no re-render; errors {page.inner_text('#errors')!r} after {tapped}") from None


def tap_through_a_turn(page, saved_events=None) -> list[str]:
    """Tap every event of the turn until its weather tile is tapped: at each simultaneous step the
    last seat's choice first (any order), draws by Sample, the weather by its outcome button; a draw
    over a return so that the turn goes on. The decisions tapped, in order."""
    tapped: list[str] = []
    for _ in range(80):
        page.wait_for_selector("section.actions")
        weather = page.locator('button.action.chance[data-action^="weather"]')
        if weather.count():
            assert weather.count() >= 1 and page.locator("section.actions button.sample").count() == 1
            options = weather.all_inner_texts()
            assert all(re.fullmatch(r"weather (sun|storm) \(\d+\.\d%\)", o) for o in options), options
            button = weather.last  # Storm when it can come
            tapped.append(button.get_attribute("data-action"))
            tap(page, button, tapped)
            return tapped
        chance = page.locator("section.actions button.action.chance")
        if page.locator(".draw-picker").count() or chance.count():
            button = page.locator("section.actions button.sample")
        else:
            rows = page.locator("section.actions .seat-choices")
            row = rows.last  # the last seat first: simultaneous choices in any order
            draw = row.locator('button.action[data-action="draw"]')
            button = draw if draw.count() else row.locator("button.action").first
            tapped.append(f"{row.get_attribute('data-seat')}: {button.get_attribute('data-action')}")
        tap(page, button, tapped)
    raise AssertionError(f"no weather tile within 80 taps: {tapped}")


def test_a_whole_turn_at_the_table_weather_included(page, live: LiveServer, tmp_path) -> None:
    page.goto(f"{live.url}/track")
    page.fill("#names", "Ann, Ben")
    page.click("#create")
    page.wait_for_selector('.seat-choices[data-seat="1"] button.action[data-action="draw"]')
    assert page.locator(".seat-choices").count() == 2  # both decide at once, either may tap first
    page.click('.seat-choices[data-seat="1"] button.action[data-action="draw"]')  # Ben before Ann
    page.wait_for_selector('.player[data-seat="1"] .choice:has-text("has chosen")')
    assert page.locator(".seat-choices").count() == 1
    shot(page, tmp_path, "track-held")
    tapped = tap_through_a_turn(page)
    page.wait_for_selector("#decision-text:has-text('decide')")
    assert page.inner_text(".summary .pill:nth-child(2)") == "Turn 2"
    game_id = re.search(r"id=([\w-]+)", page.url).group(1)  # type: ignore[union-attr]
    saved = [str(e) for e in load_record(os.path.join(live.app.state.config.games_dir,
                                                      f"tracked-{game_id}.json")).events]
    assert saved[:2] == ["draw", "draw"]  # applied in seat order, whatever the tapping order
    assert saved[-1] == tapped[-1] and saved[-1].startswith("weather ")
    shot(page, tmp_path, "track-turn")


def test_a_whole_turn_on_the_board_weather_included(page, live: LiveServer, tmp_path) -> None:
    page.goto(f"{live.url}/board?example=opening-2p")  # turn 2, at the choose step
    page.wait_for_selector(".player >> nth=1")
    assert page.locator(".seat-choices").count() == 2  # both choose at once, either may tap first
    tap_through_a_turn(page)  # the rest of turn 2
    page.wait_for_selector("#decision-text:has-text('decide')")
    assert page.inner_text(".summary .pill:nth-child(2)") == "Turn 3"
    tapped = tap_through_a_turn(page)  # turn 3 whole, from decide to its weather tile
    page.wait_for_selector("#decision-text:has-text('decide')")
    assert tapped[0].startswith("1: ") and tapped[-1].startswith("weather ")  # Ben tapped before Ann
    assert page.inner_text("#line-text").endswith(tapped[-1])
    assert page.inner_text(".summary .pill:nth-child(2)") == "Turn 4"
    shot(page, tmp_path, "board-turn")


# --- cross-site requests from a page on another origin (issue 24 item 1) ---------------------------

EVIL_PAGE = """<!doctype html><html><body>
<form id="f" method="post" enctype="text/plain" target="sink"><input name='{"players":2,"x":"' value='"}'></form>
<iframe name="sink"></iframe>
<script>
const target = new URLSearchParams(location.search).get("target");
async function attack() {
  const results = [];
  for (const path of ["/api/tracked", "/api/analyses"]) {
    try { await fetch(target + path, { method: "POST", mode: "no-cors", headers: { "content-type": "text/plain" },
                                       body: JSON.stringify({ players: 2, example: "opening-2p" }) }); results.push("sent"); }
    catch (e) { results.push("blocked"); }
    try { await fetch(target + path, { method: "POST", headers: { "content-type": "application/json" },
                                       body: JSON.stringify({ players: 2, example: "opening-2p" }) }); results.push("sent"); }
    catch (e) { results.push("blocked"); }
  }
  const form = document.getElementById("f");
  form.action = target + "/api/tracked";
  form.submit();
  document.title = "done " + results.join(",");
}
attack();
</script></body></html>"""


def test_a_page_on_another_origin_cannot_change_anything(page, live: LiveServer, tmp_path) -> None:
    import http.server
    import threading

    (tmp_path / "evil.html").write_text(EVIL_PAGE)
    handler = lambda *a, **k: http.server.SimpleHTTPRequestHandler(*a, directory=str(tmp_path), **k)  # noqa: E731
    evil = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    folder = live.app.state.config.games_dir
    before = sorted(n for n in os.listdir(folder) if n.startswith("tracked-"))
    jobs_before = dict(live.app.state.jobs.counts), len(live.app.state.jobs.jobs)
    try:  # localhost vs 127.0.0.1: another origin (and another port) on this machine
        page.goto(f"http://localhost:{evil.server_address[1]}/evil.html?target={live.url}")
        page.wait_for_function("document.title.startsWith('done')")
        page.wait_for_timeout(1000)  # the form's post
    finally:
        evil.shutdown()
    assert sorted(n for n in os.listdir(folder) if n.startswith("tracked-")) == before
    assert (dict(live.app.state.jobs.counts), len(live.app.state.jobs.jobs)) == jobs_before


def test_the_printed_token_url_opens_the_pages_and_nothing_opens_without_it(browser, tmp_path) -> None:
    from webtools import make_games, small_config

    config = small_config(make_games(str(tmp_path / "games")), token="t0ken-for-the-test")
    with LiveServer(config) as server:
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        tab = context.new_page()
        tab.set_default_timeout(TIMEOUT_MS)
        refused = tab.goto(f"{server.url}/track")
        assert refused is not None and refused.status == 403
        tab.goto(f"{server.url}/?token=t0ken-for-the-test")  # the URL `refuge serve` prints
        tab.goto(f"{server.url}/track")  # the cookie carries the token from then on
        tab.click("#create")
        tab.wait_for_selector('.seat-choices[data-seat="1"] button.action[data-action="draw"]')
        assert len([n for n in os.listdir(config.games_dir) if n.startswith("tracked-")]) == 1
        context.close()


def test_a_tie_break_on_the_board_is_tapped_like_any_chance_outcome(page, live: LiveServer, tmp_path) -> None:
    """C12: both buy the last Compass with equal score and Steps, a full tie: a chance event; the
    board offers each seat's win, then the weather tile."""
    from positions.kernel.actions import parse_action
    from positions.kernel.position import Position
    from positions.saved import position_to_data

    pos = Position.new_game(2, "meadows")
    for event in ("draw", "draw", "drawn sign signpost", "drawn sign signpost", "play sign", "play sign"):
        pos.apply(parse_action(event))
    doc = position_to_data(pos)
    doc["market"]["compass"], doc["box"] = 1, {"compass": 3}  # type: ignore[index]  # the last Compass of the stack
    page.goto(f"{live.url}/board")
    page.evaluate("(doc) => sessionStorage.setItem('refuge-position', JSON.stringify(doc))", doc)
    page.reload()
    page.wait_for_selector('.seat-choices[data-seat="1"] button.action[data-action="buy compass"]')
    page.click('.seat-choices[data-seat="1"] button.action[data-action="buy compass"]')  # Ben first
    page.wait_for_selector('.player[data-seat="1"] .choice:has-text("has chosen")')
    page.click('.seat-choices[data-seat="0"] button.action[data-action="buy compass"]')
    page.wait_for_selector('button.action.chance[data-action="tiebreak 1"]')
    assert page.locator("button.action.chance").all_inner_texts() == ["tiebreak 0 (50.0%)", "tiebreak 1 (50.0%)"]
    assert page.inner_text("#line-text") == "moves: player 0: buy compass · player 1: buy compass"  # who, in seat order
    shot(page, tmp_path, "board-tiebreak")
    page.click('button.action.chance[data-action="tiebreak 1"]')
    page.wait_for_selector('button.action.chance[data-action^="weather"]')
    assert page.inner_text("#line-text").endswith("tiebreak 1")
