"""`refuge serve` through click's CliRunner: what it hands to uvicorn, and its errors."""

from __future__ import annotations

import pytest
import uvicorn
from click.testing import CliRunner
from starlette.applications import Starlette

from advisor.cli import cli


def fake_run(calls: list[dict]):
    """uvicorn.Server.run standing in for the real one: records the socket serve bound and the app."""
    def run(server: uvicorn.Server, sockets: list) -> None:
        (sock,) = sockets
        calls.append({"address": sock.getsockname(), "app": server.config.app})
        sock.close()
    return run


def test_serve_listens_on_loopback_by_default_and_prints_its_url(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[dict] = []
    monkeypatch.setattr(uvicorn.Server, "run", fake_run(calls))
    result = CliRunner().invoke(cli, ["serve", "--games", str(tmp_path), "--max-seconds", "5", "--port", "0"])
    assert result.exit_code == 0, result.output
    (call,) = calls
    host, port = call["address"]
    assert host == "127.0.0.1" and isinstance(call["app"], Starlette)
    assert f"http://127.0.0.1:{port}/  (games: {tmp_path}" in result.output  # no token on loopback
    config = call["app"].state.config
    assert (config.games_dir, config.max_seconds, config.token) == (str(tmp_path), 5.0, "")
    assert config.paused_cap == 2 * config.slots and "127.0.0.1" in config.hosts


def test_serve_beyond_loopback_needs_a_token_printed_in_its_url(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[dict] = []
    monkeypatch.setattr(uvicorn.Server, "run", fake_run(calls))
    result = CliRunner().invoke(cli, ["serve", "--games", str(tmp_path), "--host", "0.0.0.0", "--port", "0",
                                      "--allow-host", "board.lan", "--max-paused", "3"])
    assert result.exit_code == 0 and "other machines can reach this server" in result.output
    config = calls[0]["app"].state.config
    assert len(config.token) >= 32 and f"/?token={config.token}" in result.output
    assert "board.lan" in config.hosts and config.paused_cap == 3
    given = CliRunner().invoke(cli, ["serve", "--games", str(tmp_path), "--port", "0", "--token", "abc"])
    assert given.exit_code == 0 and "/?token=abc" in given.output


def test_serve_refuses_a_missing_games_folder(tmp_path) -> None:
    result = CliRunner().invoke(cli, ["serve", "--games", str(tmp_path / "nope")])
    assert result.exit_code == 1 and result.output.startswith("error: --games ")  # as every command
    assert "no such folder" in result.output


def test_serve_on_a_busy_port_says_so_in_one_line(tmp_path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(cli, ["serve", "--games", str(tmp_path), "--port", str(port)])
    assert result.exit_code == 1
    assert result.output.strip() == (f"error: cannot listen on 127.0.0.1:{port}: Address already in use "
                                     "(another server? --port chooses another)")
