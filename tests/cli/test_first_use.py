"""What a new user met in the terminal (issue 25): output paths checked before the work, the event
range checked against the record, did-you-mean for agents and routes, a closed pipe ends quietly,
and the turn summaries' words (buys of the kind just played, going home at the walk's end, "you")."""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from collections import Counter

import pytest
from click.testing import CliRunner

from advisor.cli import cli
from advisor.players.narration import Narrator
from positions import Position
from positions.kernel.actions import action_from_code
from positions.record import GameRecorder, replay
from positions.render import verb
from positions.kernel.tiles import TILES
from processes import REFUGE

BLUNDER_GAME = os.path.join(os.path.dirname(__file__), "..", "data", "blunder-game.json")


def _run(*args: str, input: str | None = None):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(cli, list(args), input=input)


def test_annotate_checks_the_chart_path_before_the_analysis() -> None:
    result = _run("annotate", BLUNDER_GAME, "--plot", "/nonexistent/x.png")
    assert result.exit_code == 1
    assert result.output.strip() == "error: /nonexistent/x.png: cannot write the file (no such folder " \
                                    "/nonexistent)"
    assert "annotating" not in result.output  # no progress bar: nothing was searched


def test_annotate_past_the_records_end_says_its_length() -> None:
    result = _run("annotate", BLUNDER_GAME, "--from-event", "500")
    assert result.exit_code == 1
    assert result.output.strip() == "error: --from-event 500: the record has 141 events (indexes 0-140)"
    assert _run("annotate", BLUNDER_GAME, "--from-event", "9", "--to-event", "3").exit_code == 1


def test_unknown_agents_and_routes_get_a_did_you_mean_before_the_game_starts() -> None:
    for args, hint in ((["--seats", "humn,heuristic"], "did you mean 'human'?"),
                       (["--seats", "human,heuristc"], "did you mean 'heuristic'?"),
                       (["--route", "meadow"], "did you mean 'meadows'?"),
                       (["--route", "forrest"], "did you mean 'forest'?")):
        result = _run("play", *args, input="quit\n")
        assert result.exit_code == 1, args
        assert hint in result.output
        assert "Seats:" not in result.output  # nothing printed before the error


def test_arena_agent_typos_get_a_did_you_mean_too() -> None:
    result = _run("selfplay", "--agents", "heuristc,greedy", "--games", "1", "--out", os.devnull)
    assert result.exit_code != 0
    assert "did you mean 'heuristic'?" in result.output


def test_a_closed_pipe_ends_the_command_quietly(tmp_path) -> None:
    events = _run("show", BLUNDER_GAME, "--events").output
    reader, writer = os.pipe()
    os.close(reader)  # `| head` that has already gone
    process = subprocess.run([*REFUGE, "track", str(tmp_path / "copy.json"), "--players", "2"],
                             input=events.encode(), stdout=writer, stderr=subprocess.PIPE, timeout=120,
                             env={**os.environ, "PYTHONPATH": os.getcwd()})
    os.close(writer)
    assert process.stderr.decode() == ""
    assert process.returncode != 0


def _random_game(seed: int, players: int = 3) -> GameRecorder:
    rng = random.Random(seed)
    recorder = GameRecorder.new(players, "meadows", [], seed)
    while not recorder.position.is_terminal():
        pos = recorder.position
        recorder.apply(pos.sample_chance(rng) if pos.is_chance() else rng.choice(pos.legal_actions()))
    return recorder


def _summaries(recorder: GameRecorder, labels: list[str]) -> list[tuple[Position, Position, list[str]]]:
    """(turn start, turn end, summary lines) for every turn of the game."""
    record = recorder.record()
    game = replay(record)
    narrator = Narrator(labels, record.start())
    turns = []
    for index, step in enumerate(game.steps):
        start = narrator.turn_start
        after = game.position_at(index + 1)
        lines = narrator.event(step.position, step.player, step.action, after, False)
        summary = [line for line in lines if line.startswith("   ")]
        if any(line.startswith("-- walk") for line in lines):
            turns.append((start, after, summary))
    return turns


def test_every_tile_that_left_the_market_is_told_as_a_buy() -> None:
    """Buying the kind just played (the bag then holds as many as before) is still a buy."""
    told_after_playing = 0
    for seed in range(6):
        for start, end, summary in _summaries(_random_game(seed), ["P0", "P1", "P2"]):
            sold = Counter({TILES[k].name: start.market[k] - end.market[k]
                            for k in range(len(end.market)) if start.market[k] > end.market[k]})
            told = Counter(m.group(1) for line in summary for m in re.finditer(r"buys (\w+) for", line))
            assert told == sold, summary
            told_after_playing += sum(bool(re.search(r"plays (\w+).*buys \1 for", line)) for line in summary)
    assert told_after_playing > 0  # the case the summary used to leave out happened


def test_the_last_walker_going_home_is_told_though_it_ends_the_walk() -> None:
    """Every player who chooses to return (C6) is told going home once, the last walker too,
    whose return ends the walk."""
    for seed in range(4):
        recorder = _random_game(seed, 2)
        told = sum(line.count("returns home") for _, _, summary in _summaries(recorder, ["P0", "P1"])
                   for line in summary)
        homecomings = [step for step in replay(recorder.record()).steps
                       if step.player >= 0 and str(action_from_code(step.action)) == "return"]
        assert told == len(homecomings)


def test_the_person_at_the_terminal_is_you_not_a_third_person() -> None:
    assert verb("you", "draws") == "draw"
    assert verb("you", "returns home") == "return home"
    assert verb("you (seat 2)", "has") == "have"
    assert verb("Ann", "draws") == "draws"
    lines = [line for _, _, summary in _summaries(_random_game(2), ["you", "Ben", "Cy"]) for line in summary]
    mine = [line for line in lines if line.startswith("   you:")]
    assert mine and not any(re.search(r"\b(plays|draws|buys|returns|discards|has)\b", line) for line in mine)
    assert not any(re.search(r"[+-]1 Steps\b", line) for line in lines)


TRACK_START = ("draw\ndraw\ndrawn sign butterfly\ndrawn sign squirrel\nplay butterfly\nplay squirrel\n"
               "buy compass\npass\nsun\nreturn\n1: draw\n")


def _track(tmp_path, lines: str, start: str = TRACK_START):  # type: ignore[no-untyped-def]
    """A tracked 2-player game, Ann and Ben, read from standard input (errors go to stderr)."""
    return CliRunner().invoke(cli, ["track", str(tmp_path / "table.json"), "--players", "2", "--names",
                                    "Ann,Ben", "--iterations", "30"], input=start + lines)


def test_track_advises_a_player_named_and_reveals_choices_by_name(tmp_path) -> None:
    result = _track(tmp_path, "discard none\n")
    assert result.exit_code == 0, result.output
    assert "revealed: Ann: return; Ben: draw" in result.output
    asked = _track(tmp_path / "..", "", start="draw\nadvise Ben\nadvise bem\n")  # Ben to decide
    assert "expected a number" not in asked.output
    assert "Ben (player 1) decides" in asked.output and "Recommendation:" in asked.output
    assert "did you mean 'Ben'?" in asked.output


def test_a_draw_typed_during_another_players_return_discard_says_what_comes_first(tmp_path) -> None:
    result = _track(tmp_path, "Ben: drawn sign storm\n")
    assert result.exit_code == 1
    assert ("1 (Ben)'s draw comes after the returning players' discards: the next event is 0 (Ann)'s "
            "return-discard (discard none | discard path butterfly)") in result.output
    assert "has nothing to decide" not in result.output


def test_the_verdict_shows_the_difference_interval_it_rests_on() -> None:
    """The table's two intervals may overlap while the verdict says "clear": the verdict's own
    interval (of the difference) is printed, and it holds 0 exactly when the verdict says noise."""
    result = _run("best-move", "storm-one-away", "--iterations", "600")
    assert result.exit_code == 0, result.output
    reason = next(line for line in result.output.splitlines() if line.startswith("Recommendation:"))
    found = re.search(r"([+-]\d+\.\d) pp over #2, 95% interval ([+-]\d+\.\d) to ([+-]\d+\.\d) pp", reason)
    assert found, reason
    low, high = float(found.group(2)), float(found.group(3))
    assert ("within noise" in reason) == (low <= 0 <= high)
    header = next(line for line in result.output.splitlines() if line.lstrip().startswith("#"))
    assert header.split()[-1] == "note"  # the notes column has a header


def test_interval_of_a_difference_matches_within_noise() -> None:
    from advisor.analysis.intervals import difference_interval
    from search.request import ActionStats, within_noise

    for win, low, high in ((0.778, 0.769, 0.791), (0.577, 0.474, 0.874), (0.60, 0.55, 0.65)):
        first = ActionStats(0, 1000, 0.70, 0.68, 0.72, 50.0)
        second = ActionStats(1, 100, win, low, high, 48.0)
        _, lo, hi = difference_interval(first, second)
        assert within_noise(first, second) == (lo <= 0 <= hi)


def test_the_line_marks_the_next_walks_move_and_the_words_are_explained() -> None:
    from advisor.analysis.line import line_in_words
    from positions.kernel.actions import DRAW, RETURN

    discard = next(code for code in range(400) if str(action_from_code(code)) == "discard none")
    assert line_in_words([RETURN, discard, DRAW]) == "return → discard none → next walk: draw"
    assert line_in_words([RETURN, DRAW]) == "return → next walk: draw"
    assert line_in_words([DRAW]) == "draw"
    output = _run("best-move", "storm-one-away", "--iterations", "300").output
    assert "1 more Storm and it hits" in output
    assert "rule C18" in output and "tie for first shares the win" in output
    assert "rule C16: the Storm penalises" in output and "Penalty if you draw" in output


def test_an_annotation_label_matches_the_loss_as_printed() -> None:
    """Issue 25: "-15.0 (mistake)" was printed for a 0.1499 loss; the label is the printed number's."""
    from advisor.analysis.annotate import SCORE_THRESHOLDS, label_for

    assert f"{100 * 0.1499:.1f}" == "15.0" and label_for(0.1499, 0.01) == "blunder"
    assert f"{100 * 0.1494:.1f}" == "14.9" and label_for(0.1494, 0.01) == "mistake"
    assert label_for(9.96, 1.0, SCORE_THRESHOLDS, unit=1.0) == "blunder"  # printed 10.0 VP
    assert label_for(9.94, 1.0, SCORE_THRESHOLDS, unit=1.0) == "mistake"


def test_an_llr_short_of_a_bound_never_prints_as_the_bound() -> None:
    from advisor.arena.report import format_sprt
    from advisor.arena.sprt import SprtResult, SprtSettings

    settings = SprtSettings(0, 10, 0.05, 0.05, "normalized")
    short = SprtResult(settings, 2.9437, -2.9444, 2.9444, 40)
    line = format_sprt(short)
    assert short.decision == "continue" and "LLR 2.944 [-2.944, 2.944] continue" not in line
    assert "LLR 2.9437 [-2.9444, 2.9444] continue" in line
    assert "LLR 1.26 [-2.94, 2.94]" in format_sprt(SprtResult(settings, 1.2612, -2.9444, 2.9444, 40))


def test_validate_blames_the_players_not_a_box_the_file_does_not_have(tmp_path) -> None:
    import json

    from positions.examples import example_text

    data = json.loads(example_text("opening-2p"))
    assert "box" not in data
    data["players"][0]["bag"]["sign"] += 3  # 7 signs where the supply is 4 (C1)
    path = tmp_path / "too-many.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    result = _run("validate", str(path))
    assert result.exit_code == 1
    assert "box" not in result.output.split(":")[1]
    assert f"{path}: players[0]: 7 held by players" in result.output


def test_every_folder_of_the_code_is_a_configured_package_so_setuptools_has_nothing_to_warn() -> None:
    """`make demo` printed ~100 lines of "Package 'advisor.players.data' is absent from the
    `packages` configuration": every folder is now found, and every package-data key is one."""
    import tomllib

    from setuptools import find_namespace_packages

    root = os.path.join(os.path.dirname(__file__), "..", "..")
    with open(os.path.join(root, "pyproject.toml"), "rb") as handle:
        config = tomllib.load(handle)["tool"]["setuptools"]
    found = set(find_namespace_packages(root, include=config["packages"]["find"]["include"]))
    folders = {os.path.relpath(folder, root).replace(os.sep, ".")
               for top in ("positions", "search", "advisor")
               for folder, _, _ in os.walk(os.path.join(root, top)) if "__pycache__" not in folder}
    assert folders <= found
    assert set(config["package-data"]) <= found


UNKNOWN_BAGS = os.path.join(os.path.dirname(__file__), "..", "data", "unknown-bags-3p.json")
"""thinning-cave-3p with the bags of the two players not to act saved as ``"unknown"``."""


def test_an_unknown_bag_is_shown_unknown_not_as_the_guess_the_search_deals_afresh() -> None:
    shown = _run("show", UNKNOWN_BAGS).output
    assert "unknown (9 tiles)" in shown and "unknown (7 tiles)" in shown
    assert "7: 1 storm, 1 signpost" in shown  # the acting player's own bag is known
    advised = _run("best-move", UNKNOWN_BAGS, "--iterations", "30").output
    assert "P0 Ann: 18 VP" in advised and "bag unknown (9 tiles)" in advised


def test_one_deal_gets_no_elo_interval_and_both_elo_commands_say_why_they_differ(tmp_path) -> None:
    db = str(tmp_path / "arena.sqlite")
    played = _run("arena", "--agent", "a=heuristic", "--agent", "b=greedy", "--games", "2", "--db", db,
                  "--workers", "1")
    assert played.exit_code == 0, played.output
    row = next(line for line in played.output.splitlines() if line.startswith("a vs b"))
    assert "too few deals (1 < 5)" in row and "[" not in row
    assert "`refuge ladder` fits every game with a weak prior" in played.output
    rated = _run("ladder", "--db", db)
    assert "a little nearer 0 than `refuge arena`'s Elo" in rated.output
    assert _run("ladder", "--db", db, "--plot", "/nonexistent/l.png").output.startswith(
        "error: /nonexistent/l.png: cannot write the file")


def test_the_review_pages_colours_are_the_cli_charts() -> None:
    from advisor.cli.charts import PLAYER_COLOURS

    common = os.path.join(os.path.dirname(__file__), "..", "..", "advisor", "web", "static", "common.js")
    with open(common, encoding="utf-8") as handle:
        found = re.search(r"export const PLAYER_COLOURS = \[([^\]]*)\]", handle.read())
    assert found and tuple(c.strip().strip('"') for c in found.group(1).split(",")) == PLAYER_COLOURS


@pytest.mark.parametrize("module", ["advisor", "advisor.cli.main"])
def test_python_dash_m_runs_the_command_line_too(module: str) -> None:
    """`python -m advisor` (the `refuge` entry point) and `python -m advisor.cli.main` are the
    `refuge` command, not a silent no-op."""
    process = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True,
                             text=True, timeout=120)
    assert process.returncode == 0
    assert "Usage:" in process.stdout and "best-move" in process.stdout


CTRL_C_WHILE_THE_COMMANDS_LOAD = """
import os, signal, sys

class SigintOnImport:
    def find_spec(self, name, path=None, target=None):
        if name == TARGET:  # as this module loads
            os.kill(os.getpid(), signal.SIGINT)
        return None

TARGET = sys.argv.pop()  # the module named last on the command line
sys.meta_path.insert(0, SigintOnImport())
from advisor.__main__ import main
main()
"""


@pytest.mark.parametrize("argv", [["refuge", "--help", "advisor.cli.main"],
                                  ["refuge", "--help", "advisor.cli.arena"],
                                  ["refuge", "arena", "--help", "advisor.arena.match"]])
def test_ctrl_c_while_the_commands_load_prints_one_line_not_a_traceback(argv: list[str]) -> None:
    """A real SIGINT half way through loading the command line or a command's module (each takes up to
    half a second): one line and exit 130, as a Ctrl-C once a command runs; the old entry point
    printed Python's traceback."""
    program = f"import sys\nsys.argv = {argv!r}\n" + CTRL_C_WHILE_THE_COMMANDS_LOAD
    process = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
    assert (process.returncode, process.stderr, process.stdout) == (130, "aborted\n", "")


def test_the_installed_refuge_command_is_the_guarded_entry_point() -> None:
    """pyproject's console script is `advisor.__main__:main`, the one the test above interrupts."""
    with open(os.path.join(os.path.dirname(__file__), "..", "..", "pyproject.toml"), encoding="utf-8") as handle:
        assert re.search(r'^refuge = "advisor\.__main__:main"$', handle.read(), re.MULTILINE)
