"""`refuge serve` through click's CliRunner: what it hands to uvicorn, and its errors."""

from __future__ import annotations

import pytest
import uvicorn
from click.testing import CliRunner
from starlette.applications import Starlette

from advisor.cli import cli


def test_serve_listens_on_loopback_by_default_and_prints_its_url(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[dict] = []
    monkeypatch.setattr(uvicorn.Server, "run", lambda server: calls.append(
        {"host": server.config.host, "port": server.config.port, "app": server.config.app}))
    result = CliRunner().invoke(cli, ["serve", "--games", str(tmp_path), "--max-seconds", "5"])
    assert result.exit_code == 0, result.output
    assert "http://127.0.0.1:8765/" in result.output and str(tmp_path) in result.output
    (call,) = calls
    assert (call["host"], call["port"]) == ("127.0.0.1", 8765) and isinstance(call["app"], Starlette)
    config = call["app"].state.config
    assert (config.games_dir, config.max_seconds) == (str(tmp_path), 5.0)


def test_serve_says_when_other_machines_can_reach_it(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(uvicorn.Server, "run", lambda server: None)
    result = CliRunner().invoke(cli, ["serve", "--games", str(tmp_path), "--host", "0.0.0.0", "--port", "0"])
    assert result.exit_code == 0 and "other machines can reach this server" in result.output


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
