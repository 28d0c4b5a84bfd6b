"""The advisor commands `best-move`, `solve`, `selfplay` and `play`, through click's CliRunner."""

from __future__ import annotations

import json
import os
import re

import subprocess
import sys

import click
from click.testing import CliRunner

from advisor.cli import cli
from advisor.cli.main import LAZY_COMMANDS
from advisor.cli.files import load_position_arg
from positions.record import load_record, replay


def _run(*args: str, input: str | None = None):
    return CliRunner().invoke(cli, list(args), input=input)


def _without_timing(document: dict) -> dict:
    return {k: v for k, v in document.items() if k != "seconds"}


# --- best-move ---------------------------------------------------------------------------------------

def test_best_move_json_lists_every_option_with_the_documented_fields() -> None:
    result = _run("best-move", "storm-one-away", "--iterations", "300", "--seed", "4", "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    legal = [str(a) for a in load_position_arg("storm-one-away").legal_actions()]
    assert sorted(o["action"] for o in doc["options"]) == sorted(legal)
    assert sum(o["visits"] for o in doc["options"]) == doc["iterations"] == 300
    for option in doc["options"]:
        low, high = option["ci95"]
        assert 0 <= low <= option["win_probability"] <= high <= 1
        assert set(option) == {"action", "win_probability", "ci95", "expected_score", "visits",
                               "exact", "share"}
    assert doc["best"] == doc["options"][0]["action"]
    assert doc["seed"] == 4 and doc["facts"]["storms_on_track"] + 1 == doc["facts"]["threshold"]


def test_best_move_json_gives_every_players_chances_summing_to_one_and_a_line() -> None:
    """One search gives every player's win share (C18: they sum to 1) and expected score."""
    result = _run("best-move", "thinning-cave-3p", "--iterations", "400", "--seed", "2", "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert [p["player"] for p in doc["players"]] == [0, 1, 2]
    assert abs(sum(p["win_probability"] for p in doc["players"]) - 1) < 1e-5
    mine = doc["players"][doc["player"]]
    best = next(o for o in doc["options"] if o["action"] == doc["best"])
    assert mine["win_probability"] == best["win_probability"]
    assert mine["expected_score"] == best["expected_score"]
    assert doc["line"][0] == doc["best"] and len(doc["line"]) >= 1
    assert isinstance(doc["within_noise_of_second"], bool)


def test_best_move_is_reproducible_for_a_seed() -> None:
    first = _run("best-move", "which-tile", "--iterations", "200", "--seed", "9", "--json")
    second = _run("best-move", "which-tile", "--iterations", "200", "--seed", "9", "--json")
    assert _without_timing(json.loads(first.stdout)) == _without_timing(json.loads(second.stdout))


def test_best_move_text_has_table_recommendation_and_return_facts() -> None:
    result = _run("best-move", "storm-one-away", "--iterations", "200")
    assert result.exit_code == 0, result.output
    assert "Recommendation:" in result.output and "visits" in result.output
    assert "Chance the Storm hits before your next return-or-draw decision" in result.output
    assert "before the end of the walk" in result.output
    assert "Animal points at stake" in result.output and "the tile you would play" in result.output
    assert "Line: " in result.output and "noise (95%)" in result.output


def test_best_move_rejects_both_budgets_as_usage_error() -> None:
    result = _run("best-move", "opening-2p", "--iterations", "10", "--seconds", "1")
    assert result.exit_code == 2
    assert "not both" in result.output


def test_best_move_unknown_position_is_one_line_and_exit_1() -> None:
    result = _run("best-move", "no-such-example")
    assert result.exit_code == 1
    assert result.output.strip().count("\n") == 0 and "no such file or example" in result.output


def test_best_move_on_a_finished_game_says_there_is_no_decision(tmp_path) -> None:
    out = tmp_path / "games"
    assert _run("selfplay", "--agents", "random,random", "--games", "1", "--out", str(out)).exit_code == 0
    result = _run("best-move", str(out / "game-00001.json"))
    assert result.exit_code == 1 and "no decision" in result.output


# --- solve -------------------------------------------------------------------------------------------

def test_solve_gives_exact_values_where_one_player_is_left() -> None:
    result = _run("solve", "endgame-solo", "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    best = max(doc["options"], key=lambda o: (o["win_probability"], o["expected_score"]))
    assert doc["best"] == best["action"] and doc["nodes"] > 0


def test_solve_says_draw_where_both_options_win_for_sure() -> None:
    """Issue 12: both options win exactly 100%; the higher expected score (draw, 19.1) is best."""
    data = os.path.join(os.path.dirname(__file__), "..", "data", "equal-win-shares.json")
    result = _run("solve", data)
    assert result.exit_code == 0, result.output
    rows = {line.split()[0]: line.split()[1:] for line in result.output.splitlines()
            if line.startswith(("draw ", "return "))}
    assert rows == {"draw": ["100.00%", "19.10"], "return": ["100.00%", "17.00"]}
    assert "Best: draw" in result.output
    doc = json.loads(_run("solve", data, "--json").stdout)
    assert [(o["action"], o["win_exact"], o["score_exact"]) for o in doc["options"]] == [
        ("draw", "1", "191/10"), ("return", "1", "17")]
    assert sum(p["win_probability"] for p in doc["options"][0]["players"]) == 1


def test_solve_refuses_a_walk_before_the_last_for_that_reason_at_once() -> None:
    """storm-one-away (walk 3 of 5, two walkers) was refused as "player 1 also decides ... or a
    two-player last walk with both walking", which it is: the real reason is the walk."""
    for example in ("storm-one-away", "opening-2p"):
        result = _run("solve", example)
        assert result.exit_code == 1 and "Traceback" not in result.output
        assert "is not the last walk" in result.output and "also decides" not in result.output


def test_solve_refuses_beyond_its_node_budget_naming_the_size_and_the_option() -> None:
    result = _run("solve", "endgame-solo", "--max-nodes", "10")
    assert result.exit_code == 1 and "max_nodes=10" in result.output
    assert "--max-nodes N above 10 lets the solver go further" in result.output
    assert len([line for line in result.output.splitlines() if line]) == 1


def test_solve_names_the_players_where_the_position_names_them() -> None:
    """It said P0/P1 where the position names Ann and Ben."""
    result = _run("solve", "endgame-solo")
    assert result.exit_code == 0, result.output
    assert "Ann (player 0) decides" in result.output
    assert re.search(r"After it, every player: Ann \(P0\) [\d.]+% \([\d.]+\), Ben \(P1\) ", result.output)


# --- selfplay ----------------------------------------------------------------------------------------

def test_selfplay_writes_replayable_records_and_resumes(tmp_path) -> None:
    out = tmp_path / "run"
    result = _run("selfplay", "--agents", "heuristic,random", "--games", "3", "--seed", "5",
                  "--out", str(out))
    assert result.exit_code == 0, result.output
    files = sorted(os.listdir(out))
    assert files == ["game-00001.json", "game-00002.json", "game-00003.json"]
    for name in files:
        record = load_record(str(out / name))
        assert replay(record).final.is_terminal()
    names = [load_record(str(out / f)).names for f in files]
    assert names[0] == ("heuristic", "random") and names[1] == ("random", "heuristic")
    stamps = {f: os.stat(out / f).st_mtime_ns for f in files}
    again = _run("selfplay", "--agents", "heuristic,random", "--games", "4", "--seed", "5",
                 "--out", str(out))
    assert again.exit_code == 0
    assert {f: os.stat(out / f).st_mtime_ns for f in files} == stamps
    assert len(os.listdir(out)) == 4
    assert again.output.split("records in")[0].strip() != ""


def test_selfplay_is_deterministic_for_a_seed(tmp_path) -> None:
    for name in ("a", "b"):
        assert _run("selfplay", "--agents", "cautious,greedy", "--games", "2", "--seed", "8",
                    "--out", str(tmp_path / name)).exit_code == 0
    for game in ("game-00001.json", "game-00002.json"):
        assert (tmp_path / "a" / game).read_text() == (tmp_path / "b" / game).read_text()


def test_selfplay_bad_agent_spec_is_one_line_error(tmp_path) -> None:
    result = _run("selfplay", "--agents", "heuristic,wizard", "--out", str(tmp_path))
    assert result.exit_code == 1 and "unknown agent 'wizard'" in result.output
    result = _run("selfplay", "--agents", "heuristic", "--out", str(tmp_path))
    assert result.exit_code == 2


# --- play --------------------------------------------------------------------------------------------

def test_play_records_the_game_and_hides_earlier_seats_choices(tmp_path) -> None:
    record = tmp_path / "game.json"
    result = _run("play", "--seats", "heuristic,human", "--seed", "3", "--record", str(record),
                  input="hint\nbogus\n2\nquit\n")
    assert result.exit_code == 0, result.output  # quitting writes the record and ends cleanly
    before_first_prompt = result.output.split("number, words")[0]
    assert "heuristic: draw" not in before_first_prompt, "seat 0's hidden choice was shown to seat 1"
    assert "revealed: heuristic: draw; you: draw" in result.output
    assert "hint:" in result.output and "cannot read 'bogus' as an event" in result.output
    saved = load_record(str(record))
    assert [str(e) for e in saved.events[:2]] == ["draw", "draw"]
    replay(saved)


def test_play_between_bots_runs_to_the_end(tmp_path) -> None:
    record = tmp_path / "bots.json"
    result = _run("play", "--seats", "random,cautious", "--seed", "2", "--record", str(record))
    assert result.exit_code == 0, result.output
    assert "Final scores" in result.output
    assert replay(load_record(str(record))).final.is_terminal()


def test_best_move_exports_the_search_tree_as_graphml(tmp_path) -> None:
    import networkx as nx

    path = tmp_path / "tree.graphml"
    result = _run("best-move", "storm-one-away", "--iterations", "200", "--tree", str(path), "--json")
    assert result.exit_code == 0, result.output
    graph = nx.read_graphml(path)
    root = [n for n, data in graph.nodes(data=True) if data["root"]]
    assert len(root) == 1 and graph.nodes[root[0]]["visits"] == 200
    options = {o["action"]: o["visits"] for o in json.loads(result.stdout)["options"]}
    walked = {}
    for _, _, data in graph.out_edges(root[0], data=True):
        walked[data["action"]] = walked.get(data["action"], 0) + data["walked"]
        assert data["visits"] == options[data["action"]]
    assert all(walked[a] <= options[a] for a in walked) and set(walked) <= set(options)


def test_every_command_loads_under_its_own_name() -> None:
    context = click.Context(cli)
    for name in LAZY_COMMANDS:
        command = cli.get_command(context, name)
        assert isinstance(command, click.Command) and command.name == name, name
    assert cli.get_command(context, "no-such-command") is None


def test_a_command_imports_only_what_it_needs() -> None:
    """`refuge show` starts without the search's analysis, the arena's statistics or the web app."""
    code = ("import sys; from advisor.cli.main import main; sys.argv = ['refuge', 'show', 'opening-2p']\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('networkx', 'numpy', 'advisor.web', 'advisor.arena.match') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "[]", result.stdout


def test_every_command_has_help_with_an_example() -> None:
    names = cli.list_commands(click.Context(cli))
    assert {"annotate", "best-move", "serve", "insights", "catalogue"} <= set(names)
    for name in names:
        result = _run(name, "--help")
        assert result.exit_code == 0 and "Example" in result.output, name


def test_best_move_breaks_an_exact_tie_by_expected_score() -> None:
    """C18 win shares exactly equal (both 1): the higher expected score decides, and says so."""
    result = _run("best-move", "tests/data/equal-win-shares.json", "--iterations", "200")
    assert result.exit_code == 0, result.output
    assert "Recommendation: draw (win chance exactly equal to #2's; the higher expected score decides)" \
        in result.output
    assert "tied with #2" in result.output
