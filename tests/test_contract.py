"""Every game of ours passes the game contract (tests/contract.py): Refuge, the toy games, and Refuge
through the OpenSpiel wrapper."""

from __future__ import annotations

import random

import pytest

from contract import Adapter, check_game, check_state, our_game, openspiel_game
from positions.kernel.position import Position
from toy_games import BidGame, DiceGame


def _openspiel(players: int, route: str) -> Adapter:
    pytest.importorskip("pyspiel")
    from advisor.openspiel.game import load_game

    return openspiel_game(f"openspiel refuge {players}p {route}", load_game(players, route))


GAMES = {
    "refuge-2p": lambda: our_game("refuge 2p meadows", lambda: Position.new_game(2, "meadows")),
    "refuge-3p": lambda: our_game("refuge 3p forest", lambda: Position.new_game(3, "forest")),
    "refuge-4p": lambda: our_game("refuge 4p mountains", lambda: Position.new_game(4, "mountains")),
    "dice": lambda: our_game("dice", DiceGame),
    "bid": lambda: our_game("bid", BidGame),
    "openspiel-2p": lambda: _openspiel(2, "meadows"),
    "openspiel-3p": lambda: _openspiel(3, "forest"),
}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_game_passes_the_contract(name: str) -> None:
    game = GAMES[name]()
    seeds = range(6) if name in ("dice", "bid") else (0, 1)
    assert check_game(game, seeds, every=1 if name in ("dice", "bid") else 3) > 0


class _Leaky(BidGame):
    """A broken BidGame whose information-set key shows the other's bid."""

    def information_set_key(self, player: int) -> tuple[int, int, bool]:
        return (player, self.bids[0], self.bids[1] >= 0)

    def copy(self) -> "_Leaky":
        other = _Leaky()
        other.bids = self.bids[:]
        return other


class _Shared(DiceGame):
    """A broken DiceGame whose copies share their state."""

    def copy(self) -> "_Shared":
        return self


@pytest.mark.parametrize("broken, message", [
    (_Leaky, "changed their information set"),
    (_Shared, "playing on a clone changed the original"),
])
def test_the_contract_catches_a_broken_game(broken: type, message: str) -> None:
    game = our_game("broken", broken)
    state = game.new()
    game.apply(state, 1)  # the first move: a bid, or a roll
    with pytest.raises(AssertionError, match=message):  # a leak shows once a draw differs
        for seed in range(20):
            check_state(game, state if broken is _Leaky else game.new(), random.Random(seed))
