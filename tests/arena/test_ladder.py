"""`refuge ladder`: Bradley–Terry ratings of agent versions from stored games, per connected group."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from advisor.arena.match import ArenaSettings, run_arena
from advisor.arena.store import StoredGame
from advisor.cli import cli
from advisor.arena.ladder import LadderError, ladder, pairwise


def _game(first: tuple[str, str], second: tuple[str, str], first_wins: bool) -> StoredGame:
    seats = ((first[0], "spec", first[1]), (second[0], "spec", second[1]))
    returns = (1.0, 0.0) if first_wins else (0.0, 1.0)
    return StoredGame(1, 0, 0, 0, 0, seats, returns, (5, 3) if first_wins else (3, 5), None)


def _match(a: tuple[str, str], b: tuple[str, str], wins: int, losses: int) -> list[StoredGame]:
    return [_game(a, b, True)] * wins + [_game(a, b, False)] * losses


A, B, C = ("bot", "v1"), ("bot", "v2"), ("search", "v2")


def test_pairwise_results_use_versions_and_skip_same_version_seats() -> None:
    three = StoredGame(1, 0, 0, 0, 0, (("x", "", "r1"), ("x", "", "r1"), ("y", "", "")),
                       (0.0, 0.0, 1.0), (4, 6, 9), None)
    results, who = pairwise([three])
    assert results == [("x@r1", "y", 0.0), ("x@r1", "y", 0.0)]
    assert who == {"x@r1": ("x", "r1"), "y": ("y", "")}


def test_ratings_order_versions_and_anchor_at_zero() -> None:
    games = _match(B, A, 30, 10) + _match(C, B, 30, 10)
    rated = ladder(games, "bot@v1")
    assert [r.label for r in rated] == ["search@v2", "bot@v2", "bot@v1"]
    by_label = {r.label: r.rating for r in rated}
    assert by_label["bot@v1"].elo == pytest.approx(0.0)
    assert 100 < by_label["bot@v2"].elo < 250  # 75% is about +191 Elo, shrunk a little by the prior
    low, high = by_label["bot@v2"].ci95
    assert low < by_label["bot@v2"].elo < high
    assert by_label["search@v2"].elo > by_label["bot@v2"].elo
    assert {r.group for r in rated} == {1}


def test_a_name_with_one_version_anchors_and_ambiguous_or_unknown_ones_fail() -> None:
    games = _match(B, A, 3, 1) + _match(C, B, 3, 1)
    assert {r.anchor for r in ladder(games, "search")} == {"search@v2"}
    with pytest.raises(LadderError, match="names 2 versions: bot@v1, bot@v2"):
        ladder(games, "bot")
    with pytest.raises(LadderError, match="unknown anchor 'nobody'"):
        ladder(games, "nobody")
    with pytest.raises(LadderError, match="no games"):
        ladder([])


def test_groups_that_never_met_are_rated_separately() -> None:
    games = _match(A, B, 3, 2) + _match(("p", ""), ("q", ""), 2, 2) + _match(("q", ""), ("r", ""), 1, 1)
    rated = ladder(games, "q")
    groups = {r.label: (r.group, r.anchor) for r in rated}
    assert groups["p"] == (1, "q") and groups["r"] == (1, "q")
    assert groups["bot@v1"][0] == groups["bot@v2"][0] == 2
    assert next(r for r in rated if r.label == groups["bot@v1"][1]).rating.elo == pytest.approx(0.0)


def test_ladder_command_reads_the_arena_store_and_plots(tmp_path) -> None:
    db = str(tmp_path / "l.sqlite")
    run_arena(ArenaSettings([("h", "heuristic"), ("c", "cautious"), ("r", "random")], games=4, seed=6,
                            db=db))
    plot = tmp_path / "ladder.png"
    result = CliRunner().invoke(cli, ["ladder", "--db", db, "--anchor", "h", "--plot", str(plot)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split() == ["group", "agent", "version", "Elo", "95%", "CI", "games", "anchor"]
    assert any(line.split()[1] == "h" and line.rstrip().endswith("yes") for line in lines[2:5])
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_ladder_errors_are_one_line(tmp_path) -> None:
    missing = CliRunner().invoke(cli, ["ladder", "--db", str(tmp_path / "none.sqlite")])
    assert missing.exit_code == 1 and missing.output == f"error: {tmp_path / 'none.sqlite'}: no such arena database\n"
    db = str(tmp_path / "l.sqlite")
    run_arena(ArenaSettings([("h", "heuristic"), ("r", "random")], games=2, seed=6, db=db))
    unknown = CliRunner().invoke(cli, ["ladder", "--db", db, "--anchor", "zed"])
    assert unknown.exit_code == 1 and unknown.output.startswith("error: unknown anchor 'zed'")
    bad_plot = CliRunner().invoke(cli, ["ladder", "--db", db, "--plot", str(tmp_path / "no" / "p.png")])
    assert bad_plot.exit_code == 1 and "p.png: cannot write the file" in bad_plot.output
