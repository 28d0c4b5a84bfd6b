"""Issue 24: cross-site writes, DNS rebinding, the token, files, save-then-commit, bounded answers,
typed checks, the paused cap, quiet disconnects, a busy port. Each test reproduces a defect found by
the audit at 94212e8 and checks it is gone."""

from __future__ import annotations

import asyncio
import errno
import json
import logging
import os
import socket
import stat
import subprocess
import sys
import time

import pytest
from starlette.testclient import TestClient

from advisor.web.app import create_app
from positions.files import FileWriteError, write_in_folder
from positions.record import load_record
from test_jobs import state_of, wait_for
from webtools import LOCAL, small_config

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def tracked_files(folder: str) -> list[str]:
    return sorted(n for n in os.listdir(folder) if n.startswith("tracked-"))


def new_game(client: TestClient) -> dict:
    response = client.post("/api/tracked", json={"players": 2, "route": "meadows"})
    assert response.status_code == 201, response.text
    return response.json()


# --- 1. cross-site requests -----------------------------------------------------------------------

@pytest.mark.parametrize("headers, status", [
    ({"content-type": "text/plain"}, 415),                       # a no-cors fetch or a text/plain form
    ({"content-type": "application/x-www-form-urlencoded"}, 415),
    ({"content-type": "multipart/form-data; boundary=x"}, 415),
    ({}, 415),                                                   # no body at all (undo, stop)
    ({"content-type": "application/json", "origin": "http://evil.example"}, 403),
    ({"content-type": "application/json", "origin": "http://127.0.0.1:9999"}, 403),  # another port
    ({"content-type": "application/json", "origin": "null"}, 403),
])
def test_a_cross_site_request_changes_nothing(client: TestClient, games: str, headers: dict,
                                              status: int) -> None:
    game = new_game(client)
    before = tracked_files(games)
    body = b'{"players": 2}'
    for path in ("/api/tracked", f"/api/tracked/{game['id']}/undo", "/api/analyses"):
        response = client.post(path, content=body, headers=headers)
        assert response.status_code == status and list(response.json()) == ["error"], path
        assert "\n" not in response.json()["error"]
    assert tracked_files(games) == before
    assert client.get("/api/status").json()["jobs"] == {}


def test_the_servers_own_origin_and_json_pass(client: TestClient) -> None:
    response = client.post("/api/tracked", json={"players": 2}, headers={"origin": LOCAL})
    assert response.status_code == 201
    assert client.post("/api/view", json={"example": "opening-2p"},
                       headers={"content-type": "application/json; charset=utf-8"}).status_code == 200


def test_ids_are_random(client: TestClient) -> None:
    ids = {new_game(client)["id"] for _ in range(5)}
    assert len(ids) == 5 and all(len(i) == 24 and int(i, 16) >= 0 for i in ids)


def test_preflights_get_no_cors_answer(client: TestClient) -> None:
    response = client.options("/api/tracked", headers={"origin": LOCAL, "access-control-request-method": "POST"})
    assert response.status_code == 405 and "access-control-allow-origin" not in response.headers


# --- 2. Host and token ----------------------------------------------------------------------------

@pytest.mark.parametrize("host, status", [
    ("evil.example", 421), ("evil.example:8765", 421), ("127.0.0.1.evil.example", 421), ("", 421),
    ("127.0.0.1:8765", 200), ("localhost", 200), ("[::1]:8765", 200),
])
def test_the_host_must_be_one_of_the_servers_names(client: TestClient, host: str, status: int) -> None:
    response = client.get("/api/catalogue", headers={"host": host})
    assert response.status_code == status
    if status == 421:
        assert "--allow-host" in response.json()["error"]


def test_allow_host_adds_a_name(games: str) -> None:
    with TestClient(create_app(small_config(games, hosts=("127.0.0.1", "board.lan"))), base_url=LOCAL) as client:
        assert client.get("/api/catalogue", headers={"host": "board.lan:80"}).status_code == 200
        assert client.get("/api/catalogue", headers={"host": "localhost"}).status_code == 421


def test_a_token_is_checked_on_every_request(games: str) -> None:
    token = "s3cret-token"
    with TestClient(create_app(small_config(games, token=token)), base_url=LOCAL) as client:
        for path in ("/", "/static/common.js", "/api/catalogue"):
            refused = client.get(path)
            assert refused.status_code == 403 and "token" in refused.json()["error"]
        assert client.get("/api/catalogue?token=wrong").status_code == 403
        assert client.get("/api/catalogue", headers={"authorization": f"token {token}"}).status_code == 200
        assert client.get("/api/catalogue", headers={"x-refuge-token": token}).status_code == 200
        opened = client.get(f"/?token={token}")  # the printed URL: sets the cookie the pages then send
        assert opened.status_code == 200 and "HttpOnly" in opened.headers["set-cookie"]
        assert client.get("/api/catalogue").status_code == 200  # the cookie
        client.cookies.clear()
        assert client.post("/api/tracked", json={"players": 2}).status_code == 403
    assert tracked_files(games) == []


# --- 3. files -------------------------------------------------------------------------------------

def test_a_link_planted_at_a_new_name_is_never_followed(tmp_path) -> None:
    folder, outside = tmp_path / "games", tmp_path / "outside.json"
    folder.mkdir()
    os.symlink(outside, folder / "tracked-x.json")  # dangling: os.path.exists is false
    with pytest.raises(FileWriteError, match="exists already"):
        write_in_folder(str(folder), "tracked-x.json", "{}", new=True)
    assert not outside.exists() and os.path.islink(folder / "tracked-x.json")
    assert [n for n in os.listdir(folder) if n.endswith(".tmp")] == []


def test_a_tracked_file_replaced_by_a_link_does_not_write_its_target(client: TestClient, games: str,
                                                                     tmp_path) -> None:
    game = new_game(client)
    path = os.path.join(games, game["file"])
    outside = tmp_path / "victim.txt"
    outside.write_text("keep me")
    os.unlink(path)
    os.symlink(outside, path)
    refused = client.post(f"/api/tracked/{game['id']}/events", json={"action": "draw"})
    assert refused.status_code == 507 and "symbolic link" in refused.json()["error"]
    assert outside.read_text() == "keep me"
    assert client.get(f"/api/tracked/{game['id']}").json()["record"]["events"] == []


def test_names_outside_the_folder_are_refused(tmp_path) -> None:
    for name in ("../x.json", "a/b.json", "..", ""):
        with pytest.raises(FileWriteError):
            write_in_folder(str(tmp_path), name, "{}")


def test_every_save_syncs_the_file_and_the_folder(client: TestClient, monkeypatch) -> None:
    game = new_game(client)
    synced: list[str] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        synced.append("folder" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file")
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    assert client.post(f"/api/tracked/{game['id']}/events", json={"action": "draw"}).status_code == 200
    assert synced == ["file", "folder"]


def test_stray_temporary_files_are_removed_at_start(games: str) -> None:
    stray, fresh = os.path.join(games, ".refuge-abc123.tmp"), os.path.join(games, ".refuge-new.tmp")
    mine = os.path.join(games, "notes.tmp")
    for path in (stray, fresh, mine):
        with open(path, "w") as out:
            out.write("{")
    old = time.time() - 3600
    os.utime(stray, (old, old))
    os.utime(mine, (old, old))
    with TestClient(create_app(small_config(games)), base_url=LOCAL):
        pass
    assert not os.path.exists(stray)
    assert os.path.exists(fresh) and os.path.exists(mine)  # a save in progress, a file not ours


def test_tracked_games_are_capped(games: str) -> None:
    with TestClient(create_app(small_config(games, max_tracked=3)), base_url=LOCAL) as client:
        for _ in range(3):
            new_game(client)
        refused = client.post("/api/tracked", json={"players": 2})
        assert refused.status_code == 409 and "--max-tracked" in refused.json()["error"]
    assert len(tracked_files(games)) == 3


# --- 4. save, then commit -------------------------------------------------------------------------

def test_a_failed_save_leaves_the_game_as_it_was(client: TestClient, games: str, monkeypatch) -> None:
    game = new_game(client)
    url, path = f"/api/tracked/{game['id']}", os.path.join(games, game["file"])
    assert client.post(f"{url}/events", json={"action": "draw"}).status_code == 200
    os.chmod(path, 0o444)  # read-only
    refused = client.post(f"{url}/events", json={"action": "draw"})
    assert refused.status_code == 507 and "read-only" in refused.json()["error"]
    assert "nothing changed" in refused.json()["error"]
    assert client.get(url).json()["record"]["events"] == ["draw"]
    os.chmod(path, 0o644)

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)  # the disk is full
    refused = client.post(f"{url}/events", json={"action": "draw"})
    assert refused.status_code == 507 and "No space left" in refused.json()["error"]
    assert client.post(f"{url}/undo", json={}).status_code == 507
    monkeypatch.undo()
    assert client.get(url).json()["record"]["events"] == ["draw"]
    assert [str(e) for e in load_record(path).events] == ["draw"]
    assert not [n for n in os.listdir(games) if n.endswith(".tmp")]
    retried = client.post(f"{url}/events", json={"action": "draw"})  # the same event, now it saves
    assert retried.status_code == 200 and retried.json()["record"]["events"] == ["draw", "draw"]


# --- 5. bounded work --------------------------------------------------------------------------------

def test_problem_lists_are_capped_and_counted(client: TestClient) -> None:
    document = {"format": "refuge-position/1", **{f"unknown{i}": i for i in range(3000)}}
    response = client.post("/api/validate", json={"position": document})
    data = response.json()
    assert response.status_code == 200 and not data["valid"]
    assert len(data["problems"]) == 50 and data["problem_count"] > 3000
    assert len(response.content) < 20_000


def test_echoed_input_is_cut_short(client: TestClient) -> None:
    action = "play " + "x" * 150_000
    for path, body in (("/api/apply", {"example": "opening-2p", "action": action}),
                       ("/api/view", {"example": "opening-2p", "events": [action]})):
        response = client.post(path, json=body)
        assert response.status_code == 422 and len(response.content) < 2_000, path


# --- 6. typed checks ------------------------------------------------------------------------------

@pytest.mark.parametrize("path, body, field", [
    ("/api/new", {"route": ["meadows"]}, "route"),
    ("/api/new", {"route": {"a": 1}}, "route"),
    ("/api/new", {"players": "2"}, "players"),
    ("/api/tracked", {"route": ["meadows"]}, "route"),
    ("/api/tracked", {"names": ["\ud800", "b"]}, "names[0]"),
    ("/api/view", {"example": "opening-2p", "\ud800": 1}, "$"),
    ("/api/validate", {"position": {"format": "refuge-position/1", "title": "\udfff"}}, "position.title"),
])
def test_wrong_types_and_unencodable_strings_are_422_naming_the_field(client: TestClient, path: str,
                                                                      body: dict, field: str) -> None:
    response = client.post(path, content=json.dumps(body), headers={"content-type": "application/json"})
    assert response.status_code == 422 and response.json()["error"].startswith(field), response.text


# --- 7. paused analyses ---------------------------------------------------------------------------

def test_paused_analyses_are_capped(games: str) -> None:
    config = small_config(games, slots=1, max_paused=1, max_iterations=10_000_000, max_seconds=60.0)
    with TestClient(create_app(config), base_url=LOCAL) as client:
        jobs = []
        for _ in range(2):
            job = client.post("/api/analyses", json={"example": "opening-2p"}).json()["id"]
            wait_for(lambda: (state_of(client, job)["result"] or {}).get("iterations"), "a first report")
            client.post(f"/api/analyses/{job}/stop", json={})
            wait_for(lambda: state_of(client, job)["state"] == "paused", "the pause")
            jobs.append(job)
        first = state_of(client, jobs[0])
        assert (first["state"], first["reason"]) == ("cancelled", "too many paused")
        assert "more than 1 paused" in first["error"]
        wait_for(lambda: client.get("/api/status").json()["processes"] == 1, "one process (the paused)")
        client.delete(f"/api/analyses/{jobs[1]}")


# --- 8. quiet disconnects, a busy port --------------------------------------------------------------

def test_a_client_leaving_mid_body_is_one_quiet_log_line(games: str, caplog) -> None:
    app = create_app(small_config(games))
    sent: list[dict] = []

    async def run() -> None:
        messages = [{"type": "http.request", "body": b'{"example": ', "more_body": True},
                    {"type": "http.disconnect"}]

        async def receive() -> dict:
            return messages.pop(0) if messages else {"type": "http.disconnect"}

        async def send(message: dict) -> None:
            sent.append(message)

        scope = {"type": "http", "method": "POST", "path": "/api/view", "raw_path": b"/api/view",
                 "query_string": b"", "root_path": "", "scheme": "http", "server": ("127.0.0.1", 80),
                 "client": ("127.0.0.1", 5000), "http_version": "1.1", "app": app,
                 "headers": [(b"host", b"127.0.0.1"), (b"content-type", b"application/json")]}
        await app(scope, receive, send)

    with caplog.at_level(logging.INFO, logger="refuge.web"):
        asyncio.run(run())
    records = [r for r in caplog.records if r.name == "refuge.web"]
    assert len(records) == 1 and "disconnected" in records[0].getMessage()
    assert records[0].levelno == logging.INFO and records[0].exc_info is None


def test_a_busy_port_is_one_line_and_exit_1_before_any_banner(games: str) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = subprocess.run([sys.executable, "-c", "from advisor.cli import main; main()", "serve",
                                 "--port", str(port), "--games", games], capture_output=True, text=True, timeout=60,
                                env=dict(os.environ, PYTHONPATH=ROOT))
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and "cannot listen on 127.0.0.1" in result.stderr


def big_unknown_keys_body(size: int) -> bytes:
    """A ``/api/validate`` body of about `size` bytes: a position of unknown keys (the audit's 4 MB)."""
    keys = {f"k{i:07d}": 0 for i in range(size // 15)}
    return json.dumps({"position": {"format": "refuge-position/1", **keys}}).encode()


def test_large_validations_run_off_the_event_loop(tmp_path, monkeypatch) -> None:
    """Three 2 MB validations held inside the validator at once: /api/status is still answered
    (were they run on the event loop, it would wait for them; no sleep decides the order)."""
    import threading

    import httpx

    from advisor.web.views import positions as position_views
    from webtools import LiveServer, make_games

    entered = threading.Semaphore(0)
    release = threading.Event()
    real_validate = position_views._validate

    def held_validate(*args):
        entered.release()
        release.wait(60)
        return real_validate(*args)

    monkeypatch.setattr(position_views, "_validate", held_validate)
    body = big_unknown_keys_body(2_000_000)
    config = small_config(make_games(str(tmp_path / "games")), max_body_bytes=len(body) + 1)
    with LiveServer(config) as live:
        answers: list[httpx.Response] = []

        def validate() -> None:
            answers.append(httpx.post(f"{live.url}/api/validate", content=body, timeout=120,
                                      headers={"content-type": "application/json"}))

        threads = [threading.Thread(target=validate) for _ in range(3)]
        for thread in threads:
            thread.start()
        try:
            inside = [entered.acquire(timeout=20) for _ in threads]
            status = httpx.get(f"{live.url}/api/status", timeout=10)
            answered_while_held = not answers
        finally:
            release.set()
            for thread in threads:
                thread.join(120)
    assert all(inside), "the three validations did not all reach the validator"
    assert status.status_code == 200 and answered_while_held
    assert len(answers) == 3
    assert all(a.status_code == 200 and len(a.content) < 20_000 for a in answers)
    assert all(a.json()["problem_count"] > 120_000 for a in answers)
