"""Property tests: invariants that hold after every action of random games (hypothesis).

Each example is one whole game of uniformly random play from a seed, 2-4 players, on a named or a
custom route; every invariant is checked after every action. ``derandomize`` keeps CI reproducible.
"""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from builders import census, random_step
from positions import ROUTES, Position, Route, make_route, parse_action
from positions.kernel import rules
from positions.kernel.actions import ACTION_SPACE, action_from_code, is_chance_outcome
from positions.errors import InvalidActionError
from positions.kernel.phases import SIMULTANEOUS
from positions.kernel.position import FIELDS
from positions.kernel.tiles import NATURE_KINDS, OBJECT_KINDS

PROPERTY_SETTINGS = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                             suppress_health_check=[HealthCheck.too_slow])

custom_routes = st.builds(
    lambda objects, nature: make_route(objects[:4] + nature[:4]),
    st.permutations(list(OBJECT_KINDS)), st.permutations(list(NATURE_KINDS)))
routes = st.one_of(st.sampled_from(sorted(ROUTES.values())), custom_routes)
games = st.tuples(st.integers(0, 2**32 - 1), st.sampled_from([2, 3, 4]), routes,
                  st.sampled_from([0.0, 0.8]))


def snapshot(pos: Position) -> tuple[object, ...]:
    """Every field of a position, lists frozen, so two snapshots compare by value."""
    return tuple(tuple(value) if isinstance(value, list) else value
                 for value in (getattr(pos, name) for name in FIELDS))


def without_others_choices(pos: Position, player: int) -> tuple[object, ...]:
    """:func:`snapshot` with the others' unrevealed choices of this step (C6, C8, C12) masked: all
    that an open-bag position hides from `player`."""
    masked = pos.copy()
    masked.pending = [choice if seat == player else -99 for seat, choice in enumerate(pos.pending)]
    return snapshot(masked)


def expected_census(pos: Position) -> tuple[Counter[int], int, int]:
    """Tile totals of a new game: start bags, the market, and the weather tiles (C1, C3, C4)."""
    return census(Position.new_game(pos.players, pos.route, pos.ruleset))


def check_chance(pos: Position, rng: random.Random) -> None:
    """Probabilities are positive and sum to 1; a sample is one of the listed outcomes."""
    outcomes = pos.chance_outcomes()
    assert outcomes and all(p > 0 for _, p in outcomes)
    assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
    listed = {action for action, _ in outcomes}
    assert len(listed) == len(outcomes)
    assert set(pos.legal_actions()) == listed
    for _ in range(3):
        assert pos.sample_chance(rng) in listed


def check_hidden_choices(pos: Position) -> None:
    """Two states that differ only in another player's pending choice of this simultaneous step
    look the same to everyone else, and give the actor the same options (C6, C8, C12)."""
    if pos.phase not in SIMULTANEOUS:
        return
    for other in range(pos.players):
        if pos.pending[other] < 0:
            continue
        variants = []
        for choice in rules.step_legal(pos, other):
            variant = pos.copy()
            variant.pending[other] = choice
            variants.append(variant)
        for player in range(pos.players):
            if player != other:
                assert len({v.information_set_key(player) for v in variants}) == 1
        assert len({(v.current_player(), tuple(v.legal_actions())) for v in variants}) == 1
    # Each choice the actor could make now: the next player in the same step sees the same.
    afters = []
    for action in pos.legal_actions():
        after = pos.copy()
        after.apply(action)
        if after.history == pos.history:  # the step is still open
            afters.append(after)
    if afters:
        actor = pos.current_player()
        assert len({(a.current_player(), tuple(a.legal_actions())) for a in afters}) == 1
        for player in range(pos.players):
            if player != actor:
                assert len({a.information_set_key(player) for a in afters}) == 1


def check_copy_and_determinize(pos: Position, rng: random.Random) -> None:
    """copy() is independent of the original; determinize(p) keeps p's information set key."""
    before = snapshot(pos)
    other = pos.copy()
    assert snapshot(other) == before
    for _ in range(12):
        if other.is_terminal():
            break
        random_step(other, rng)
    other.bags[0] = ()
    other.steps[0] += 100
    other.pending[0] = 99
    assert snapshot(pos) == before, "playing on the copy changed the original"
    for player in range(pos.players):
        world = pos.determinize(player, rng)
        assert world.information_set_key(player) == pos.information_set_key(player)
        assert census(world) == census(pos)
        if not pos.hidden_bags:  # no strategy fusion beyond a step (docs/strength.md, issue 27)
            assert without_others_choices(world, player) == without_others_choices(pos, player), \
                "determinize changed more than the others' unrevealed choices of this step"
    assert snapshot(pos) == before, "determinize changed the original"


def check_invariants(pos: Position, action: int, totals: tuple[Counter[int], int, int]) -> None:
    """Tile conservation, no negative Steps or VP, notation round-trip, something to do."""
    assert census(pos) == totals, "a tile appeared, vanished or is in two places"
    assert min(pos.steps) >= 0 and min(pos.vp) >= 0
    assert parse_action(str(action)) == action
    assert sum(pos.owned_storms) + pos.track_storms <= pos.threshold + 2
    if pos.is_terminal():
        assert not pos.legal_actions()
        assert abs(sum(pos.returns()) - 1.0) < 1e-9
    else:
        assert pos.legal_actions()
        if not pos.is_chance():
            assert len(pos.legal_actions()) >= 2, "single options are applied automatically"
            assert 0 <= pos.current_player() < pos.players


@PROPERTY_SETTINGS
@given(games)
def test_random_games_keep_every_invariant(game: tuple[int, int, Route, float]) -> None:
    """Tiles are conserved, Steps/VP >= 0, chance is well formed, hidden choices stay hidden, copies
    are independent and determinize keeps the key, after every action of a random game."""
    seed, players, route, prefer_draw = game
    rng = random.Random(seed)
    pos = Position.new_game(players, route)
    totals = expected_census(pos)
    assert census(pos) == totals
    actions = 0
    while not pos.is_terminal():
        if pos.is_chance():
            check_chance(pos, rng)
        check_hidden_choices(pos)
        if actions % 5 == 0:
            check_copy_and_determinize(pos, rng)
        action = random_step(pos, rng, prefer_draw)
        actions += 1
        check_invariants(pos, action, totals)
    assert pos.walk == pos.ruleset.walks


@PROPERTY_SETTINGS
@given(games)
def test_random_games_are_reproducible(game: tuple[int, int, Route, float]) -> None:
    """Determinism: the same seed plays the same game (actions and scores)."""
    seed, players, route, prefer_draw = game
    runs = []
    for _ in range(2):
        rng = random.Random(seed)
        pos = Position.new_game(players, route)
        played = []
        while not pos.is_terminal():
            played.append(random_step(pos, rng, prefer_draw))
        runs.append((played, pos.scores()))
    assert runs[0] == runs[1]


def test_every_action_round_trips_through_its_notation() -> None:
    """docs/notation.md: ``parse_action(str(a)) == a`` for every action in the action space."""
    count = 0
    for code in range(ACTION_SPACE):
        try:
            action = action_from_code(code)
        except InvalidActionError:
            continue
        count += 1
        assert parse_action(str(action)) == action
        assert parse_action(str(action).upper()) == action
        assert isinstance(is_chance_outcome(action), bool)
    assert count > 31 * 4
