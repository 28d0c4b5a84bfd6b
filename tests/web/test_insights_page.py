"""`/insights`: a corpus in the games folder, its report as JSON, and the page in Chromium."""

from __future__ import annotations

import os
import re
import shutil

import pytest
from starlette.testclient import TestClient

from advisor.insights.run import run_corpus
from advisor.insights.store import CorpusKey
from advisor.web.app import create_app
from webtools import LOCAL, LiveServer, make_games, small_config

KEY = CorpusKey("heuristic", 2, "forest", 4, 1, 2000)


def _serial(function, tasks, common, on_result):  # type: ignore[no-untyped-def]
    for task in tasks:
        on_result(task, function(task, *common))


@pytest.fixture(scope="module")
def corpus_folder(tmp_path_factory) -> str:
    folder = make_games(str(tmp_path_factory.mktemp("insights") / "games"))
    run_corpus(os.path.join(folder, "corpus.sqlite"), KEY, 12, _serial)
    return folder


def test_the_api_lists_corpora_and_serves_the_reports_json(corpus_folder, tmp_path) -> None:
    with TestClient(create_app(small_config(corpus_folder)), raise_server_exceptions=False,
                    base_url=LOCAL) as client:
        files = client.get("/api/insights").json()["files"]
        assert [f["name"] for f in files if not f.get("published")] == ["corpus.sqlite"]
        report = client.get("/api/insights/corpus.sqlite").json()
        assert report["games"] == 12 and report["corpora"][0]["agent"] == "heuristic"
        assert {"buys", "returns", "seats", "lengths", "explorer"} <= set(report)
        missing = client.get("/api/insights/other.sqlite")
        assert missing.status_code == 404 and "no corpus file" in missing.json()["error"]
        assert client.get("/api/insights/..%2F..%2Fetc%2Fpasswd").status_code == 404
        shutil.copy(os.path.join(corpus_folder, "blunder-game.json"), tmp_path / "x.sqlite")
    with TestClient(create_app(small_config(str(tmp_path))), raise_server_exceptions=False,
                    base_url=LOCAL) as client:
        wrong = client.get("/api/insights/x.sqlite")
        assert wrong.status_code == 422 and "not a corpus database" in wrong.json()["error"]


def test_the_shipped_summary_comes_first_and_is_served_as_saved(corpus_folder, tmp_path, monkeypatch) -> None:
    import json

    from advisor.insights.report import build_report
    from advisor.web import insights_view

    shipped = tmp_path / "published-summary.json"
    shipped.write_text(json.dumps(build_report(os.path.join(corpus_folder, "corpus.sqlite"))))
    monkeypatch.setattr(insights_view, "published_path", lambda: str(shipped))
    with TestClient(create_app(small_config(corpus_folder)), raise_server_exceptions=False,
                    base_url=LOCAL) as client:
        files = client.get("/api/insights").json()["files"]
        assert [f["name"] for f in files] == ["published", "corpus.sqlite"] and files[0]["published"]
        report = client.get("/api/insights/published").json()
        assert report["name"] == "the summary shipped with refuge" and report["games"] == 12
        assert report == {**client.get("/api/insights/corpus.sqlite").json(), "name": report["name"]}
    monkeypatch.setattr(insights_view, "published_path", lambda: None)
    with TestClient(create_app(small_config(corpus_folder)), raise_server_exceptions=False,
                    base_url=LOCAL) as client:
        assert client.get("/api/insights/published").status_code == 404


def test_the_page_draws_the_report_in_chromium(browser, corpus_folder, tmp_path) -> None:
    from test_browser import shot

    with LiveServer(small_config(corpus_folder)) as live:
        context = browser.new_context(viewport={"width": 1200, "height": 900})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{live.url}/insights?file=corpus.sqlite")  # the folder's corpus, not the shipped summary
        page.wait_for_selector("#seats tbody tr >> nth=1")
        assert page.inner_text("#summary") == "12 games in corpus.sqlite."
        assert page.locator("#buys-chart svg circle").count() >= 1
        assert "2p forest" in page.inner_text("#explorer-table")
        page.fill("#explorer-min", "1")
        assert page.locator("#explorer tbody tr").count() >= 2
        assert "(any)" in page.inner_text("#explorer tbody tr >> nth=0")
        every_walk = page.locator("#buys tbody tr").count()
        page.select_option("#buys-walk", "1")
        walk_one = page.locator("#buys tbody tr")
        assert 1 <= walk_one.count() < every_walk
        assert {walk_one.nth(i).locator("td").nth(4).inner_text() for i in range(walk_one.count())} == {"1"}
        assert page.inner_text("#ranking").startswith("forest: ")
        assert page.inner_text("#players").startswith("2 players: the first seat wins ")
        assert page.inner_text("#players-none") == ("No buy to compare across player counts: every game here "
                                                    "has 2 players.")
        assert not page.locator("#players-buys").is_visible()  # no empty table under it
        assert re.search(r"costs [+-]\d\.\d{4} win share a decision \[[^]]+\] \(\d+ paired continuations\), "
                         r"[+-]\d\.\d{4} a game", page.inner_text("#rules"))
        print(shot(page, str(tmp_path), "insights"))
        page.set_viewport_size({"width": 390, "height": 844})  # a phone
        page.wait_for_timeout(100)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390  # tables scroll inside their panels
        assert page.locator("#buys-walk").is_visible() and page.locator("#seats").is_visible()
        print(shot(page, str(tmp_path), "insights-phone"))
        context.close()
    assert not errors, errors
