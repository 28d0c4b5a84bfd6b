"""What a player meets first on the pages (issue 25), in headless Chromium at 1280x800 and 390x844:
the board's decision, options and analysis answer without scrolling; the review's win-chance graph,
result and budget; a phone that does not scroll by itself; bad input that says what to do.
Each test saves screenshots of the first screen under its tmp dir (checked not blank)."""

from __future__ import annotations

import json
import os

import pytest

from test_browser import not_blank
from webtools import GAME, SCREENS, LiveServer

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data")



def first_screen(page, tmp_path, name: str) -> None:
    path = os.path.join(tmp_path, f"{name}.png")
    page.screenshot(path=path)  # the viewport only: what is seen before any scrolling
    not_blank(path)


def in_view(page, selector: str) -> bool:
    """The element lies wholly inside the first screen (the page not scrolled)."""
    return page.evaluate("""(selector) => {
        const box = document.querySelector(selector).getBoundingClientRect();
        return window.scrollY === 0 && box.top >= 0 && box.bottom <= window.innerHeight
            && box.right <= window.innerWidth + 1 && box.height > 0;
    }""", selector)


@pytest.mark.parametrize("screen", ["desktop", "phone"])
def test_the_decision_its_options_and_the_answer_are_on_the_first_screen(page_at, live: LiveServer,
                                                                          tmp_path, screen) -> None:
    page = page_at(screen)
    page.goto(f"{live.url}/board?example=storm-one-away")
    page.wait_for_selector(".player >> nth=1")
    assert page.inner_text("#decision-text") == "Ann (0) to decide: return or draw"
    warning = page.locator("#storm-warning")
    assert warning.inner_text() == "Storms 5/6: 1 more Storm and it hits"
    assert "warn" in (warning.get_attribute("class") or "")
    assert page.locator(".weather .track .slot").count() == 1  # the empty slot is drawn
    assert page.locator("details.bag-row[open]").count() == 0  # bags folded
    page.wait_for_selector("#eval-bar .share >> nth=1")  # the engine is on: it analyses by itself
    for selector in ("#decision-text", 'button.action[data-action="return"]', 'button.action[data-action="draw"]',
                     "#eval-bar", "#verdict"):
        assert in_view(page, selector), f"{selector} is below the first screen at {screen}"
    shares = page.evaluate("""() => [...document.querySelectorAll('#eval-bar .share')]
        .map((s) => parseFloat(s.style.width))""")
    assert len(shares) == 2 and abs(sum(shares) - 100) < 0.01  # every player's win chance, summing to 100 %
    assert page.inner_text("#verdict").startswith("Best: ")
    assert page.evaluate("document.documentElement.scrollWidth") <= SCREENS[screen][0]
    first_screen(page, tmp_path, f"board-{screen}")
    page.click("#stop")


def open_on_the_board(page, live: LiveServer, document: dict[str, object]) -> None:
    """What the start page does with an uploaded position: keep it for the tab, open the board."""
    page.evaluate("(doc) => sessionStorage.setItem('refuge-position', JSON.stringify(doc))", document)
    page.goto(f"{live.url}/board?upload=1")


def _polyline_values(page) -> list[list[float]]:
    """Each player's curve as win chances, read back from the drawn SVG."""
    return page.evaluate("""() => [...document.querySelectorAll('svg.win-chart polyline.curve')].map((line) =>
        line.getAttribute('points').trim().split(' ').map((xy) => 1 - (parseFloat(xy.split(",")[1]) - 12) / (200 - 12 - 20)))""")


def test_the_review_graph_is_every_players_chance_with_the_result_and_the_budget(page_at, live: LiveServer,
                                                                                 tmp_path) -> None:
    page = page_at("desktop")
    page.goto(f"{live.url}/review?file={GAME}&iterations=3")
    page.wait_for_selector('.move[data-event="0"].current')
    assert page.inner_text("#result") == "unfinished: 141 events"  # this record stops in walk 4
    draw = page.locator('.move.chance', has_text="drew").first
    assert draw.inner_text().startswith(("ismcts:iterations=1500 drew ", "heuristic drew "))  # whose draw
    page.click("#annotate")
    page.wait_for_selector("svg.win-chart polyline.curve >> nth=1", timeout=120_000)
    page.wait_for_selector("#annotate-status:has-text('decisions annotated')", timeout=120_000)
    assert "at 3 iterations each" in page.inner_text("#annotate-status")
    curves = _polyline_values(page)
    assert len(curves) == 2 and len(curves[0]) == len(curves[1]) > 5
    assert all(abs(a + b - 1) < 0.01 for a, b in zip(*curves))  # at each moment, 100 % in all
    colours = page.evaluate("[...document.querySelectorAll('svg.win-chart polyline.curve')].map((l) => l.getAttribute('stroke'))")
    assert colours == ["#1f77b4", "#ff7f0e"]  # the CLI chart's
    fills = set(page.evaluate("[...document.querySelectorAll('svg.win-chart g.marker circle')].map((c) => getComputedStyle(c).fill)"))
    assert not fills & {"rgb(31, 119, 180)", "rgb(255, 127, 14)"}  # marks apart from the players' colours
    first_screen(page, tmp_path, "review-desktop")


def test_review_on_a_phone_stays_put_and_keeps_the_stepper_on_one_line(page_at, live: LiveServer,
                                                                       tmp_path) -> None:
    page = page_at("phone")
    page.goto(f"{live.url}/review?file={GAME}")
    page.wait_for_selector('.move[data-event="0"].current')
    page.keyboard.press("ArrowRight")
    page.wait_for_selector('.move[data-event="1"].current')
    assert page.evaluate("window.scrollY") == 0
    prev, following = page.locator("#prev").bounding_box(), page.locator("#next").bounding_box()
    assert prev and following and abs(prev["y"] - following["y"]) < 2
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    first_screen(page, tmp_path, "review-phone")
    page.goto(f"{live.url}/")
    page.wait_for_selector("#example-list li")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    first_screen(page, tmp_path, "index-phone")


def test_an_invalid_upload_opens_the_editor_with_its_problems(page_at, live: LiveServer, tmp_path) -> None:
    page = page_at("desktop")
    page.goto(f"{live.url}/")
    page.wait_for_selector("#example-list li")
    bad = json.loads(page.evaluate("fetch('/api/examples/opening-2p').then((r) => r.text())"))
    bad["players"][0]["bag"]["sign"] += 3
    open_on_the_board(page, live, bad)
    page.wait_for_url("**/editor?from=board&invalid=1")
    page.wait_for_selector(".problem")
    assert "not valid" in page.inner_text("#info")
    assert page.inner_text("#validity").startswith("✗")
    first_screen(page, tmp_path, "invalid-upload")


def test_a_mistyped_example_gets_a_did_you_mean_and_an_unknown_bag_says_unknown(page_at, live: LiveServer,
                                                                               tmp_path) -> None:
    page = page_at("phone")
    page.goto(f"{live.url}/board?example=storm-one-awy")
    page.wait_for_selector("#errors .error")
    assert "did you mean 'storm-one-away'?" in page.inner_text("#errors")
    with open(os.path.join(DATA, "unknown-bags-3p.json"), encoding="utf-8") as handle:
        unknown = json.load(handle)
    open_on_the_board(page, live, unknown)
    page.wait_for_selector(".player >> nth=2")
    assert page.locator(".bag-unknown").all_inner_texts() == ["unknown (9 tiles)", "unknown (7 tiles)"]
    first_screen(page, tmp_path, "unknown-bags-phone")
