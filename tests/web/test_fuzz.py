"""Issue 24 item 6: 1,200 fuzzed requests in-process, every answer JSON and none a 500.

Bodies are valid requests with fields swapped for values of every JSON type (lists and objects where
a name is expected, lone surrogates, huge numbers, deep nesting), plus raw bytes that are not JSON.
Seeded: the same 1,200 requests every run.
"""

from __future__ import annotations

import json
import random

from starlette.testclient import TestClient

from advisor.web.app import create_app
from webtools import GAME, LOCAL, small_config

REQUESTS = 1_200
STRINGS = ["", "draw", "meadows", "opening-2p", GAME, "\ud800", "a\udfffb", "../x.json", "x" * 5000,
           "play compass", "drawn fox sign", "tracked-", "😀", "\x00", "NaN"]


def junk(rng: random.Random, depth: int = 0) -> object:
    """A random JSON value."""
    pick = rng.randrange(9 if depth < 3 else 6)
    if pick == 0:
        return None
    if pick == 1:
        return rng.choice([True, False])
    if pick == 2:
        return rng.choice([0, 1, 2, 3, 4, 5, -1, 2**63, -2**70, 10**30])
    if pick == 3:
        return rng.choice([0.5, -1.5, 1e308])
    if pick in (4, 5):
        return rng.choice(STRINGS)
    if pick in (6, 7):
        return [junk(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {rng.choice(STRINGS + ["players", "route", "events"]): junk(rng, depth + 1)
            for _ in range(rng.randrange(4))}


def requests(rng: random.Random, game_id: str, position: dict) -> list[tuple[str, str, object]]:
    """(method, path, body) triples: a valid body per endpoint, then mutated."""
    bases: list[tuple[str, dict]] = [
        ("/api/new", {"players": 2, "route": "forest"}),
        ("/api/validate", {"position": position}),
        ("/api/view", {"example": "opening-2p", "events": ["play compass"]}),
        ("/api/apply", {"example": "opening-2p", "action": "play compass"}),
        ("/api/apply", {"tracked": game_id, "sample": 3}),
        ("/api/export", {"position": position}),
        ("/api/review", {"tracked": game_id}),
        ("/api/tracked", {"players": 3, "route": "mountains", "names": ["a", "b", "c"], "seed": 1}),
        (f"/api/tracked/{game_id}/events", {"action": "draw", "seat": 1}),
        (f"/api/tracked/{game_id}/events", {"sample": 4}),
        (f"/api/tracked/{game_id}/undo", {}),
        ("/api/analyses", {"example": "opening-2p", "seed": 1}),
        ("/api/annotations", {"tracked": game_id, "iterations": 2}),
    ]
    out: list[tuple[str, str, object]] = []
    while len(out) < REQUESTS:
        path, body = rng.choice(bases)
        body = json.loads(json.dumps(body))
        roll = rng.random()
        if roll < 0.1:
            out.append(("POST", path, rng.choice([b"", b"{", b"[]", b"null", b"\xff\xfe", b'{"a":1,"a":2}',
                                                  b"[" * 200 + b"]" * 200, b'"\\ud800"'])))
            continue
        for _ in range(rng.randrange(1, 4)):
            if body and rng.random() < 0.7:
                body[rng.choice(list(body))] = junk(rng)
            else:
                body[rng.choice(STRINGS + ["at", "events", "file", "record"])] = junk(rng)
        if rng.random() < 0.2 and isinstance(body.get("position"), dict):
            body["position"] = dict(body["position"], **{rng.choice(list(position)): junk(rng)})
        out.append(("POST", path, body))
    for name in ("nope", "../etc", "%ff", "tracked-%ED%A0%80", GAME):
        out.append(("GET", f"/api/games/{name}", None))
        out.append(("GET", f"/api/tracked/{name}", None))
        out.append(("GET", f"/api/analyses/{name}", None))
    return out


def test_fuzzed_requests_never_get_a_500(games: str) -> None:
    rng = random.Random(24)
    config = small_config(games, slots=1, max_jobs=1)
    with TestClient(create_app(config), base_url=LOCAL, raise_server_exceptions=False) as client:
        game_id = client.post("/api/tracked", json={"players": 2}).json()["id"]
        position = client.get("/api/examples/opening-2p").json()
        statuses: dict[int, int] = {}
        failures = []
        for method, path, body in requests(rng, game_id, position):
            if method == "GET":
                response = client.get(path)
            else:
                content = body if isinstance(body, bytes) else json.dumps(body).encode()
                response = client.post(path, content=content, headers={"content-type": "application/json"})
            statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
            if response.status_code >= 500 and response.status_code != 503:
                failures.append((path, str(body)[:200], response.text[:200]))
            if response.status_code >= 400:
                assert "error" in response.json(), (path, response.text[:200])
    assert sum(statuses.values()) >= 1_000
    assert not failures, failures[:5]
    assert statuses.get(200, 0) + statuses.get(201, 0) + statuses.get(202, 0) > 100  # not all refused
