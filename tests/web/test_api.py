"""The JSON API in-process (Starlette's TestClient): every endpoint, its errors, traversal and caps."""

from __future__ import annotations

import json
import os

import pytest
from starlette.testclient import TestClient

from advisor.web import present as views
from advisor.web.app import create_app
from webtools import GAME, small_config, LOCAL


def opening(client: TestClient) -> dict:
    return client.get("/api/examples/opening-2p").json()


# --- pages and reference data --------------------------------------------------------------------

@pytest.mark.parametrize("page", ["/", "/board", "/editor", "/review", "/track"])
def test_pages_are_static_html_with_a_strict_policy(client: TestClient, page: str) -> None:
    response = client.get(page)
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
    assert "script-src" not in response.headers["content-security-policy"]  # default-src 'self' covers it
    assert "default-src 'self'" in response.headers["content-security-policy"]
    assert response.headers["x-content-type-options"] == "nosniff"
    assert "<script" not in response.text.replace('<script type="module" src=', "")  # no inline script


def test_static_modules_and_unknown_paths(client: TestClient) -> None:
    assert client.get("/static/common.js").headers["content-type"].startswith("text/javascript")
    assert client.get("/nowhere").status_code == 404
    missing = client.get("/api/nowhere")
    assert missing.status_code == 404 and "error" in missing.json()
    assert client.post("/api/catalogue", json={}).status_code == 405


def test_catalogue_examples_and_status(client: TestClient) -> None:
    catalogue = client.get("/api/catalogue").json()
    bear = next(t for t in catalogue["tiles"] if t["name"] == "bear")
    assert (bear["cost"], bear["paw"], bear["category"], bear["effect"]) == (12, 6, "animal", "+6 VP")
    assert catalogue["routes"]["meadows"][0] == "compass"
    names = [e["name"] for e in client.get("/api/examples").json()]
    assert "opening-2p" in names
    assert opening(client)["format"] == "refuge-position/1"
    assert client.get("/api/examples/nope").status_code == 404
    status = client.get("/api/status").json()
    assert status["caps"]["max_iterations"] == 400 and status["slots"] >= 1


def test_effect_text_names_both_options_of_an_or_tile() -> None:
    compass = next(t for t in views.catalogue()["tiles"] if t["name"] == "compass")  # type: ignore[index]
    assert compass["effect"] == "1 extra play OR +3 Steps"


def test_new_game_position(client: TestClient) -> None:
    data = client.post("/api/new", json={"players": 3, "route": "forest"}).json()
    assert data["route"] == "forest" and len(data["players"]) == 3
    assert client.post("/api/new", json={"players": 5}).status_code == 422
    assert client.post("/api/new", json={"route": "moon"}).status_code == 422


# --- validate, view, apply, export ---------------------------------------------------------------

def test_validate_reports_each_problem_with_its_json_path(client: TestClient) -> None:
    assert client.post("/api/validate", json={"position": opening(client)}).json() == {
        "valid": True, "format": "refuge-position/1", "problems": [], "problem_count": 0}
    bad = opening(client)
    bad["players"][0]["vp"] = -3
    bad["players"][1]["bag"]["bearr"] = 1
    result = client.post("/api/validate", json={"position": bad}).json()
    assert not result["valid"]
    paths = {p["path"] for p in result["problems"]}
    assert {"players[0].vp", "players[1].bag.bearr"} <= paths
    assert any("did you mean 'bear'" in p["message"] for p in result["problems"])


def test_validate_records_replays_their_events(client: TestClient, games: str) -> None:
    record = json.load(open(os.path.join(games, GAME)))
    assert client.post("/api/validate", json={"record": record}).json()["valid"]
    record["events"][0] = "buy bear"
    result = client.post("/api/validate", json={"record": record}).json()
    assert not result["valid"] and result["problems"][0]["path"] == "events[0]"


@pytest.mark.parametrize("body, status", [
    (b"{not json", 400), (b"[1, 2]", 400), (b'{"nothing": 1}', 422),
])
def test_validate_refuses_malformed_requests(client: TestClient, body: bytes, status: int) -> None:
    response = client.post("/api/validate", content=body, headers={"content-type": "application/json"})
    assert response.status_code == status and response.json()["error"]


def test_view_from_every_source(client: TestClient) -> None:
    for body in ({"example": "opening-2p"}, {"position": opening(client)}, {"file": GAME, "at": 0},
                 {"record": client.get(f"/api/games/{GAME}").json(), "at": 3}):
        data = client.post("/api/view", json=body).json()
        assert len(data["view"]["players"]) == 2 and data["view"]["decision"]["kind"] in ("decision", "chance")
    final = client.post("/api/view", json={"file": GAME}).json()
    assert final["at"] == 141 and final["view"]["walk"] == 4  # this record stops in walk 4


def test_view_shows_the_board(client: TestClient) -> None:
    view = client.post("/api/view", json={"example": "opening-2p"}).json()["view"]
    ann = view["players"][0]
    assert ann["name"] == "Ann" and ann["path"] == ["signpost"] and ann["bag_size"] == sum(ann["bag"].values())
    assert view["decision"] == {"phase": "choose", "player": 0, "kind": "decision",
                                "text": "Ann to decide: which tile to play"}
    assert view["legal"] == ["play small_orientation_table", "play compass"]
    assert [s["tile"] for s in view["route"]["stacks"]][:2] == ["compass", "shepherd"]
    assert view["weather"]["threshold"] == 6


@pytest.mark.parametrize("body, status, words", [
    ({}, 400, "exactly one of"),
    ({"example": "opening-2p", "file": GAME}, 400, "exactly one of"),
    ({"example": "nope"}, 404, "no example"),
    ({"example": "opening-2p", "at": 2}, 422, "only a game record"),
    ({"file": GAME, "at": 10_000}, 422, "event index"),
    ({"file": GAME, "at": "3"}, 422, "event index"),
    ({"example": "opening-2p", "events": "draw"}, 422, "list of actions"),
    ({"example": "opening-2p", "events": ["draw"]}, 422, "not legal"),
    ({"example": "opening-2p", "events": ["fly away"]}, 422, "cannot read"),
    ({"position": {"format": "refuge-position/1"}}, 422, "required"),
    ({"record": {"format": "refuge-position/1"}}, 422, "expected a game record"),
])
def test_view_errors_are_json_with_a_message(client: TestClient, body: dict, status: int, words: str) -> None:
    response = client.post("/api/view", json=body)
    assert response.status_code == status
    assert words in response.json()["error"] + json.dumps(response.json().get("problems", []))


def test_an_illegal_event_names_its_index(client: TestClient) -> None:
    problems = client.post("/api/view", json={"example": "opening-2p", "events": ["play compass", "draw"]}).json()
    assert problems["problems"][0]["path"] == "events[1]"


def test_apply_plays_a_move_then_samples_chance(client: TestClient) -> None:
    body = {"example": "opening-2p"}
    after = client.post("/api/apply", json=dict(body, action="play compass")).json()
    assert after["events"] == ["play compass"]
    events = after["events"]
    while client.post("/api/view", json=dict(body, events=events)).json()["view"]["decision"]["kind"] != "chance":
        view = client.post("/api/view", json=dict(body, events=events)).json()["view"]
        events = client.post("/api/apply", json=dict(body, events=events, action=view["legal"][0])).json()["events"]
    sampled = client.post("/api/apply", json=dict(body, events=events, sample=7)).json()
    assert len(sampled["events"]) == len(events) + 1
    again = client.post("/api/apply", json=dict(body, events=events, sample=7)).json()
    assert again["events"] == sampled["events"]  # one seed, one outcome


@pytest.mark.parametrize("extra, status", [
    ({}, 422), ({"sample": 3}, 409), ({"action": "buy bear"}, 422), ({"action": 5}, 422),
])
def test_apply_errors(client: TestClient, extra: dict, status: int) -> None:
    assert client.post("/api/apply", json={"example": "opening-2p", **extra}).status_code == status


def test_apply_sample_needs_an_integer_seed(client: TestClient) -> None:
    response = client.post("/api/apply", json={"file": GAME, "at": 2, "sample": "x"})
    assert response.status_code == 422 and "seed" in response.json()["error"]


def test_export_gives_a_valid_saved_position(client: TestClient) -> None:
    exported = client.post("/api/export", json={"example": "opening-2p", "events": ["play compass"]}).json()
    assert exported["format"] == "refuge-position/1"
    assert client.post("/api/validate", json={"position": exported}).json()["valid"]


# --- the games folder ----------------------------------------------------------------------------

def test_games_listing_and_file(client: TestClient, games: str) -> None:
    open(os.path.join(games, "notes.txt"), "w").write("not a game")
    files = client.get("/api/games").json()["files"]
    assert [f["name"] for f in files] == [GAME]
    assert client.get(f"/api/games/{GAME}").json()["format"] == "refuge-game/1"


@pytest.mark.parametrize("name", ["..%2Fsecret.json", "%2E%2E%2Fsecret.json", "..secret.json",
                                  "%2Fetc%2Fpasswd", "sub%2Fgame.json", "notes.txt", ".hidden.json",
                                  "a%5C..%5Csecret.json"])
def test_no_file_outside_the_games_folder_is_read(client: TestClient, games: str, name: str) -> None:
    open(os.path.join(os.path.dirname(games), "secret.json"), "w").write('{"format": "refuge-game/1"}')
    response = client.get(f"/api/games/{name}")
    assert response.status_code in (400, 404)
    assert "refuge-game" not in response.text
    body = client.post("/api/view", json={"file": name.replace("%2F", "/").replace("%2E", ".")})
    assert body.status_code in (400, 404) and "error" in body.json()


def test_a_symlink_out_of_the_folder_is_refused(client: TestClient, games: str) -> None:
    outside = os.path.join(os.path.dirname(games), "outside.json")
    open(outside, "w").write("{}")
    os.symlink(outside, os.path.join(games, "link.json"))
    response = client.get("/api/games/link.json")
    assert response.status_code == 400 and "outside" in response.json()["error"]
    assert "link.json" not in [f["name"] for f in client.get("/api/games").json()["files"]]


def test_game_files_are_size_capped_and_must_be_json(client: TestClient, games: str) -> None:
    open(os.path.join(games, "big.json"), "w").write(" " * 300_000)
    assert client.get("/api/games/big.json").status_code == 413
    open(os.path.join(games, "broken.json"), "w").write("{")
    broken = client.get("/api/games/broken.json")
    assert broken.status_code == 422 and "broken.json" in broken.json()["error"]
    assert client.get("/api/games/missing.json").status_code == 404


def test_review_lists_moves_by_walk_and_turn(client: TestClient) -> None:
    review = client.post("/api/review", json={"file": GAME}).json()
    assert review["players"] == 2 and not review["over"] and len(review["moves"]) == 141
    first = review["moves"][0]
    assert (first["event"], first["walk"], first["turn"], first["player"], first["chance"]) == (0, 1, 1, 0, False)
    assert review["moves"][2]["chance"] and review["moves"][2]["player"] is None
    assert client.post("/api/review", json={"example": "opening-2p"}).status_code == 422


# --- caps and errors -----------------------------------------------------------------------------

def test_request_bodies_are_capped(client: TestClient) -> None:
    response = client.post("/api/validate", content=b'{"position": "' + b"x" * 300_000 + b'"}',
                           headers={"content-type": "application/json"})
    assert response.status_code == 413 and "over" in response.json()["error"]


def test_streamed_bodies_without_a_length_are_capped_too(client: TestClient) -> None:
    def chunks():
        for _ in range(40):
            yield b" " * 10_000

    response = client.post("/api/validate", content=chunks(), headers={"content-type": "application/json"})
    assert response.status_code == 413


def test_a_bug_is_one_json_line_never_a_traceback(games: str, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken() -> dict:
        raise RuntimeError("secret internals")

    monkeypatch.setattr(views, "catalogue", broken)
    with TestClient(create_app(small_config(games)), raise_server_exceptions=False, base_url=LOCAL) as client:
        response = client.get("/api/catalogue")
    assert response.status_code == 500
    assert response.json() == {"error": "internal error (the server log has the details)"}
    assert "Traceback" not in response.text and "secret" not in response.text
