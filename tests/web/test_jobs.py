"""Analyses and annotations through the API: streamed, capped, queued one per slot, stopped,
continued and cancelled (also when the listener goes away or nobody asks)."""

from __future__ import annotations

import asyncio
import json
import re
import time
from typing import Callable

import httpx
import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from advisor.cli import cli
from advisor.web.app import create_app
from advisor.web.jobs import JobManager
from positions.kernel import native_search
from search.backend import forced_backend
from webtools import GAME, LiveServer, small_config, stubborn_job, LOCAL

WAIT = 30.0
"""No wait in these tests lasts longer: a hang fails instead of blocking."""


def wait_for(check: Callable[[], object], what: str, timeout: float = WAIT) -> object:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def events_of(client: TestClient, url: str) -> list[dict]:
    """Every server-sent event of a job until it ends."""
    seen = []
    with client.stream("GET", url) as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        for line in stream.iter_lines():
            if line.startswith("data: "):
                seen.append(json.loads(line[6:]))
    return seen


def state_of(client: TestClient, job: str) -> dict:
    return client.get(f"/api/analyses/{job}").json()


def test_an_analysis_streams_its_growing_search_until_the_iteration_cap(games: str) -> None:
    native = native_search.built() and forced_backend() != "python"
    cap = 20_000 if native else 400  # natively 400 iterations end before a second report is due
    with TestClient(create_app(small_config(games, max_iterations=cap)), base_url=LOCAL) as client:
        started = client.post("/api/analyses", json={"example": "storm-one-away", "seed": 3})
        assert started.status_code == 202
        job = started.json()["id"]
        seen = events_of(client, f"/api/analyses/{job}/events")
        assert state_of(client, job)["state"] == "capped"
    last = seen[-1]
    assert (last["state"], last["reason"]) == ("capped", "iterations")
    result = last["result"]
    assert result["iterations"] == cap
    assert sum(o["visits"] for o in result["options"]) == cap
    growing = [e["result"]["iterations"] for e in seen if e["result"]]
    assert growing == sorted(growing) and len(set(growing)) >= 2
    option = result["options"][0]
    assert set(option) == {"action", "win_probability", "ci95", "expected_score", "visits", "exact", "share"}
    assert result["line"][0] == result["best"] and result["line_text"].startswith(result["best"])
    assert result["facts"]["threshold"] == 6 and result["facts"]["lines"] and result["rate"] > 0
    assert {e["result"]["backend"] for e in seen if e["result"]} == {"native" if native else "python"}
    for report in (e["result"] for e in seen if e["result"]):  # every update, not only the last
        assert [p["player"] for p in report["players"]] == [0, 1]
        assert sum(p["win_probability"] for p in report["players"]) == pytest.approx(1.0, abs=1e-5)
        assert report["table"]["headers"][3] == "noise (95%)"
        assert report["table"]["note"].startswith("noise (95%): the search's Monte Carlo noise")


def as_tabulated(cell: str) -> str:
    """A table cell as tabulate prints it: a decimal number read as one ("54.0" -> "54")."""
    try:
        return format(float(cell), "g") if "." in cell else cell
    except ValueError:
        return cell


def test_an_analysis_shows_what_best_move_shows(client: TestClient) -> None:
    """The final report holds `refuge best-move --json`'s answer for the same budget and seed, and
    its table, reason and line as best-move prints them (the same request: exact endgames too)."""
    job = client.post("/api/analyses", json={"example": "storm-one-away", "seed": 3}).json()["id"]
    result = events_of(client, f"/api/analyses/{job}/events")[-1]["result"]
    answer = CliRunner().invoke(cli, ["best-move", "storm-one-away", "--iterations", "400", "--seed", "3", "--json"])
    assert answer.exit_code == 0, answer.output
    expected = json.loads(answer.stdout)
    for key in ("player", "decision", "options", "best", "within_noise_of_second", "players", "line",
                "iterations", "seed", "backend"):
        assert result[key] == expected[key], key
    facts = dict(result["facts"])
    assert facts.pop("lines") and facts == expected["facts"]
    printed = CliRunner().invoke(cli, ["best-move", "storm-one-away", "--iterations", "400", "--seed", "3"]).output
    assert f"Recommendation: {result['best']} ({result['reason']})" in printed
    assert f"Line: {result['line_text']}" in printed and result["table"]["note"] in printed
    for row in result["table"]["rows"]:
        shown = (as_tabulated(str(cell)) for cell in row if cell != "")
        assert re.search(r"\s+".join(re.escape(cell) for cell in shown), printed), row


def test_a_solved_endgame_is_marked_exact_while_the_search_grows(games: str) -> None:
    """A report in the middle of the search (here: the one a pause sends) already carries the
    exact endgame values, as best-move's final answer does (* in the win column, exact as noise)."""
    config = small_config(games, max_iterations=10_000_000, max_seconds=60.0)
    with TestClient(create_app(config), base_url=LOCAL) as client:
        job = client.post("/api/analyses", json={"example": "endgame-solo", "seed": 1}).json()["id"]
        wait_for(lambda: (state_of(client, job)["result"] or {}).get("iterations"), "a first report")
        assert client.post(f"/api/analyses/{job}/stop", json={}).status_code == 200
        paused = wait_for(lambda: (s := state_of(client, job))["state"] == "paused" and s, "the pause")
        report = paused["result"]  # type: ignore[index]
        client.delete(f"/api/analyses/{job}")
    assert report["iterations"] < 10_000_000 and len(report["options"]) >= 2
    assert all(o["exact"] for o in report["options"])
    assert all(row[2].endswith("*") and row[3] == "exact" for row in report["table"]["rows"])
    assert sum(p["win_probability"] for p in report["players"]) == pytest.approx(1.0, abs=1e-5)


def test_analysis_errors(client: TestClient) -> None:
    assert client.post("/api/analyses", json={"file": GAME, "at": 2}).status_code == 409  # chance
    assert client.post("/api/analyses", json={"example": "opening-2p", "seed": -1}).status_code == 422
    assert client.post("/api/analyses", json={}).status_code == 400
    assert client.get("/api/analyses/analysis-999").status_code == 404
    assert client.get("/api/analyses/analysis-999/events").status_code == 404
    assert client.post("/api/analyses/analysis-999/stop", json={}).status_code == 404
    assert client.delete("/api/analyses/analysis-999").status_code == 404


def test_stop_continue_and_cancel(games: str) -> None:
    config = small_config(games, max_iterations=10_000_000, max_seconds=60.0)
    with TestClient(create_app(config), base_url=LOCAL) as client:
        job = client.post("/api/analyses", json={"example": "opening-2p"}).json()["id"]
        wait_for(lambda: (state_of(client, job)["result"] or {}).get("iterations"), "a first report")
        assert client.post(f"/api/analyses/{job}/continue", json={}).status_code == 409  # not paused
        assert client.post(f"/api/analyses/{job}/stop", json={}).status_code == 200
        paused = wait_for(lambda: (s := state_of(client, job))["state"] == "paused" and s, "the pause")
        frozen = paused["result"]["iterations"]  # type: ignore[index]
        time.sleep(0.3)
        assert state_of(client, job)["result"]["iterations"] == frozen
        assert client.post(f"/api/analyses/{job}/continue", json={}).json()["state"] == "running"
        wait_for(lambda: state_of(client, job)["result"]["iterations"] > frozen, "the search to grow again")
        cancelled = client.delete(f"/api/analyses/{job}").json()
        assert (cancelled["state"], cancelled["reason"]) == ("cancelled", "asked")
        assert client.post(f"/api/analyses/{job}/stop", json={}).status_code == 409
        wait_for(lambda: client.get("/api/status").json()["processes"] == 0, "the process to end")


def test_searches_run_one_per_slot_and_the_rest_queue(games: str) -> None:
    config = small_config(games, slots=1, max_jobs=2, max_iterations=10_000_000)
    with TestClient(create_app(config), base_url=LOCAL) as client:
        first = client.post("/api/analyses", json={"example": "opening-2p"}).json()
        second = client.post("/api/analyses", json={"example": "opening-2p"}).json()
        assert first["state"] == "running"
        assert (second["state"], second["queue_position"]) == ("queued", 1)
        busy = client.post("/api/analyses", json={"example": "opening-2p"})
        assert busy.status_code == 503 and "busy" in busy.json()["error"]
        assert client.post(f"/api/analyses/{second['id']}/stop", json={}).status_code == 409  # not started
        client.delete(f"/api/analyses/{first['id']}")
        wait_for(lambda: state_of(client, second["id"])["state"] == "running", "the queued search to start")
        assert client.get("/api/status").json()["jobs"]["running"] == 1
        client.delete(f"/api/analyses/{second['id']}")


def test_an_analysis_stops_at_its_time_cap(games: str) -> None:
    config = small_config(games, max_iterations=10_000_000, max_seconds=0.5)
    with TestClient(create_app(config), base_url=LOCAL) as client:
        job = client.post("/api/analyses", json={"example": "opening-2p"}).json()["id"]
        last = events_of(client, f"/api/analyses/{job}/events")[-1]
        assert (last["state"], last["reason"]) == ("capped", "seconds"), last
        assert last["result"]["seconds"] >= 0.5


def test_a_job_nobody_asks_about_is_cancelled(games: str) -> None:
    config = small_config(games, max_iterations=10_000_000, idle_seconds=0.3)
    with TestClient(create_app(config), base_url=LOCAL) as client:
        job = client.post("/api/analyses", json={"example": "opening-2p"}).json()["id"]
        time.sleep(1.0)
        data = state_of(client, job)
        assert (data["state"], data["reason"]) == ("cancelled", "idle")


def test_a_disconnected_listener_cancels_its_search(live: LiveServer) -> None:
    with httpx.Client(base_url=live.url, timeout=WAIT) as http:
        job = http.post("/api/analyses", json={"example": "opening-2p"}).json()["id"]
        with http.stream("GET", f"/api/analyses/{job}/events") as stream:
            for line in stream.iter_lines():
                if line.startswith("data: ") and json.loads(line[6:])["result"]:
                    break  # one report, then the client goes away
        data = wait_for(lambda: (d := http.get(f"/api/analyses/{job}").json())["state"] == "cancelled" and d,
                        "the cancel")
        assert data["reason"] == "disconnected"  # type: ignore[index]
        wait_for(lambda: http.get("/api/status").json()["processes"] == 0, "the process to end")


def test_an_annotation_reports_progress_then_every_label(client: TestClient) -> None:
    started = client.post("/api/annotations", json={"file": GAME, "iterations": 5, "seed": 1})
    assert started.status_code == 202
    seen = events_of(client, f"/api/annotations/{started.json()['id']}/events")
    last = seen[-1]
    assert last["state"] == "done"
    result = last["result"]
    assert result["done"] == result["total"] == len(result["annotations"]) > 10
    progress = [e["result"]["done"] for e in seen if e["result"]]
    assert progress == sorted(progress) and progress[0] < result["total"]
    first = result["annotations"][0]
    assert {"event", "walk", "turn", "player", "played", "best", "loss", "label"} <= set(first)
    assert {s["player"] for s in result["players"]} == {0, 1}


@pytest.mark.parametrize("body, status", [
    ({"file": GAME, "iterations": 51}, 422), ({"file": GAME, "iterations": 0}, 422),
    ({"example": "opening-2p"}, 422), ({"file": GAME, "seed": "x"}, 422), ({}, 400),
])
def test_annotation_errors(client: TestClient, body: dict, status: int) -> None:
    assert client.post("/api/annotations", json=body).status_code == status


def test_stopping_an_annotation_cancels_it(client: TestClient) -> None:
    job = client.post("/api/annotations", json={"file": GAME, "iterations": 50}).json()["id"]
    assert client.get(f"/api/analyses/{job}").status_code == 404  # an annotation is not an analysis
    assert client.get(f"/api/annotations/{job}").json()["kind"] == "annotation"
    stopped = client.post(f"/api/annotations/{job}/stop", json={}).json()
    assert stopped["state"] == "cancelled"
    assert client.post(f"/api/annotations/{job}/continue", json={}).status_code == 409
    other = client.post("/api/annotations", json={"file": GAME, "iterations": 50}).json()["id"]
    assert client.delete(f"/api/annotations/{other}").json()["reason"] == "asked"
    assert client.delete("/api/annotations/annotation-999").status_code == 404


def test_a_child_that_ignores_cancel_is_terminated_then_killed(games: str) -> None:
    """Cancelling never depends on the child's goodwill: SIGTERM after a grace, then SIGKILL."""
    manager = JobManager(small_config(games))

    async def scenario() -> tuple[str, float]:
        await manager.start()
        try:
            job = manager.submit("analysis", stubborn_job, ())
            while job.process is None or not job.process.is_alive():
                await asyncio.sleep(0.02)
            manager.cancel(job)
            start = time.monotonic()
            while job.process is not None and time.monotonic() - start < WAIT:
                await asyncio.sleep(0.05)
            return job.state, time.monotonic() - start
        finally:
            await manager.close()

    state, seconds = asyncio.run(scenario())
    assert state == "cancelled" and seconds < WAIT
    assert manager.status()["processes"] == 0
