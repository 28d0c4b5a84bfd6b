"""The file commands `refuge show / validate / position`, through click's CliRunner."""

from __future__ import annotations

import json
import random

from click.testing import CliRunner

from advisor.cli import cli
from advisor.cli.files import load_position_arg
from positions.examples import example_text
from positions.record import GameRecorder
from positions.saved import parse_position


def _run(*args: str):
    return CliRunner().invoke(cli, list(args))


def _game_file(tmp_path, seed: int = 2) -> str:
    rng = random.Random(seed)
    recorder = GameRecorder.new(2, "meadows", ["Ann", "Ben"], seed)
    while not recorder.position.is_terminal():
        pos = recorder.position
        legal = pos.legal_actions()
        recorder.apply(pos.sample_chance(rng) if pos.is_chance()
                       else legal[int(rng.random() * len(legal))])
    path = tmp_path / "game.json"
    path.write_text(recorder.to_json(), encoding="utf-8")
    return str(path)


def test_show_an_example_by_name() -> None:
    result = _run("show", "opening-2p")
    assert result.exit_code == 0, result.output
    assert "player 0 (Ann) at choose: play small_orientation_table, play compass" in result.output
    assert "market" in result.output and "magnificent_tree" in result.output


def test_show_a_game_record(tmp_path) -> None:
    result = _run("show", _game_file(tmp_path))
    assert result.exit_code == 0, result.output
    assert "Final position:" in result.output and "game over" in result.output


def test_validate_good_files(tmp_path) -> None:
    position = tmp_path / "p.json"
    position.write_text(example_text("storm-one-away"), encoding="utf-8")
    result = _run("validate", str(position), _game_file(tmp_path))
    assert result.exit_code == 0, result.output
    assert result.output.count(": ok") == 2


def test_validate_reports_each_error_on_its_own_line(tmp_path) -> None:
    data = json.loads(example_text("opening-2p"))
    data["players"][1]["bag"]["bearr"] = 1
    data["players"][0]["steps"] = -1
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    result = _run("validate", str(path))
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert f"{path}: players[1].bag.bearr: unknown tile kind 'bearr' (did you mean 'bear'?)" in lines
    assert any(line.startswith(f"{path}: players[0].steps: found the number -1") for line in lines)
    assert "Traceback" not in result.output


def test_validate_never_shows_a_traceback(tmp_path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "refuge-position/1", ', encoding="utf-8")
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00")
    for target in (str(broken), str(binary), str(tmp_path / "missing.json"), "no-such-example",
                   str(tmp_path)):
        result = _run("validate", target)
        assert result.exit_code == 1, (target, result.output)
        assert result.exception is None or isinstance(result.exception, SystemExit)
        assert "Traceback" not in result.output
        assert len(result.output.strip().splitlines()) == 1


def test_position_at_an_event_is_seen_by_the_player_to_decide(tmp_path) -> None:
    game = _game_file(tmp_path)
    out = tmp_path / "at.json"
    result = _run("position", game, "--at", "40", "-o", str(out))
    assert result.exit_code == 0, result.output
    saved = parse_position(json.loads(out.read_text(encoding="utf-8")))
    assert saved.names == ("Ann", "Ben")
    assert "before event 40" in saved.story


def test_position_by_walk_turn_and_player(tmp_path) -> None:
    result = _run("position", _game_file(tmp_path), "--walk", "1", "--turn", "1", "--player", "1")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["walk"] == 1 and data["turn"] == 1 and data["decision"]["player"] == 1


def test_position_errors_are_one_line(tmp_path) -> None:
    game = _game_file(tmp_path)
    result = _run("position", game, "--at", "100000")
    assert result.exit_code == 1 and "the record has only" in result.output
    result = _run("position", "opening-2p", "--at", "1")
    assert result.exit_code == 1 and "expected a game record" in result.output
    result = _run("position", game, "--walk", "1")
    assert result.exit_code == 2


def test_load_position_arg_takes_paths_examples_and_records(tmp_path) -> None:
    assert load_position_arg("endgame-solo").walk == 4
    assert load_position_arg(_game_file(tmp_path)).is_terminal()


def test_main_exits_1_on_a_bad_file(monkeypatch, capsys) -> None:
    """Through the real entry point, not just CliRunner: exit code 1 and one line, no traceback."""
    import pytest

    from advisor.cli import main
    monkeypatch.setattr("sys.argv", ["refuge", "validate", "no-such-example"])
    with pytest.raises(SystemExit) as stop:
        main()
    assert stop.value.code == 1
    assert capsys.readouterr().err.count("\n") == 1
