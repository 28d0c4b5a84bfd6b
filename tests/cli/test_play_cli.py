"""`refuge play` driven through standard input: seat labels, help, helpful errors, buy menu, undo,
the walk summaries, the game-over screen and quitting with the record."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from advisor.cli import cli
from advisor.cli.play import seat_labels
from positions.record import load_record, replay


def _play(tmp_path, answers: str, *extra: str):
    record = tmp_path / "game.json"
    result = CliRunner().invoke(cli, ["play", "--seats", "human,heuristic,greedy", "--seed", "1",
                                      "--names", "Ann", "--record", str(record), *extra],
                                input=answers)
    return result, record


@pytest.fixture(scope="module")
def whole_game(tmp_path_factory):
    """A whole game in which the person always takes option 2 (draw, the second tile, a buy)."""
    tmp = tmp_path_factory.mktemp("play")
    return _play(tmp, "?\nbuy map\nhikng_poles\n9\n" + "2\n" * 3000)


def test_seats_are_labelled_from_the_start(whole_game) -> None:
    result, _ = whole_game
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Seats: 0 Ann · 1 heuristic · 2 greedy\n")
    assert seat_labels(["human", "heuristic", "heuristic"], []) == ["you", "heuristic #1",
                                                                    "heuristic #2"]


def test_help_and_mistyped_or_illegal_input_say_why(whole_game) -> None:
    output = whole_game[0].output
    assert "take back your last decision" in output  # the help after '?'
    assert "buy map: tiles are bought at the end of the turn, not at decide" in output
    assert "'hikng_poles': unknown word (did you mean 'hiking_poles'?)" in output
    assert "no option 9: choose 1 to 2" in output


def test_buy_menu_shows_costs_counts_and_effects(whole_game) -> None:
    assert "2. buy compass              2 Steps, 4 left: 1 more play or +3 Steps" in whole_game[0].output


def test_plays_buys_and_forced_moves_are_listed_each_turn(whole_game) -> None:
    output = whole_game[0].output
    assert "revealed: Ann: draw; heuristic: draw; greedy: draw" in output
    assert "-- walk 1, turn 1:" in output
    assert "(forced)" in output  # a tile played because it came with a Storm (C7)
    assert "buys compass for 2 Steps" in output


def test_every_walk_ends_with_a_summary_and_the_game_with_the_final_board(whole_game) -> None:
    result, record = whole_game
    output = result.output
    for walk in range(1, 6):
        assert f"End of walk {walk}:" in output
    assert "animal points" in output and "Storm penalty" in output
    assert "The paths as the last walk ended, VP and Steps after its Storm penalty:" in output
    final = replay(load_record(str(record))).final
    assert final.is_terminal()
    board = output.split("after its Storm penalty:\n")[1].split("\n\n")[0].splitlines()[2:]
    assert [(int(row.split()[-2]), int(row.split()[-1])) for row in board] == \
        list(zip(final.vp, final.steps))  # the same numbers as the final scores, penalty included
    assert "Final scores:" in output and ("wins" in output.split("Final scores:")[1])
    assert "Walk 5/5, turn 1: game over" not in output


def test_undo_takes_back_the_persons_decision(tmp_path) -> None:
    result, record = _play(tmp_path, "2\nundo\n1\nquit\n")
    assert result.exit_code == 0, result.output
    assert "taken back to before your decision (event 0)" in result.output
    events = [str(e) for e in load_record(str(record)).events]
    assert events[0] == "return"  # the draw was taken back and replaced


def test_quitting_keeps_the_record_so_far_in_the_record_file(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    record = tmp_path / "kept.json"
    result = CliRunner().invoke(cli, ["play", "--seats", "human,heuristic", "--seed", "2",
                                      "--record", str(record)], input="2\nquit\n")
    assert result.exit_code == 0, result.output
    assert "the game so far" in result.output and str(record) in result.output
    assert len(load_record(str(record)).events) >= 2
    assert [p.name for p in tmp_path.iterdir()] == ["kept.json"]


def test_quitting_without_a_record_file_writes_nothing_to_the_current_directory(tmp_path, monkeypatch) -> None:
    """A quit used to write refuge-play.json wherever the command ran (one was committed at the root)."""
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["play", "--seats", "human,heuristic", "--seed", "2"],
                                input="2\nquit\n")
    assert result.exit_code == 0, result.output
    assert "nothing written (give --record FILE to keep a game)" in result.output
    assert list(tmp_path.iterdir()) == []


def test_a_turn_summary_says_what_the_steps_are_now() -> None:
    """"-1 Step (1)" read as a loss of one Step of one; the summary now says "-1 Step (now 1)"."""
    result = CliRunner().invoke(cli, ["play", "--seats", "human,heuristic", "--seed", "2"],
                                input="2\n" * 12 + "quit\n")
    assert result.exit_code == 0, result.output
    changes = re.findall(r"[+-]\d+ (?:Steps?|VP) \([^)]*\)", result.output)
    assert changes and all(re.fullmatch(r"[+-]\d+ (?:Steps?|VP) \(now \d+\)", c) for c in changes)


def test_the_board_names_every_seat(tmp_path) -> None:
    """The board said P0/P1/P2 although the seats have labels (Ann and the bots' specs)."""
    result, _ = _play(tmp_path, "quit\n")
    assert result.exit_code == 0, result.output
    assert re.search(r"^P0 Ann: \d+ VP", result.output, flags=re.MULTILINE)
    assert re.search(r"^P1 heuristic: \d+ VP", result.output, flags=re.MULTILINE)
