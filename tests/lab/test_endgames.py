"""Last-walk positions from seeded games (lab.endgames): where the solver applies."""

from __future__ import annotations

from lab.endgames import single_walker_stops
from positions import Position, parse_action


def test_stops_are_single_walker_decisions_of_the_last_walk_and_replay_from_their_actions() -> None:
    """C17: the fifth walk is the last; one walker left means a single decider."""
    stops = list(single_walker_stops(3, "forest", seed=4))
    assert stops
    for actions, pos in stops:
        assert pos.walk == pos.ruleset.walks - 1 and sum(pos.walking) == 1
        assert pos.current_player() >= 0 and len(pos.legal_actions()) > 1
    actions, pos = stops[-1]
    replayed = Position.new_game(3, "forest")
    for text in actions:
        replayed.apply(parse_action(text))
    assert replayed.solver_key() == pos.solver_key()


def test_the_same_seed_gives_the_same_game() -> None:
    first = [actions for actions, _ in single_walker_stops(2, "meadows", seed=11)]
    assert first == [actions for actions, _ in single_walker_stops(2, "meadows", seed=11)]
