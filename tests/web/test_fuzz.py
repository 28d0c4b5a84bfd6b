"""Issue 24 item 6, issue 56 item 6: seeded fuzzed requests over every route, in-process; every
answer to an API path is JSON and none is a 500, including requests racing a search process that
has just been killed.

Bodies are valid requests with fields swapped for values of every JSON type (lists and objects where
a name is expected, lone surrogates, huge numbers, deep nesting), fields no endpoint reads, bytes
that are not JSON, and methods a route does not take. Seeded: the same requests every run. CI sends
``DEFAULT_REQUESTS``; ``REFUGE_WEB_FUZZ=2000 pytest tests/web/test_fuzz.py`` sends more (docs/web.md).
"""

from __future__ import annotations

import json
import os
import random
from collections import Counter
from typing import Iterator

from starlette.testclient import TestClient

from advisor.web.app import create_app
from webtools import GAME, LOCAL, small_config

DEFAULT_REQUESTS = 800
STRINGS = ["", "draw", "meadows", "opening-2p", GAME, "\ud800", "a\udfffb", "../x.json", "x" * 5000,
           "play compass", "drawn fox sign", "tracked-", "😀", "\x00", "NaN", "storm-one-away"]
RAW = [b"", b"{", b"[]", b"null", b"\xff\xfe", b'{"a":1,"a":2}', b"[" * 200 + b"]" * 200, b'"\\ud800"',
       b'{"example": "opening-2p"', b"1e999999", b'{"seed": 1e999}']
KILL_EVERY = 40
"""Every this many requests a search process is killed and the next requests race its end."""


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


def posts(game_id: str, position: dict) -> list[tuple[str, dict]]:
    """A valid body for every POST route."""
    return [
        ("/api/new", {"players": 2, "route": "forest"}),
        ("/api/validate", {"position": position}),
        ("/api/view", {"example": "opening-2p", "events": ["play compass"]}),
        ("/api/view", {"file": GAME, "at": 40}),
        ("/api/apply", {"example": "opening-2p", "action": "play compass"}),
        ("/api/apply", {"tracked": game_id, "sample": 3}),
        ("/api/export", {"position": position}),
        ("/api/review", {"tracked": game_id}),
        ("/api/review", {"file": GAME}),
        ("/api/review", {"file": GAME, "annotation": {"format": "refuge-annotation/1", "decisions": [],
                                                      "players": []}}),
        ("/api/tracked", {"players": 3, "route": "mountains", "names": ["a", "b", "c"], "seed": 1}),
        (f"/api/tracked/{game_id}/events", {"action": "draw", "seat": 1}),
        (f"/api/tracked/{game_id}/events", {"sample": 4}),
        (f"/api/tracked/{game_id}/undo", {}),
        ("/api/analyses", {"example": "opening-2p", "seed": 1}),
        ("/api/annotations", {"tracked": game_id, "iterations": 2}),
    ]


GETS = ["/", "/board", "/editor", "/review", "/track", "/insights", "/static/style.css", "/static/nope.js",
        "/static/../app.py", "/api/status", "/api/catalogue", "/api/examples", "/api/games", "/api/tracked",
        "/api/insights", "/nope", "/api"]
NAMES = ["nope", "../etc", "%ff", "tracked-%ED%A0%80", GAME, "opening-2p", "x" * 300, "a.sqlite", "%00"]
NAMED = ["/api/examples/{}", "/api/games/{}", "/api/tracked/{}", "/api/tracked/{}/download",
         "/api/insights/{}", "/api/analyses/{}", "/api/annotations/{}", "/api/analyses/{}/events"]
VERBS = ["stop", "continue"]


def mutated(rng: random.Random, body: dict) -> dict | bytes:
    """`body` with one to three fields changed, a field added, or raw bytes instead."""
    roll = rng.random()
    if roll < 0.1:
        return rng.choice(RAW)
    body = json.loads(json.dumps(body))
    if roll < 0.2:
        body[rng.choice(STRINGS + ["at", "events", "file", "record", "sed", "iteration"])] = junk(rng)
        return body
    for _ in range(rng.randrange(1, 4)):
        if body:
            body[rng.choice(list(body))] = junk(rng)
    if isinstance(body.get("position"), dict) and body["position"] and rng.random() < 0.3:
        body["position"] = dict(body["position"], **{rng.choice(list(body["position"])): junk(rng)})
    return body


def requests(rng: random.Random, count: int, game_id: str, position: dict,
             jobs: list[str]) -> Iterator[tuple[str, str, dict | bytes | None]]:
    """(method, path, body): a route's valid request mutated, a GET of a route or a name, a verb on a
    job (``jobs``: the ids seen so far, read as the requests are made)."""
    bodies = posts(game_id, position)
    for _ in range(count):
        roll = rng.random()
        if roll < 0.55:
            path, body = rng.choice(bodies)
            yield "POST", path, (body if rng.random() < 0.15 else mutated(rng, body))
        elif roll < 0.7:
            yield "GET", rng.choice(GETS), None
        elif roll < 0.8:
            yield "GET", rng.choice(NAMED).format(rng.choice(NAMES)), None
        elif roll < 0.95 and jobs:
            job = rng.choice(jobs)
            kind = "analyses" if job.startswith("analysis") else "annotations"
            method = rng.choice(["GET", "POST", "POST", "DELETE"])
            path = f"/api/{kind}/{job}" + (f"/{rng.choice(VERBS)}" if method == "POST" else "")
            yield method, path, ({} if rng.random() < 0.8 else mutated(rng, {})) if method == "POST" else None
        else:
            yield rng.choice(["PUT", "PATCH", "DELETE", "POST", "GET"]), rng.choice(GETS + [p for p, _ in bodies]), {}


def send(client: TestClient, method: str, path: str, body: dict | bytes | None):  # type: ignore[no-untyped-def]
    if body is None:
        return client.request(method, path)
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return client.request(method, path, content=content, headers={"content-type": "application/json"})


def kill_a_search(client: TestClient, jobs: list[str]) -> str | None:
    """SIGKILL the process of a running job (started here if none runs); its id, for the race."""
    manager = client.app.state.jobs  # type: ignore[attr-defined]
    running = [j for j in manager.jobs.values() if j.process is not None and j.process.is_alive()]
    if not running:
        answer = client.post("/api/analyses", json={"example": "opening-2p", "seed": len(jobs)})
        if answer.status_code != 202:
            return None
        jobs.append(answer.json()["id"])
        job = manager.jobs.get(jobs[-1])
        if job is None or job.process is None:
            return None
        running = [job]
    running[0].process.kill()
    return running[0].id


def fuzz(games: str, count: int, seed: int = 56) -> tuple[Counter[int], list[tuple[str, str, str]]]:
    """Send `count` fuzzed requests; the statuses and every 5xx but 503 (busy) with its request."""
    rng = random.Random(seed)
    config = small_config(games, slots=2, max_jobs=4, max_iterations=300, max_seconds=2.0)
    statuses: Counter[int] = Counter()
    failures: list[tuple[str, str, str]] = []
    with TestClient(create_app(config), base_url=LOCAL, raise_server_exceptions=False) as client:
        game_id = client.post("/api/tracked", json={"players": 2}).json()["id"]
        position = client.get("/api/examples/opening-2p").json()
        jobs: list[str] = []
        for n, (method, path, body) in enumerate(requests(rng, count, game_id, position, jobs), 1):
            if n % KILL_EVERY == 0:
                killed = kill_a_search(client, jobs)
                if killed is not None:  # the next requests race the loop noticing the death
                    kind = "analyses" if killed.startswith("analysis") else "annotations"
                    method, path, body = "POST", f"/api/{kind}/{killed}/{rng.choice(VERBS)}", {}
            response = send(client, method, path, body)
            statuses[response.status_code] += 1
            if response.status_code >= 500 and response.status_code != 503:
                failures.append((f"{method} {path}", str(body)[:200], response.text[:200]))
            if path.startswith("/api") and response.status_code >= 400:
                assert "error" in response.json(), (path, response.text[:200])
            if response.status_code == 202:
                jobs.append(response.json()["id"])
    return statuses, failures


def test_fuzzed_requests_never_get_a_500(games: str) -> None:
    count = int(os.environ.get("REFUGE_WEB_FUZZ", DEFAULT_REQUESTS))
    statuses, failures = fuzz(games, count)
    print(f"{count} requests: {dict(sorted(statuses.items()))}")
    assert sum(statuses.values()) == count
    assert not failures, failures[:5]
    assert statuses[200] + statuses[201] + statuses[202] > count // 5  # not all refused
    assert statuses[405] and statuses[422] and statuses[404]
