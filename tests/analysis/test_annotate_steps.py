"""`refuge annotate` at simultaneous steps (issue 22, item 5): the seats' decisions of one step
come from one search grown at the step's start, so a turn's rows share one viewpoint."""

from __future__ import annotations


import pytest

import advisor.analysis.annotate as annotate_module
from advisor.analysis.annotate import (
    VERIFIED_SHARE, annotate_game, annotate_step, decisions_to_annotate, step_groups,
)
from advisor.players.presets import advisor_request
from positions.kernel import phases
from positions.kernel.actions import action_from_code
from positions.record import load_record, replay
from search.errors import SearchError
from search.ismcts import search, search_step
from search.seeds import derive_seed

BLUNDER_GAME = "tests/data/blunder-game.json"


def _game():
    return replay(load_record(BLUNDER_GAME), BLUNDER_GAME)


def _first_shared_step(game) -> list[int]:
    """The replay steps of the first return-or-draw step where both seats decide."""
    groups = step_groups(game, decisions_to_annotate(game, None))
    return next(g for g in groups if len(g) == 2 and game.steps[g[0]].position.phase == phases.DECIDE)


def test_the_seats_of_one_step_are_grouped_and_nothing_else() -> None:
    """C6, C8, C12: same walk, turn and step kind, in seat order; other decisions stand alone."""
    game = _game()
    chosen = decisions_to_annotate(game, None)
    groups = step_groups(game, chosen)
    assert [i for g in groups for i in g] == chosen
    for group in groups:
        positions = [game.steps[i].position for i in group]
        if len(group) > 1:
            assert all(p.phase in phases.SIMULTANEOUS for p in positions)
            assert len({(p.walk, p.turn, p.phase) for p in positions}) == 1
            assert [p.current_player() for p in positions] == sorted(p.current_player() for p in positions)
    assert any(len(g) == 2 for g in groups)


def test_one_search_gives_every_seats_rows_of_a_step() -> None:
    """Every iteration passes both seats' nodes: weighted by visits, the chances after seat 0's
    options and after seat 1's are the same mean (one tree, one viewpoint), and each seat's row is
    blind to the other's move (the same whatever seat 0 played)."""
    game = _game()
    group = _first_shared_step(game)
    positions = [game.steps[i].position for i in group]
    request = advisor_request(iterations=300, seed=3)
    step = search_step(positions, request)
    results = step.results
    assert [r.player for r in results] == [0, 1]
    assert sum(cell.iterations for cell in step.joint.values()) == 300
    means = []
    for result in results:
        assert sum(s.visits for s in result.actions) == 300
        means.append([sum(s.visits * s.wins[p] for s in result.actions if s.visits) / 300 for p in (0, 1)])
    assert means[0] == pytest.approx(means[1], abs=1e-9)
    rows = annotate_step(positions, [int(game.steps[i].action) for i in group],
                         [game.steps[i].event for i in group], request)
    assert [r.player for r in rows] == [0, 1]
    assert all(sum(r.chances) == pytest.approx(1.0) for r in rows)
    # a row's chances: the move played against the other seat's recommendation, from the joint table
    other = results[1].recommendation.action
    mine = int(game.steps[group[0]].action)
    cell = step.joint[(mine, other)]
    assert rows[0].chances == pytest.approx(tuple(v / cell.iterations for v in cell.returns))
    # the later row: after both moves played (seat 0's is in the record), so from row 0 to row 1
    # only seat 1's move is new and the curve does not take back seat 0's
    both = step.joint[(mine, int(game.steps[group[1]].action))]
    assert rows[1].chances == pytest.approx(tuple(v / both.iterations for v in both.returns))


def test_the_later_seat_alone_is_searched_from_the_step_start_too() -> None:
    """Annotating only seat 1, its decision is still searched from the step's start (it cannot see
    seat 0's move): the same statistics whatever seat 0 played."""
    game = _game()
    group = _first_shared_step(game)
    later = game.steps[group[1]].position
    request = advisor_request(iterations=200, seed=4)
    flipped = later.copy()
    options = [a for a in game.steps[group[0]].position.legal_actions() if a != flipped.pending[0]]
    flipped.pending[0] = options[0]
    assert search(later, request).actions == search(flipped, request).actions


def test_annotating_by_step_or_alone_covers_the_same_decisions() -> None:
    """``by_step=False`` (the annotation before issue 22) annotates the same events."""
    game = _game()
    events = range(0, 40)
    by_step = annotate_game(game, None, 40, None, 1, 1, events)
    alone = annotate_game(game, None, 40, None, 1, 1, events, by_step=False)
    assert [a.event for a in by_step] == [a.event for a in alone]
    assert by_step != alone


def test_a_pinned_seat_plays_its_action_in_every_iteration() -> None:
    """``search_step(pinned=...)``: the pinned seat's node plays the given action every iteration
    while the other seat still chooses by its own node; a pin that is not legal is refused."""
    game = _game()
    group = _first_shared_step(game)
    positions = [game.steps[i].position for i in group]
    options = positions[0].legal_actions()
    step = search_step(positions, advisor_request(iterations=120, seed=5), {0: options[-1]})
    assert step.results[0].stats(options[-1]).visits == 120
    assert all(joint[0] == options[-1] for joint in step.joint)
    assert sum(s.visits for s in step.results[1].actions) == 120
    assert step.support(0, options[-1], [{}, {a: 1.0 for a in positions[1].legal_actions()}]) == 120
    with pytest.raises(SearchError, match="cannot pin"):
        search_step(positions, advisor_request(iterations=10, seed=5), {0: 99999})


def _step_searched():  # type: ignore[no-untyped-def]
    """The first shared step's positions, events, a 200-iteration request and its step search."""
    game = _game()
    group = _first_shared_step(game)
    request = advisor_request(iterations=200, seed=6)
    positions = [game.steps[i].position for i in group]
    return positions, [game.steps[i].event for i in group], request, search_step(positions, request)


def _counting_search_step(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, dict[int, int]]]:
    """Record (iterations, pins) of every search_step the annotation runs."""
    calls: list[tuple[int, dict[int, int]]] = []

    def counted(decisions, request, pinned=None):  # type: ignore[no-untyped-def]
        calls.append((request.iterations, dict(pinned or {})))
        return search_step(decisions, request, pinned)

    monkeypatch.setattr(annotate_module, "search_step", counted)
    return calls


def test_a_rarely_sampled_move_is_verified_with_the_moves_so_far_pinned(monkeypatch: pytest.MonkeyPatch) -> None:
    """UCT samples a move that looked poor early too rarely, and the mean of such a move is biased
    low; so a row whose chances rest on under VERIFIED_SHARE of the step's iterations is searched
    again with the earlier seats' moves as played, its own, and the later seat's recommendation
    pinned, for that share of the budget, and its chances are that search's."""
    positions, events, request, main = _step_searched()
    rarest = min(main.results[0].actions, key=lambda s: s.visits).action
    recommended = main.results[1].recommendation.action
    assert main.support(0, rarest, [{}, {recommended: 1.0}]) < VERIFIED_SHARE * 200
    calls = _counting_search_step(monkeypatch)
    rows = annotate_step(positions, [rarest, recommended], events, request)
    needed = round(VERIFIED_SHARE * 200)
    assert calls[0] == (200, {})
    assert (needed, {0: rarest, 1: recommended}) in calls[1:]
    verified = search_step(positions, request.replace(iterations=needed, seed=derive_seed(6, "verify", ((0, rarest), (1, recommended)))),
                           {0: rarest, 1: recommended})
    assert rows[0].chances == pytest.approx(verified.chances_after(0, rarest, [{}, {recommended: 1.0}])[0])
    assert sum(rows[0].chances) == pytest.approx(1.0)


def test_well_sampled_rows_need_no_verification(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both seats playing the search's recommendations: the step's own search sampled that joint
    move most, so no second search runs."""
    positions, events, request, main = _step_searched()
    played = [r.recommendation.action for r in main.results]
    calls = _counting_search_step(monkeypatch)
    annotate_step(positions, played, events, request)
    assert calls == [(200, {})]


def test_a_later_row_after_an_earlier_seat_left_the_line_is_verified(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seat 0 played something else than recommended, seat 1 the recommendation: both rows leave
    the recommended line, and both are read from one verification with seat 0's move as played
    and seat 1's recommendation pinned; seat 0's loss compares its two options each verified
    against seat 1's recommendation, not the adaptive search's means."""
    positions, events, request, main = _step_searched()
    recommended = [r.recommendation.action for r in main.results]
    other = next(a for a in positions[0].legal_actions() if a != recommended[0])
    calls = _counting_search_step(monkeypatch)
    rows = annotate_step(positions, [other, recommended[1]], events, request)
    needed = round(VERIFIED_SHARE * 200)
    assert calls == [(200, {}), (needed, {0: other, 1: recommended[1]}), (needed, {0: recommended[0], 1: recommended[1]})]

    def verified(first: int):  # type: ignore[no-untyped-def]
        line = ((0, first), (1, recommended[1]))
        return search_step(positions, request.replace(iterations=needed, seed=derive_seed(6, "verify", line)),
                           dict(line)).results[0].stats(first)
    mine, best = verified(other), verified(recommended[0])
    assert rows[0].played_win == pytest.approx(mine.win)
    assert rows[0].loss == pytest.approx(max(0.0, best.win - mine.win))
    # "best" is best by the numbers shown: the move played where it verified at least as good
    assert rows[0].best == str(action_from_code(recommended[0] if best.win > mine.win else other))
    assert rows[0].best_win == pytest.approx(max(best.win, mine.win))
    assert rows[1].played_win == pytest.approx(main.results[1].stats(recommended[1]).win)
