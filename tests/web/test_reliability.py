"""Issue 56 item 6: the server's answers when a worker has just died, a client never finishes its
headers, a Host is malformed or a body carries a field no endpoint reads."""

from __future__ import annotations

import socket
import time

import pytest
from starlette.testclient import TestClient

from advisor.web.app import create_app
from webtools import LOCAL, LiveServer, small_config
from test_jobs import state_of, wait_for


def _running_analysis(client: TestClient) -> str:
    job = client.post("/api/analyses", json={"example": "opening-2p"}).json()["id"]
    wait_for(lambda: (state_of(client, job)["result"] or {}).get("iterations"), "a first report")
    return job


def _kill_worker(client: TestClient, job: str) -> None:
    """SIGKILL the job's process and wait until it is gone."""
    process = client.app.state.jobs.jobs[job].process  # type: ignore[attr-defined]
    process.kill()
    process.join(5)


@pytest.mark.parametrize("verb", ["stop", "continue"])
def test_stop_or_continue_just_after_the_worker_died_is_not_a_500(games: str, verb: str,
                                                                   monkeypatch) -> None:
    config = small_config(games, max_iterations=10_000_000, max_seconds=60.0)
    with TestClient(create_app(config), base_url=LOCAL, raise_server_exceptions=False) as client:
        jobs = client.app.state.jobs  # type: ignore[attr-defined]
        job = _running_analysis(client)
        if verb == "continue":
            client.post(f"/api/analyses/{job}/stop", json={})
            wait_for(lambda: state_of(client, job)["state"] == "paused", "the pause")
        with monkeypatch.context() as paused_loop:  # the request comes before the loop has looked
            paused_loop.setattr(jobs, "tick", lambda: None)
            _kill_worker(client, job)
            answer = client.post(f"/api/analyses/{job}/{verb}", json={})
        assert answer.status_code in (200, 409), answer.text
        final = wait_for(lambda: (s := state_of(client, job))["state"] in ("failed", "cancelled") and s,
                         "the job to end")
        assert final["state"] == "failed" and "ended" in final["error"]  # type: ignore[index]
        # the loop that tends jobs survived: a new analysis still runs and reports
        assert state_of(client, _running_analysis(client))["state"] == "running"


def test_the_job_loop_survives_an_error_in_one_tick(games: str, monkeypatch) -> None:
    with TestClient(create_app(small_config(games)), base_url=LOCAL) as client:
        jobs = client.app.state.jobs  # type: ignore[attr-defined]
        real, calls = jobs.tick, []

        def failing_once() -> None:
            calls.append(1)
            if len(calls) == 1:
                raise RuntimeError("a bug in one tick")
            real()

        monkeypatch.setattr(jobs, "tick", failing_once)
        time.sleep(0.2)
        assert len(calls) > 2  # it went on ticking
        job = client.post("/api/analyses", json={"example": "opening-2p"}).json()["id"]
        wait_for(lambda: state_of(client, job)["state"] == "capped", "the analysis to finish")


# --- a header timeout against a real server --------------------------------------------------------

def test_connections_that_never_finish_their_headers_are_closed(games: str) -> None:
    with LiveServer(small_config(games, header_seconds=1.0)) as live:
        port = int(live.url.rsplit(":", 1)[1])
        slow = []
        for _ in range(30):
            sock = socket.create_connection(("127.0.0.1", port), timeout=10)
            sock.sendall(b"GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")  # never ends
            slow.append(sock)
        silent = socket.create_connection(("127.0.0.1", port), timeout=10)  # sends nothing at all
        started = time.monotonic()
        for sock in slow + [silent]:
            assert sock.recv(4096) == b""  # closed by the server
        assert time.monotonic() - started < 8
        # a client that sends its whole request in time is answered as before
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(b"GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            assert sock.recv(4096).startswith(b"HTTP/1.1 200")
        for sock in slow + [silent]:
            sock.close()


def test_a_slow_but_steady_header_is_still_cut_at_the_deadline(games: str) -> None:
    with LiveServer(small_config(games, header_seconds=1.0)) as live:
        port = int(live.url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            started, closed = time.monotonic(), False
            sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            while time.monotonic() - started < 6 and not closed:
                try:
                    sock.sendall(b"X: y\r\n")  # a byte or two every 0.2 s, as a slowloris sends
                except OSError:
                    closed = True
                time.sleep(0.2)
            assert closed or sock.recv(4096) == b""
            assert time.monotonic() - started < 4


# --- strict Host ---------------------------------------------------------------------------------

@pytest.mark.parametrize("host", [
    "127.0.0.1:8765@evil.example", "127.0.0.1@evil.example", "evil.example@127.0.0.1", "127.0.0.1:80:80",
    "127.0.0.1:", "127.0.0.1:port", "127.0.0.1 ", " 127.0.0.1", "127.0.0.1/x", "127.0.0.1\\@evil",
    "localhost:99999999", "[::1", "[::1]x", "[::1]:8765@evil", "user:pw@127.0.0.1", "127.0.0.1#x",
    "127.0.0.1?x", "localhost.",
])
def test_a_malformed_host_is_refused(client: TestClient, host: str) -> None:
    response = client.get("/api/catalogue", headers={"host": host})
    assert response.status_code == 421, (host, response.status_code)


def test_two_host_headers_are_refused(games: str) -> None:
    with LiveServer(small_config(games)) as live:
        port = int(live.url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(b"GET /api/catalogue HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\n"
                         b"Connection: close\r\n\r\n")
            head = sock.recv(4096)
        assert head.split(b" ", 2)[1] in (b"400", b"421"), head[:80]


# --- unknown fields --------------------------------------------------------------------------------

@pytest.mark.parametrize("path, body, field", [
    ("/api/analyses", {"example": "opening-2p", "seed": 1, "iterations": 5}, "iterations"),
    ("/api/analyses", {"example": "opening-2p", "sed": 1}, "sed"),
    ("/api/view", {"example": "opening-2p", "event": ["draw"]}, "event"),
    ("/api/apply", {"example": "opening-2p", "action": "play compass", "seat": 0}, "seat"),
    ("/api/export", {"example": "opening-2p", "x": 1}, "x"),
    ("/api/new", {"players": 2, "rout": "forest"}, "rout"),
    ("/api/validate", {"position": {}, "strict": True}, "strict"),
    ("/api/review", {"file": "blunder-game.json", "at": 3}, "at"),
    ("/api/annotations", {"file": "blunder-game.json", "iteration": 3}, "iteration"),
    ("/api/tracked", {"players": 2, "name": ["a", "b"]}, "name"),
])
def test_an_unknown_field_is_422_naming_it(client: TestClient, path: str, body: dict, field: str) -> None:
    response = client.post(path, json=body)
    assert response.status_code == 422, (path, response.text)
    assert response.json()["error"].startswith(f"{field}: unknown field")


def test_unknown_fields_in_the_tracked_and_job_verbs_are_422(client: TestClient) -> None:
    game = client.post("/api/tracked", json={"players": 2}).json()["id"]
    assert client.post(f"/api/tracked/{game}/events", json={"action": "draw", "seet": 1}).status_code == 422
    assert client.post(f"/api/tracked/{game}/undo", json={"all": True}).status_code == 422
    job = client.post("/api/analyses", json={"example": "opening-2p"}).json()["id"]
    assert client.post(f"/api/analyses/{job}/stop", json={"now": 1}).status_code == 422
    assert client.post(f"/api/analyses/{job}/continue", json={"x": 1}).status_code == 422


def test_a_job_ending_while_its_last_report_is_sent_still_sends_its_end(games: str) -> None:
    import asyncio

    from advisor.web.jobs import Job, JobManager

    manager = JobManager(small_config(games))
    job = Job("analysis-x", "analysis", print, (), state="running")
    manager.jobs[job.id] = job

    async def follow() -> list[str]:
        stream = manager.stream(job)
        states = [str((await stream.__anext__())["state"])]
        job.state = "capped"  # it ends while the report above is on its way
        job.changed()
        async for data in stream:
            states.append(str(data["state"]))
        return states

    assert asyncio.run(follow()) == ["running", "capped"]
