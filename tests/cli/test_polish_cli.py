"""Command-line polish: `refuge examples`, help examples on their own lines, the heartbeat off a
terminal, plural Steps, and shared wins in `selfplay`."""

from __future__ import annotations

import io

from click.testing import CliRunner

from advisor.cli import cli
from advisor.cli.progress import Heartbeat
from positions import Position
from positions.examples import example_names
from positions.render import effect_text, plural, render
from positions.kernel.tiles import KIND_BY_NAME


def test_examples_lists_every_example_with_its_story() -> None:
    result = CliRunner().invoke(cli, ["examples"])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert [line.split()[0] for line in lines] == example_names()
    assert all(len(line.split()) > 3 for line in lines)


def test_position_help_keeps_its_examples_on_separate_lines() -> None:
    output = CliRunner().invoke(cli, ["position", "--help"]).output
    assert "\n    refuge position game.json --at 57 -o before-buy.json\n" in output
    assert "\n    refuge position game.json --walk 2 --turn 3 --player 1\n" in output


def test_heartbeat_reports_done_rate_and_eta() -> None:
    now = [0.0]
    stream = io.StringIO()
    beat = Heartbeat(range(4), label="selfplay", interval=10.0, stream=stream, clock=lambda: now[0])
    for _ in beat:
        now[0] += 5.0
    assert stream.getvalue().splitlines() == ["selfplay: 2/4 done, 0.20/s, ETA 10 s",
                                              "selfplay: 4/4 done, 0.20/s, ETA 0 s"]


def test_heartbeat_reports_the_end_when_it_falls_between_beats() -> None:
    """3 items at 5 s each: a line at 2/3 (10 s), and the end, 3/3, though only 5 s later (it
    stopped at n-1 before)."""
    now = [0.0]
    stream = io.StringIO()
    beat = Heartbeat(range(3), label="selfplay", interval=10.0, stream=stream, clock=lambda: now[0])
    for _ in beat:
        now[0] += 5.0
    assert stream.getvalue().splitlines() == ["selfplay: 2/3 done, 0.20/s, ETA 5 s",
                                              "selfplay: 3/3 done, 0.20/s, ETA 0 s"]


def test_one_step_is_singular() -> None:
    pos = Position.new_game(2, "meadows")
    pos.steps[0] = 1
    assert "P0: 0 VP, 1 Step, walking" in render(pos)
    assert plural(3, "Step per Sun") == "3 Steps per Sun" and plural(2, "VP") == "2 VP"


def test_tile_effects_in_a_few_words() -> None:
    assert effect_text(KIND_BY_NAME["compass"]) == "1 more play or +3 Steps"
    assert effect_text(KIND_BY_NAME["toasted_marshmallows"]) == "pay 2 VP, +7 Steps (played first)"
    assert effect_text(KIND_BY_NAME["fox"]) == "paw 4"


def test_selfplay_counts_shared_wins_apart(tmp_path) -> None:
    result = CliRunner().invoke(cli, ["selfplay", "--agents", "random,random", "--games", "2",
                                      "--seed", "1", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "shares the win" in result.output.splitlines()[0]
    assert "counts 1/k for each of k winners" in result.output
