"""Issue 56 item 1: an annotation is saved beside its game (NAME.annotation.json, `refuge annotate
--json`'s format) so a second review shows it at once, and `refuge annotate --json`'s output opens
in the review."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from advisor.cli import cli
from advisor.cli.annotate import JSON_FORMAT
from advisor.web.annotations import FORMAT
from test_jobs import events_of
from webtools import GAME

SAVED = GAME.replace(".json", ".annotation.json")


@pytest.fixture(scope="module")
def cli_annotation(tmp_path_factory) -> dict:
    """`refuge annotate GAME --json` at 2 iterations a decision."""
    from webtools import make_games

    folder = make_games(str(tmp_path_factory.mktemp("cli")))
    result = CliRunner().invoke(cli, ["annotate", os.path.join(folder, GAME), "--iterations", "2",
                                      "--workers", "1", "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_the_format_is_refuge_annotates() -> None:
    assert FORMAT == JSON_FORMAT


def test_an_annotation_of_a_file_is_saved_beside_it_and_shown_on_the_next_review(client: TestClient,
                                                                                 games: str) -> None:
    assert client.post("/api/review", json={"file": GAME}).json()["annotation"] is None
    job = client.post("/api/annotations", json={"file": GAME, "iterations": 3, "seed": 2}).json()["id"]
    last = events_of(client, f"/api/annotations/{job}/events")[-1]
    assert last["state"] == "done" and last["result"]["saved"] == SAVED
    with open(os.path.join(games, SAVED), encoding="utf-8") as handle:
        saved = json.load(handle)
    assert saved["format"] == JSON_FORMAT and saved["seed"] == 2 and saved["iterations_per_decision"] == 3
    assert saved["decisions"] == last["result"]["annotations"]
    review = client.post("/api/review", json={"file": GAME}).json()
    assert review["annotation"] == saved and review["annotation_file"] == SAVED
    assert [f["name"] for f in client.get("/api/games").json()["files"]] == [GAME]  # not a game


def test_refuge_annotates_json_opens_in_the_review_and_is_saved(client: TestClient, games: str,
                                                               cli_annotation: dict) -> None:
    review = client.post("/api/review", json={"file": GAME, "annotation": cli_annotation}).json()
    assert review["annotation"]["decisions"] == cli_annotation["decisions"]
    assert review["annotation_file"] == SAVED and os.path.isfile(os.path.join(games, SAVED))
    again = client.post("/api/review", json={"file": GAME}).json()
    assert again["annotation"]["decisions"] == cli_annotation["decisions"]
    record = json.load(open(os.path.join(games, GAME), encoding="utf-8"))
    uploaded = client.post("/api/review", json={"record": record, "annotation": cli_annotation}).json()
    assert uploaded["annotation"]["players"] == cli_annotation["players"] and uploaded["annotation_file"] == ""


def test_an_annotation_of_another_game_is_422_naming_the_decision(client: TestClient, cli_annotation: dict) -> None:
    other = json.loads(json.dumps(cli_annotation))
    other["decisions"][3]["played"] = "play nothing"
    response = client.post("/api/review", json={"file": GAME, "annotation": other})
    assert response.status_code == 422
    assert response.json()["error"].startswith("annotation.decisions[3].played: 'play nothing', but the record's event")
    for broken, path in [({"format": "x"}, "annotation:"), (dict(cli_annotation, decisions=7), "annotation.decisions:"),
                         (dict(cli_annotation, players=None), "annotation.players:")]:
        answer = client.post("/api/review", json={"file": GAME, "annotation": broken})
        assert answer.status_code == 422 and answer.json()["error"].startswith(path), answer.text


def test_a_stale_or_damaged_saved_annotation_is_not_shown(client: TestClient, games: str, cli_annotation: dict) -> None:
    path = os.path.join(games, SAVED)
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(dict(cli_annotation, record_events=3), handle)
    assert client.post("/api/review", json={"file": GAME}).json()["annotation"] is None
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("{not json")
    assert client.post("/api/review", json={"file": GAME}).json()["annotation"] is None


def test_a_tracked_games_annotation_is_saved_beside_it_until_the_game_goes_on(client: TestClient, games: str) -> None:
    game = client.post("/api/tracked", json={"players": 2, "names": ["Ann", "Ben"]}).json()["id"]
    for seat in (0, 1):
        assert client.post(f"/api/tracked/{game}/events", json={"action": "draw", "seat": seat}).status_code == 200
    job = client.post("/api/annotations", json={"tracked": game, "iterations": 3}).json()["id"]
    last = events_of(client, f"/api/annotations/{job}/events")[-1]
    saved = f"tracked-{game}.annotation.json"
    assert last["state"] == "done" and last["result"]["saved"] == saved
    assert os.path.isfile(os.path.join(games, saved))
    assert [g["id"] for g in client.get("/api/tracked").json()["games"]] == [game]  # not a tracked game
    review = client.post("/api/review", json={"tracked": game}).json()
    assert review["annotation"]["record_events"] == 2 and review["annotation_file"] == saved
    client.post(f"/api/tracked/{game}/events", json={"sample": 1})  # the game goes on: the annotation is stale
    assert client.post("/api/review", json={"tracked": game}).json()["annotation"] is None
