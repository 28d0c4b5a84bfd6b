"""Chance widening (double progressive widening at chance events inside the tree, issue 27)."""

from __future__ import annotations

import math
import random
import subprocess
import sys
from pathlib import Path

import pytest

from lab.tree_depth import depth_table, search_depth
from advisor.players.agents import SearchAgent, make_agent
from advisor.players.bots import DEFAULT_ROLLOUT
from advisor.players.specs import AgentSpecError
from search.errors import SearchConfigError
from search.ismcts import Tree, is_chance_key, search
from search.request import SearchRequest
from test_search import midgame
from toy_games import FACE_BASE, ROLL, DiceGame


def grown(game: object, request: SearchRequest, iterations: int) -> Tree:
    """A tree grown for `iterations` from `game` (a decision)."""
    tree = Tree(game, request, request.seed)  # type: ignore[arg-type]
    for _ in range(iterations):
        tree.iterate()
    return tree


@pytest.mark.parametrize("value", [-0.5, float("nan"), float("inf"), True, "1"])
def test_bad_chance_widening_is_refused_when_built(value: object) -> None:
    with pytest.raises(SearchConfigError, match="chance_widening"):
        SearchRequest(iterations=10, chance_widening=value)  # type: ignore[arg-type]


def test_off_by_default_and_seeded_when_on() -> None:
    """0 is the plain search to the last statistic; on, the same seed gives the same answer."""
    pos = midgame()
    plain = SearchRequest(iterations=300, seed=5, rollout=DEFAULT_ROLLOUT)
    off = SearchRequest(iterations=300, seed=5, rollout=DEFAULT_ROLLOUT, chance_widening=0.0)
    assert search(pos, plain).actions == search(pos, off).actions
    on = SearchRequest(iterations=300, seed=5, rollout=DEFAULT_ROLLOUT, chance_widening=0.5)
    assert search(pos, on).actions == search(pos, on).actions


@pytest.mark.parametrize("widening", [0.2, 1.0])
def test_a_chance_event_keeps_few_outcomes(widening: float) -> None:
    """After n draws an event holds fewer than widening * sqrt(n) + 1 distinct outcomes, and every
    outcome it holds is one the event can have."""
    pos = midgame()
    tree = grown(pos, SearchRequest(iterations=1, seed=3, rollout=DEFAULT_ROLLOUT, chance_widening=widening),
                 600)
    events = [node for key, node in tree.nodes.items() if is_chance_key(key)]
    assert events, "the walks met no chance event"
    for node in events:
        drawn = sum(stats.visits for stats in node.values())
        assert 1 <= len(node) < widening * math.sqrt(drawn) + 1
    assert any(sum(stats.visits for stats in node.values()) > len(node) for node in events), \
        "no outcome was ever drawn again"


def test_outcomes_drawn_again_keep_their_true_odds() -> None:
    """Drawn again with their probabilities (not in proportion to past draws, a Pólya urn whose
    shares wander), a fair die's faces each come about a third of the time."""
    tree = grown(DiceGame(), SearchRequest(iterations=1, seed=11, chance_widening=0.1), 30_000)
    first_roll = tree.nodes[(-1, (0, True, False))]  # the first roll: total 0, rolling
    drawn = {stats_action: stats.visits for stats_action, stats in first_roll.items()}
    assert set(drawn) == {FACE_BASE + 1, FACE_BASE + 2, FACE_BASE + 3}
    total = sum(drawn.values())
    for face, count in drawn.items():
        assert abs(count / total - 1 / 3) < 0.03, (face, count, total)


def test_the_search_still_finds_the_dice_games_value() -> None:
    """Rolling from 0 is worth 5/9 (tests/toy_games.py); chance widening changes how the tree is
    grown, not what it converges to."""
    result = search(DiceGame(), SearchRequest(iterations=20_000, seed=2, chance_widening=0.3))
    assert result.chosen == ROLL
    roll = next(stats for stats in result.actions if stats.action == ROLL)
    assert roll.wins[0] == pytest.approx(5 / 9, abs=0.02)


def test_the_tree_grows_deeper() -> None:
    """At the same iterations an iteration walks more decisions inside the tree, and more of the
    searcher's own later choices are the tree's, not the rollout policy's."""
    pos = midgame()
    plain = search_depth(pos, "ismcts:iterations=600", 600, seed=4)
    deeper = search_depth(pos, "ismcts:iterations=600,chance_widening=0.3", 600, seed=4)
    assert deeper.mean > plain.mean + 0.3
    assert deeper.own > plain.own
    assert deeper.deepest >= plain.deepest
    rows = depth_table([pos], [("plain", "ismcts"), ("chance", "ismcts:chance_widening=0.3")], [200], seed=4)
    assert [(row.family, row.budget, row.views) for row in rows] == [("plain", 200, 1), ("chance", 200, 1)]
    assert rows[1].mean > rows[0].mean


def test_a_kept_tree_shows_information_sets_only() -> None:
    """The tree handed to the analysis (keep_tree) holds players' nodes, never chance records."""
    result = search(midgame(), SearchRequest(iterations=200, seed=1, rollout=DEFAULT_ROLLOUT,
                                             chance_widening=0.5, keep_tree=True))
    assert result.tree is not None and result.tree.nodes
    assert not any(is_chance_key(key) for key in result.tree.nodes)


def test_agent_spec_sets_it_and_refuses_a_bad_value() -> None:
    agent = make_agent("ismcts:iterations=50,chance_widening=0.5")
    assert isinstance(agent, SearchAgent) and agent.request(1).chance_widening == 0.5
    assert make_agent("ismcts:iterations=50").request(1).chance_widening == 0.0  # type: ignore[attr-defined]
    with pytest.raises(AgentSpecError, match="chance_widening must be a number >= 0"):
        make_agent("ismcts:iterations=50,chance_widening=-1")
    agent.choose(midgame(), random.Random(1))  # plays, with tree reuse, without error


SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "tree_depth.py"


def test_the_depth_script_prints_a_row_per_family_and_budget_and_refuses_bad_input() -> None:
    result = subprocess.run([sys.executable, str(SCRIPT), "--budgets", "60,120", "--games", "1", "--per-game", "1",
                             "--play", "greedy", "--family", "plain=ismcts", "--family",
                             "deep=ismcts:chance_widening=0.3"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    rows = [line.split() for line in result.stdout.splitlines()[2:]]
    assert [(row[0], row[1], row[2]) for row in rows] == [
        ("plain", "60", "1"), ("plain", "120", "1"), ("deep", "60", "1"), ("deep", "120", "1")]
    for argv, message in ((["--budgets", "many"], "--budgets"), (["--budgets", "0"], "--budgets"),
                          (["--family", "x=ismcts:chance_widening=-2"], "chance_widening"),
                          (["--family", "x=greedy"], "ismcts")):
        bad = subprocess.run([sys.executable, str(SCRIPT), "--games", "1", "--per-game", "1", "--play", "greedy",
                              *argv], capture_output=True, text=True)
        assert bad.returncode == 2 and "Traceback" not in bad.stderr, bad.stderr
        assert bad.stderr.startswith("tree_depth.py: ") and message in bad.stderr, bad.stderr
