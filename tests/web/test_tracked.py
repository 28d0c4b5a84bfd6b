"""Following a game at the table through the API: events, undo, saved after each, download."""

from __future__ import annotations

import json
import os

import pytest
from starlette.testclient import TestClient

from advisor.web.app import create_app
from webtools import small_config, LOCAL
from positions.record import load_record, replay


def start(client: TestClient, **body: object) -> dict:
    response = client.post("/api/tracked", json={"players": 2, "route": "meadows", **body})
    assert response.status_code == 201
    return response.json()


def test_each_event_is_saved_and_undo_takes_it_back(client: TestClient, games: str) -> None:
    game = start(client, names=["<b>Ann</b>", "Ben"])
    path = os.path.join(games, game["file"])
    assert game["file"].startswith("tracked-") and os.path.exists(path)
    assert game["view"]["legal"] == ["return", "draw"]
    url = f"/api/tracked/{game['id']}"
    for action in ("draw", "draw"):
        game = client.post(f"{url}/events", json={"action": action}).json()
    assert game["view"]["decision"]["kind"] == "chance"
    game = client.post(f"{url}/events", json={"sample": 5}).json()
    saved = load_record(path)
    assert [str(e) for e in saved.events] == game["record"]["events"] and len(saved.events) == 3
    assert saved.names == ("<b>Ann</b>", "Ben")  # kept as data; the page shows it as text
    game = client.post(f"{url}/undo", json={}).json()
    assert len(game["record"]["events"]) == 2 and len(load_record(path).events) == 2
    assert game["view"]["decision"]["kind"] == "chance"
    replay(load_record(path))


def test_an_illegal_event_changes_nothing(client: TestClient, games: str) -> None:
    game = start(client)
    url = f"/api/tracked/{game['id']}"
    refused = client.post(f"{url}/events", json={"action": "buy bear"})
    assert refused.status_code == 422 and "not open to 0" in refused.json()["error"]
    assert client.post(f"{url}/events", json={"action": 3}).status_code == 422
    assert client.post(f"{url}/events", json={"sample": 1}).status_code == 409  # a decision, not chance
    assert client.post(f"{url}/undo", json={}).status_code == 409
    assert client.get(url).json()["record"]["events"] == []


def test_download_list_and_review(client: TestClient) -> None:
    game = start(client)
    client.post(f"/api/tracked/{game['id']}/events", json={"action": "return"})
    download = client.get(f"/api/tracked/{game['id']}/download")
    assert download.headers["content-disposition"] == f'attachment; filename="{game["file"]}"'
    assert json.loads(download.text)["events"] == ["return"]
    assert [g["id"] for g in client.get("/api/tracked").json()["games"]] == [game["id"]]
    assert len(client.post("/api/review", json={"tracked": game["id"]}).json()["moves"]) == 1
    assert client.post("/api/view", json={"tracked": game["id"]}).json()["view"]["legal"]
    advice = client.post("/api/analyses", json={"tracked": game["id"]})  # Advise at the table
    assert advice.status_code == 202 and advice.json()["kind"] == "analysis"
    client.delete(f"/api/analyses/{advice.json()['id']}")


def test_a_restarted_server_picks_the_game_up_from_its_file(games: str) -> None:
    with TestClient(create_app(small_config(games)), base_url=LOCAL) as first:
        game = start(first)
        first.post(f"/api/tracked/{game['id']}/events", json={"action": "draw"})
    with TestClient(create_app(small_config(games)), base_url=LOCAL) as second:
        again = second.get(f"/api/tracked/{game['id']}").json()
        assert again["record"]["events"] == ["draw"]


@pytest.mark.parametrize("body", [
    {"players": 5}, {"players": "2"}, {"route": "moon"}, {"names": ["only one"]},
    {"names": ["x" * 41, "y"]}, {"seed": -1},
])
def test_new_game_errors(client: TestClient, body: dict) -> None:
    response = client.post("/api/tracked", json={"players": 2, **body})
    assert response.status_code == 422 and response.json()["error"]


@pytest.mark.parametrize("game_id, status", [("..%2Fx", 404), ("UPPER", 404), ("no-such-game", 404)])
def test_unknown_or_bad_ids(client: TestClient, game_id: str, status: int) -> None:
    assert client.get(f"/api/tracked/{game_id}").status_code == status


def test_simultaneous_choices_in_any_order_and_every_chance_outcome(client: TestClient, games: str) -> None:
    """As `refuge track`: a later seat may choose first (hidden, held), the record is in seat order
    (C6); at a chance event every outcome is offered with its chance, the weather tile included."""
    game = start(client, names=["Ann", "Ben"])
    url = f"/api/tracked/{game['id']}"
    assert [(e["seat"], e["options"]) for e in game["expected"]] == [(0, ["return", "draw"]), (1, ["return", "draw"])]
    game = client.post(f"{url}/events", json={"action": "draw", "seat": 1}).json()  # Ben first
    assert game["record"]["events"] == [] and game["held"] == [1]
    assert game["view"]["players"][1]["choice"] == "hidden" and [e["seat"] for e in game["expected"]] == [0]
    assert game["said"] == ["1 (Ben) has chosen (hidden until 0 (Ann) chooses)"]
    again = client.post(f"{url}/events", json={"action": "return", "seat": 1})
    assert again.status_code == 409 and "nothing to enter" in again.json()["error"]
    game = client.post(f"{url}/events", json={"action": "draw", "seat": 0}).json()
    assert game["record"]["events"] == ["draw", "draw"] and game["said"][0].startswith("revealed: ")
    phases_seen = set()
    for step in range(200):
        view = game["view"]
        if view["decision"]["kind"] == "chance":
            chances = view["chance"]
            assert abs(sum(c["probability"] for c in chances) - 1) < 1e-4
            phases_seen.add(view["decision"]["phase"])
            if view["decision"]["phase"] == "weather":
                assert {c["action"] for c in chances} <= {"weather sun", "weather storm"}
                game = client.post(f"{url}/events", json={"action": chances[-1]["action"]}).json()
                break
            game = client.post(f"{url}/events", json={"sample": step}).json()
        else:
            choice = game["expected"][-1]
            game = client.post(f"{url}/events", json={"action": choice["options"][-1], "seat": choice["seat"]}).json()
    assert "weather" in phases_seen and "deal" in phases_seen
    assert game["record"]["events"][-1].startswith("weather ")
    assert game["view"]["turn"] == 2 and game["view"]["decision"]["phase"] == "decide"
    assert [str(e) for e in load_record(os.path.join(games, game["file"])).events] == game["record"]["events"]
