"""The walks of stored games (issue 27): each seat's victory points walk by walk and whether the
Storm caught it; lab/scripts/walk_outcomes.py prints them by an agent's result."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest

from lab.decisions import stored_replays
from advisor.arena.match import ArenaSettings, run_arena
from advisor.arena.store import ArenaStore, StoreError
from lab.walks import format_walk_lines, game_walks, result_of, same_seat_lines, walk_lines
from positions import ROUTES
from positions.kernel import phases
from positions.kernel.actions import DRAW, RETURN, Action
from positions.kernel.position import Position
from positions.record import GameRecord, replay

SCRIPT = Path(__file__).resolve().parents[2] / "lab" / "scripts" / "walk_outcomes.py"


def _play(seed: int, choose: Callable[[Position], Action]) -> GameRecord:
    """A 2-player meadows game: chance drawn from `seed`, every decision by `choose`."""
    route = ROUTES["meadows"]
    pos = Position.new_game(2, route)
    rng = random.Random(seed)
    events = []
    while not pos.is_terminal():
        action = pos.sample_chance(rng) if pos.current_player() == phases.CHANCE_PLAYER else choose(pos)
        events.append(action)
        pos.apply(action)
    return GameRecord(2, route, events=tuple(events))


def _returner_and_walker(pos: Position) -> Action:
    """Seat 0 returns at every chance it gets; seat 1 never returns (it draws, else the first legal
    action but return), so only the Storm ends its walks."""
    legal = pos.legal_actions()
    if pos.current_player() == 0:
        return RETURN if RETURN in legal else legal[0]
    return DRAW if DRAW in legal else next(a for a in legal if a != RETURN)


def _return_at_turn(turn: int) -> Callable[[Position], Action]:
    """Both seats draw until turn `turn` of a walk, then both return in the same turn."""
    def choose(pos: Position) -> Action:
        legal = pos.legal_actions()
        if RETURN in legal:
            return RETURN if pos.turn >= turn else DRAW
        return legal[0]
    return choose


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_storm_catches_whoever_is_still_walking_and_not_who_returned(seed: int) -> None:
    """Rulebook, "Storm Warning": "If you haven't already returned to your refuge, i.e., if you're
    still in the game, you must rush back" (C16); "A Walk can end in one of two ways: either
    everyone returns to safety by using their refuge token or the Storm hits"."""
    played = replay(_play(seed, _returner_and_walker))
    returner, walker = game_walks(played)
    assert returner.caught == (False,) * 5
    assert walker.caught == (True,) * 5  # a walker who never returns is caught in every walk


def test_a_seats_walks_add_up_to_its_final_score(arena_db) -> None:
    """Victory points never fall below 0 (rulebook: "If you are at 0 on the Score Track, you pay
    nothing"), so a walk's gain is its end minus its start and the gains add up to the final score."""
    games = list(stored_replays(arena_db))
    assert len(games) == 6
    for _, _, played in games:
        for seat, walks in enumerate(game_walks(played)):
            assert len(walks.points) == len(walks.caught) == 5
            assert sum(walks.points) == walks.final == played.final.vp[seat]


@pytest.mark.parametrize("seed", range(4))
def test_a_walk_everyone_leaves_catches_no_one(seed: int) -> None:
    """Rulebook, "End of the Walk": "either everyone returns to safety by using their refuge token
    or the Storm hits": both seats return at the sixth turn of a walk, so a walk catches them
    exactly when the Storm hit in its first five turns (the last decider's own return included).
    Over these seeds both kinds of walk occur in every game."""
    played = replay(_play(seed, _return_at_turn(5)))
    last_turn: dict[int, int] = {}
    for step in played.steps:
        last_turn[step.position.walk] = step.position.turn
    expected = tuple(last_turn[w] < 5 for w in range(5))
    assert 0 < sum(expected) < 5
    for walks in game_walks(played):
        assert walks.caught == expected


def test_results_are_read_from_the_seats_share_of_the_win() -> None:
    assert [result_of((1.0, 0.0), 0), result_of((1.0, 0.0), 1), result_of((0.5, 0.5), 0)] == \
        ["won", "lost", "shared"]


def test_lines_sum_an_agents_games_by_its_result(arena_db) -> None:
    store = ArenaStore(arena_db)
    games = list(store.games())
    store.close()
    lines = walk_lines(arena_db, "h")
    by_key = {(line.result, line.who): line for line in lines}
    for result in {result_of(g.returns, [s[0] for s in g.seats].index("h")) for g in games}:
        mine = [g for g in games if result_of(g.returns, [s[0] for s in g.seats].index("h")) == result]
        assert by_key[(result, "h")].seats == by_key[(result, "g")].seats == len(mine)
        finals = [g.scores[[s[0] for s in g.seats].index("h")] for g in mine]
        assert by_key[(result, "h")].final == pytest.approx(sum(finals) / len(finals))
    assert [line.result for line in lines] == sorted((line.result for line in lines),
                                                      key=("won", "shared", "lost").index)
    table = format_walk_lines(lines)
    assert "VP 5" in table and "caught 5" in table
    assert {row.split()[1] for row in table.splitlines()[2:]} == {line.result for line in lines}


def test_the_same_seat_line_is_the_opponent_in_that_seat_of_the_deals_other_game(arena_db) -> None:
    """Both games of a deal draw each seat's tiles and the weather from the same streams, so beside
    the agent's walks stand those of the opponent who sat in its seat in the other game."""
    games = [(game, game_walks(played)) for _, game, played in stored_replays(arena_db)]
    expected: dict[tuple[str, str], list[float]] = {}
    for game, walks in games:
        seat = [s[0] for s in game.seats].index("h")
        other = next(w for g, w in games if (g.table, g.deal) == (game.table, game.deal) and g is not game)
        result = result_of(game.returns, seat)
        expected.setdefault((result, "h"), []).append(walks[seat].points[0])
        expected.setdefault((result, "g, same seat"), []).append(other[seat].points[0])
    lines = same_seat_lines(arena_db, "h")
    assert {(line.result, line.who) for line in lines} == set(expected)
    for line in lines:
        firsts = expected[(line.result, line.who)]
        assert line.seats == len(firsts) and line.points[0] == pytest.approx(sum(firsts) / len(firsts))
    assert sum(line.seats for line in lines if line.who == "h") == 6  # every game of the 3 deals


def test_an_agent_in_two_runs_pairs_each_runs_deals_apart(tmp_path) -> None:
    """Two runs number their deals alike; a deal is a run's, so none is paired across runs."""
    db = str(tmp_path / "two.sqlite")
    run_arena(ArenaSettings([("h", "heuristic"), ("g", "greedy")], games=4, seed=5, db=db))
    run_arena(ArenaSettings([("h", "heuristic"), ("c", "cautious")], games=4, seed=6, db=db))
    lines = same_seat_lines(db, "h")
    assert sum(line.seats for line in lines if line.who == "h") == 8
    assert {line.who for line in lines} == {"h", "g, same seat", "c, same seat"}


def test_an_agent_that_never_played_is_one_error(arena_db, tmp_path) -> None:
    with pytest.raises(StoreError, match="no stored game of 'x'"):
        walk_lines(arena_db, "x")
    with pytest.raises(StoreError, match="no such arena database"):
        walk_lines(str(tmp_path / "none.sqlite"), "h")


def test_the_script_prints_the_table_and_a_bad_agent_in_one_line(arena_db) -> None:
    ok = subprocess.run([sys.executable, str(SCRIPT), "--db", arena_db, "--agent", "g"],
                        capture_output=True, text=True, check=False)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.splitlines()[0].split()[:3] == ["result", "seats", "of"]
    bad = subprocess.run([sys.executable, str(SCRIPT), "--db", arena_db, "--agent", "nobody"],
                         capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and bad.stderr.strip().count("\n") == 0 and "nobody" in bad.stderr
    paired = subprocess.run([sys.executable, str(SCRIPT), "--db", arena_db, "--agent", "h", "--same-seat"],
                            capture_output=True, text=True, check=False)
    assert paired.returncode == 0 and "g, same seat" in paired.stdout
