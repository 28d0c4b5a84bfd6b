"""`refuge track` and `refuge show --events` through click's CliRunner, events on standard input."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from advisor.cli import cli
from positions.record import GameRecorder, dump_record, load_record, replay
from tests.track_games import reorder_simultaneous, script_of, self_played


def _run(*args: str, stdin: str = ""):
    return CliRunner().invoke(cli, list(args), input=stdin)


def _library_record(events: list, players: int, names: list[str]) -> str:
    """The record the same events give through the library (GameRecorder) alone."""
    recorder = GameRecorder.new(players, "forest", names)
    for action in events:
        recorder.apply(action)
    return dump_record(recorder.record())


def test_track_follows_a_whole_three_player_game_from_stdin(tmp_path) -> None:
    game = self_played(3, seed=5).record()
    lines = reorder_simultaneous(script_of(game))
    events = [line for line in lines if line and not line.startswith("#")]
    # A mistaken buy typed and taken back, and advice asked at the first simultaneous step.
    first_buy = next(i for i, line in enumerate(lines) if ": buy " in line or ": pass" in line)
    lines[first_buy:first_buy] = ["advise 1", lines[first_buy], "undo"]
    decide = lines.index(events[1])
    lines[decide:decide] = ["advise", "bags", "show"]
    path = tmp_path / "table.json"
    result = _run("track", str(path), "--players", "3", "--route", "forest", "--names",
                  "P0,P1,P2", "--iterations", "20", stdin="\n".join(lines) + "\n")
    assert result.exit_code == 0, result.output
    assert "Recommendation:" in result.output
    assert "undid 1 event" in result.output
    assert "revealed: P0: " in result.output  # the names given, as they can be typed again
    assert "game over: scores" in result.output
    assert path.read_text(encoding="utf-8") == _library_record(list(game.events), 3,
                                                               ["P0", "P1", "P2"])
    assert _run("validate", str(path)).exit_code == 0
    assert replay(load_record(str(path))).final.scores() == list(game.result or ())


def test_show_events_piped_into_track_rebuilds_a_self_played_game(tmp_path) -> None:
    original = tmp_path / "a.json"
    original.write_text(self_played(3, seed=9).to_json(), encoding="utf-8")
    shown = _run("show", str(original), "--events")
    assert shown.exit_code == 0, shown.output
    assert shown.output.startswith("# walk 1, turn 1\n0: ")
    copy = tmp_path / "b.json"
    rebuilt = _run("track", str(copy), "--players", "3", "--route", "forest", "--names",
                   "P0,P1,P2", stdin=shown.output)
    assert rebuilt.exit_code == 0, rebuilt.output
    a, b = (json.loads(p.read_text(encoding="utf-8")) for p in (original, copy))
    a.pop("seed")
    assert a == b


def test_track_continues_a_record_and_stops_at_a_bad_line(tmp_path) -> None:
    game = self_played(3, seed=5).record()
    lines = [line for line in script_of(game) if not line.startswith("#")]
    path = tmp_path / "g.json"
    first = _run("track", str(path), "--players", "3", "--route", "forest",
                 stdin="\n".join(lines[:10]) + "\n")
    assert first.exit_code == 0, first.output
    second = _run("track", str(path), stdin="\n".join(lines[10:15] + ["buy bearr"]) + "\n")
    assert second.exit_code == 1
    assert "line 6: 'buy bearr': 'bearr': unknown word (did you mean 'bear'?)" in second.output
    assert len(load_record(str(path)).events) == 15


def test_track_refuses_unclear_starts(tmp_path) -> None:
    missing = _run("track", str(tmp_path / "new.json"))
    assert missing.exit_code == 2 and "give --players" in missing.output
    names = _run("track", str(tmp_path / "n.json"), "--players", "3", "--names", "A,B")
    assert names.exit_code == 2 and "2 names for 3 players" in names.output


def test_show_events_of_a_position_is_an_error() -> None:
    result = _run("show", "opening-2p", "--events")
    assert result.exit_code == 1
    assert "a saved position has no events" in result.output


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs a pseudo-terminal")
def test_track_on_a_terminal_prompts_and_completes_with_tab(tmp_path) -> None:
    import pty
    import select
    import subprocess
    import sys
    import time

    path = tmp_path / "tty.json"
    main, child = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-c", "from advisor.cli.main import main; main()", "track", str(path),
         "--players", "2"], stdin=child, stdout=child, stderr=child, close_fds=True)
    os.close(child)

    def read_until(text: str, seconds: float = 20.0) -> str:
        seen, end = "", time.monotonic() + seconds
        while text not in seen and time.monotonic() < end:
            if select.select([main], [], [], 0.2)[0]:
                try:
                    seen += os.read(main, 4096).decode(errors="replace")
                except OSError:
                    break
        return seen

    try:
        assert "decide: 0, 1 (return | draw) >" in read_until("> ")
        os.write(main, b"1: ret\t\n")  # Tab completes the line to "1: return"
        assert "1 has chosen (hidden until 0 chooses)" in read_until("> ")
        os.write(main, b"quit\n")
        assert "record written" in read_until("events)")
    finally:
        process.kill()
        process.wait(timeout=10)
        os.close(main)
    assert [str(e) for e in load_record(str(path)).events] == []


def test_a_refused_command_does_not_stop_a_script(tmp_path) -> None:
    path = tmp_path / "c.json"
    result = _run("track", str(path), "--players", "2", stdin="draw\ndraw\nadvise\nsign sign\n")
    assert result.exit_code == 0, result.output
    assert "no decision to advise on: the next event is chance" in result.output
    assert [str(e) for e in load_record(str(path)).events] == ["draw", "draw", "drawn sign sign"]
