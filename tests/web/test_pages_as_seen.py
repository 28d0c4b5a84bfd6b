"""Issue 56 in headless Chromium at 1280x800 and 390x844: the review's board, graph and current move
on the first screen, marks that never overlap, a saved annotation shown at once; the board's engine
switch, win % on the option buttons and the Storm facts beside the decision; no page wider than a
phone; /insights in every page's navigation; no emoji that needs an emoji font. Screenshots are saved
under the test's tmp dir (checked not blank)."""

from __future__ import annotations

import json
import os
import shutil
from typing import Iterator

import pytest
from click.testing import CliRunner

from advisor.cli import cli
from test_browser import not_blank
from test_insights_page import KEY, _serial
from webtools import GAME, SCREENS, LiveServer, make_games, small_config

REVIEWED = "reviewed.json"
"""A copy of GAME with an annotation saved beside it (the other copy has none)."""
PAGES = ["/", "/board?example=storm-one-away", "/editor", f"/review?file={REVIEWED}", "/track",
         "/insights?file=corpus.sqlite"]


def cli_annotation(folder: str) -> dict:
    """`refuge annotate GAME --json` at 2 iterations a decision."""
    result = CliRunner().invoke(cli, ["annotate", os.path.join(folder, GAME), "--iterations", "2",
                                      "--workers", "1", "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def annotation(tmp_path_factory) -> dict:
    """The CLI's annotation with six consecutive decisions labelled blunders at one chance: their
    marks would sit on top of each other where drawn on their points."""
    data = cli_annotation(make_games(str(tmp_path_factory.mktemp("cli"))))
    for decision in data["decisions"][10:16]:
        decision.update(label="blunder", chances=[0.5, 0.5])
    return data


@pytest.fixture(scope="module")
def site(tmp_path_factory, annotation) -> Iterator[LiveServer]:
    """A live server over a folder holding GAME, REVIEWED with its annotation and a small corpus."""
    from advisor.insights.run import run_corpus

    folder = make_games(str(tmp_path_factory.mktemp("seen") / "games"))
    shutil.copy(os.path.join(folder, GAME), os.path.join(folder, REVIEWED))
    with open(os.path.join(folder, "reviewed.annotation.json"), "w", encoding="utf-8") as handle:
        json.dump(annotation, handle)
    run_corpus(os.path.join(folder, "corpus.sqlite"), KEY, 4, _serial)
    with LiveServer(small_config(folder, max_iterations=200_000, max_seconds=30.0, update_seconds=0.2)) as server:
        yield server



def screenshot(page, tmp_path, name: str) -> str:
    path = os.path.join(tmp_path, f"{name}.png")
    page.screenshot(path=path)  # the first screen only
    not_blank(path)
    return path


def box(page, selector: str) -> dict:
    return page.evaluate("""(s) => { const b = document.querySelector(s).getBoundingClientRect();
        return {top: b.top, bottom: b.bottom, left: b.left, right: b.right, height: b.height}; }""", selector)


def on_first_screen(page, selector: str, whole: bool = True) -> bool:
    """The element (or, unless `whole`, its top) lies inside the first screen, the page not scrolled."""
    b, width, height = box(page, selector), *SCREENS["desktop"]
    inside = b["top"] >= 0 and b["left"] >= 0 and b["right"] <= width + 1 and b["height"] > 0
    return page.evaluate("window.scrollY") == 0 and inside and (b["bottom"] <= height if whole else b["top"] < height - 100)


def cursor_x(page) -> float:
    return float(page.get_attribute("#chart-cursor", "x1"))


# --- the review ------------------------------------------------------------------------------------

def test_the_review_shows_board_graph_and_current_move_on_one_screen(page_at, site: LiveServer, tmp_path,
                                                                   annotation: dict) -> None:
    page = page_at("desktop")
    page.goto(f"{site.url}/review?file={REVIEWED}")
    page.wait_for_selector('.move[data-event="0"].current')
    page.wait_for_selector("svg.win-chart polyline.curve >> nth=1")  # the saved annotation, no job
    assert "saved in reviewed.annotation.json" in page.inner_text("#annotate-status")
    assert page.evaluate("fetch('/api/status').then((r) => r.json())")["finished"] == {}
    for selector in ("#board .summary", "svg.win-chart", ".move.current"):
        assert on_first_screen(page, selector), f"{selector} is not on the first screen"
    assert on_first_screen(page, "#board", whole=False)
    screenshot(page, tmp_path, "review-desktop")
    # each decision annotated carries the mover's chance after it; the labelled ones their mark
    labelled = [d for d in annotation["decisions"] if d["label"]]
    assert page.locator("#moves .move .mark").count() == len(labelled)
    assert page.locator("#moves .move .chance-after").count() == len(annotation["decisions"])
    first = annotation["decisions"][0]
    assert page.inner_text(f'.move[data-event="{first["event"]}"] .chance-after') == \
        f'{100 * first["chances"][first["player"]]:.0f}%'
    # ← / → move the current move and the graph's cursor; the current move stays on the screen
    start = cursor_x(page)
    for _ in range(40):
        page.keyboard.press("ArrowRight")
    page.wait_for_selector('.move[data-event="40"].current')
    assert cursor_x(page) > start and on_first_screen(page, ".move.current")
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector('.move[data-event="39"].current')
    # a click on the graph goes to the event under the pointer; a click on a move to that move
    chart = box(page, "svg.win-chart")
    page.mouse.click(chart["left"] + 0.75 * (chart["right"] - chart["left"]), chart["top"] + 20)
    page.wait_for_function("() => Number(document.querySelector('.move.current').dataset.event) > 90")
    page.click('.move[data-event="5"]')
    page.wait_for_selector('.move[data-event="5"].current')
    assert page.inner_text("#at-text").startswith("before event 5")
    # the marks never overlap (six consecutive blunders at one chance included)
    circles = page.evaluate("""() => [...document.querySelectorAll('svg.win-chart g.marker circle')].map((c) => {
        const b = c.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; })""")
    assert len(circles) == len(labelled) >= 6
    overlapping = [(a, b) for i, a in enumerate(circles) for b in circles[i + 1:]
                   if a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5]
    assert not overlapping, overlapping[:3]


def test_the_review_on_a_phone_is_no_wider_than_the_screen(page_at, site: LiveServer, tmp_path) -> None:
    page = page_at("phone")
    page.goto(f"{site.url}/review?file={REVIEWED}")
    page.wait_for_selector("svg.win-chart polyline.curve >> nth=1")
    page.keyboard.press("ArrowRight")
    page.wait_for_selector('.move[data-event="1"].current')
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.evaluate("window.scrollY") == 0
    assert box(page, "svg.win-chart")["bottom"] <= 844 and box(page, "#board")["top"] < 844
    screenshot(page, tmp_path, "review-phone")


def test_refuge_annotates_json_dropped_on_the_review_is_shown_and_saved(page_at, site: LiveServer, tmp_path,
                                                                       annotation: dict) -> None:
    page = page_at("desktop")
    page.goto(f"{site.url}/review?file={GAME}")
    page.wait_for_selector('.move[data-event="0"].current')
    assert page.locator("svg.win-chart polyline.curve").count() == 0
    assert "Annotate to draw" in (page.text_content("svg.win-chart text.empty") or "")
    path = os.path.join(tmp_path, "game.annotation.json")
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(annotation, handle)
    page.set_input_files("#upload", path)
    page.wait_for_selector("svg.win-chart polyline.curve >> nth=1")
    assert "saved in blunder-game.annotation.json" in page.inner_text("#annotate-status")
    page.reload()
    page.wait_for_selector("svg.win-chart polyline.curve >> nth=1")  # a second visit costs nothing


# --- the board ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("screen", ["desktop", "phone"])
def test_the_board_analyses_as_you_move_with_win_chances_on_the_buttons(page_at, site: LiveServer, tmp_path,
                                                                        screen: str) -> None:
    page = page_at(screen)
    page.goto(f"{site.url}/board?example=storm-one-away")
    assert page.locator("#engine").is_checked()  # on until switched off
    page.wait_for_selector('#decision .action[data-seat="0"] .win >> nth=1')
    page.wait_for_function("() => parseInt(document.querySelector('#analysis-rate').textContent.replace(/,/g, '')) >= 300")
    page.click("#stop")  # a report that holds still while it is read
    page.wait_for_function("document.querySelector('#analysis-status').textContent === 'paused'")
    wins = page.locator('#decision .action[data-seat="0"] .win').all_inner_texts()
    assert len(wins) == 2 and all(w.endswith("%") for w in wins)
    best = page.get_attribute('#decision .action.best', "data-action")
    assert best == page.get_attribute("#options tbody tr.best", "data-action")
    page.wait_for_selector("#facts .key-facts li >> nth=3")
    facts = page.inner_text("#facts .key-facts")
    assert "Storm hits this turn if Ann (0) draws:" in facts and "lost if the Storm hits:" in facts
    height = SCREENS[screen][1]
    assert box(page, "#facts .key-facts")["bottom"] <= height and box(page, "#decision-text")["top"] >= 0
    line = page.inner_text("#principal-line")
    assert line.startswith(f"Line: Ann (0): {best}") and "Ben (1):" in line  # the other player's replies
    screenshot(page, tmp_path, f"board-{screen}")


def test_the_engine_switch_stays_as_set(page_at, site: LiveServer) -> None:
    page = page_at("desktop")
    page.goto(f"{site.url}/board?example=opening-2p")
    page.wait_for_selector("#options tbody tr >> nth=1")
    page.uncheck("#engine")
    assert page.inner_text("#analysis-status") == "engine off" and page.locator("#options").count() == 0
    page.reload()
    page.wait_for_selector(".player >> nth=1")
    assert not page.locator("#engine").is_checked()
    page.click('#decision .action >> nth=0')  # a move played: still no analysis
    page.wait_for_timeout(500)
    assert page.inner_text("#analysis-status") in ("engine off", "no decision here")
    page.check("#engine")
    page.wait_for_selector("#analysis-rate:has-text('iterations')")
    page.click("#back")  # back to a decision: it analyses again by itself
    page.wait_for_selector("#options tbody tr >> nth=1")


# --- every page ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", PAGES)
def test_no_page_is_wider_than_a_phone(page_at, site: LiveServer, tmp_path, path: str) -> None:
    page = page_at("phone")
    page.goto(f"{site.url}{path}")
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(300)
    if path == "/editor":  # with a problem beside a field
        page.locator('fieldset[data-path="players[0]"] .field.tiles[data-path="players[0].path"] select.add-tile') \
            .select_option("bear")
        page.wait_for_selector(".problem")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390, path
    assert page.locator('nav a[href="/insights"]').count() == 1
    text = page.evaluate("document.body.innerText")
    assert not [c for c in text if ord(c) >= 0x1F000], f"an emoji needs an emoji font: {path}"
    screenshot(page, tmp_path, "phone" + path.split("?")[0].replace("/", "-"))


def test_a_problem_beside_a_field_does_not_widen_its_row(page_at, site: LiveServer, tmp_path) -> None:
    page = page_at("desktop")
    page.goto(f"{site.url}/editor")
    page.wait_for_selector(".validity.ok")
    steps = '[data-path="players[1].steps"]'
    before = box(page, steps)
    page.fill('[data-path="players[1].vp"] input', "-3")
    page.keyboard.press("Tab")
    problem = page.locator('[data-path="players[1].vp"] .problem')
    problem.wait_for()
    assert "players[1].vp" in problem.inner_text()
    row = box(page, 'fieldset[data-path="players[1]"]')
    note = box(page, '[data-path="players[1].vp"] .problem')
    assert row["left"] <= note["left"] and note["right"] <= row["right"]
    assert box(page, steps)["left"] <= before["left"]  # the fields after it are not pushed right
    assert page.evaluate("document.documentElement.scrollWidth") <= SCREENS["desktop"][0]
    screenshot(page, tmp_path, "editor-problem")
