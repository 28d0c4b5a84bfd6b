"""How far the evaluator's features are from what the search's own rollouts see (issue 27).

Plays `--games` training games (lab.training: the bot mix, every route, 2-4 players),
labels `--per-game` decisions of each by `--rollouts` rollouts of the heuristic continuation from
it, in two independent halves, and fits the conditional logit (training.fit_win_weights) on the
first three quarters of the games with five sets of features: the evaluator's thirteen, those plus
a few more (below), the thirteen plus their pairwise products, all of them with their products, and
the position model's rows (tiles by kind in bag and path, the weather: learned.position_rows); then
a network over those rows (`--hidden` tanh units, advisor/players/value_net.py). Prints for each the
held-out log loss beside the labels' own entropy (a floor no forecast goes below) and the reducible
squared error: Σ (A - f)(B - f) over the players, A and B the halves' mean shares, an unbiased
estimate of the squared distance to what the rollouts find on average, free of the labels' noise.
Deterministic by `--seed`.

    nice -n 5 .venv/bin/python -m lab.scripts.evaluator_gap --games 3000 --seed 77 --hidden 16
"""
from __future__ import annotations

import os

for _threads in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_threads, "1")

import argparse
import itertools
import math
import random
import sys
from typing import Callable, Sequence

import numpy as np

from advisor.players.games import derive_seed
from positions.kernel.heuristics import DEFAULT_ROLLOUT, WORTH, walk_index
from advisor.players.learned import POSITION_FEATURES, feature_rows, position_rows, softmax, walks_left
from lab.training import Sample, fit_win_weights, kept_decisions, log_loss, rollout_outcome
from lab.value_net import fit_network
from positions.kernel.position import Position
from positions.kernel.rules import storms_to_hit

EXTRA = ("bag_mean", "bag_mean_x_walks_left", "steps_x_walks_left", "lead_x_walks_left",
         "walking_x_storm_pressure", "owned_storms", "bag_size")
"""The extra features tried: what the bag will draw next (its mean worth, and × the walks left),
Steps and lead × the walks left, the risk of being caught, Storms owned, the bag's size."""

Rows = Callable[[Position], list[list[float]]]


def extra_rows(state: Position) -> list[list[float]]:
    """Every player's :data:`EXTRA` features at `state` (all of them public, C7)."""
    left = max(0, state.ruleset.walks - 1 - state.walk)
    worth = WORTH[walk_index(state)]
    to_hit = storms_to_hit(state)
    pressure = 1.0 / to_hit if to_hit > 1 else 1.0
    rows = []
    for p in range(state.players):
        bag = state.bags[p]
        bag_mean = sum(worth[k] for k in bag) / max(1, len(bag))
        lead = state.vp[p] - max(state.vp[q] for q in range(state.players) if q != p)
        rows.append([bag_mean, bag_mean * left, state.steps[p] * left, lead * left,
                     pressure if state.walking[p] else 0.0, float(state.owned_storms[p]), float(len(bag))])
    return rows


def with_products(rows: list[list[float]]) -> list[list[float]]:
    """Each row followed by the products of every pair of its features (squares included)."""
    return [row + [a * b for a, b in itertools.combinations_with_replacement(row, 2)] for row in rows]


FEATURE_SETS: dict[str, Rows] = {
    "the evaluator's 13": feature_rows,
    "13 + extra": lambda s: [a + b for a, b in zip(feature_rows(s), extra_rows(s))],
    "13 + products": lambda s: with_products(feature_rows(s)),
    "13 + extra + products": lambda s: with_products([a + b for a, b in zip(feature_rows(s), extra_rows(s))]),
    "13 + tiles by kind + weather": position_rows,
}
"""The feature sets compared by the conditional logit, by name."""

Labelled = tuple[int, Position, list[float], list[float]]
"""(game, decision, every player's mean win share over the first half of the rollouts, over the second)."""


def labelled(games: range, seed: int, per_game: int, rollouts: int) -> list[Labelled]:
    """The kept decisions of `games`, each played on `rollouts` times in two independent halves."""
    found = []
    for game in games:
        states, _ = kept_decisions(game, seed, per_game)
        rng = random.Random(derive_seed(seed, "evaluator-gap", game))
        for state in states:
            first, _ = rollout_outcome(state, rollouts // 2, DEFAULT_ROLLOUT, rng)
            second, _ = rollout_outcome(state, rollouts - rollouts // 2, DEFAULT_ROLLOUT, rng)
            found.append((game, state, first, second))
    return found


def mean_label(first: list[float], second: list[float]) -> list[float]:
    """The mean of both halves' shares."""
    return [(a + b) / 2 for a, b in zip(first, second)]


def reducible_error(forecasts: Sequence[Sequence[float]], data: Sequence[Labelled]) -> float:
    """An unbiased estimate of the mean squared distance between the forecasts and the rollouts'
    expected shares: the halves are independent, so E[(A - f)(B - f)] = (E A - f)^2, free of the
    labels' sampling noise (0 for a perfect forecast of what the rollouts find on average)."""
    return sum(sum((a - f) * (b - f) for f, a, b in zip(forecast, first, second))
               for forecast, (_, _, first, second) in zip(forecasts, data)) / len(data)


def samples(data: Sequence[Labelled], rows: Rows) -> list[Sample]:
    """The decisions as fitting samples with `rows`' features."""
    return [Sample(game, rows(state), walks_left(state), [], [], mean_label(first, second), [])
            for game, state, first, second in data]


def linear_forecasts(fitting: list[Sample], testing: list[Sample], l2: float) -> list[list[float]]:
    """The held-out forecasts of the conditional logit fitted to `fitting`."""
    w = fit_win_weights(fitting, l2)
    return [softmax(list(np.array(s.rows) @ w)) for s in testing]


def network_forecasts(fit_data: Sequence[Labelled], test_data: Sequence[Labelled], hidden: int,
                      seed: int) -> list[list[float]]:
    """The held-out forecasts of the network (lab.value_net) on the position's rows."""
    network = fit_network([position_rows(state) for _, state, _, _ in fit_data],
                          [mean_label(a, b) for _, _, a, b in fit_data], hidden=hidden, seed=seed)
    return [network.shares(position_rows(state)) for _, state, _, _ in test_data]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3000, help="training games in all (a quarter held out)")
    parser.add_argument("--seed", type=int, default=77, help="every random choice flows from it")
    parser.add_argument("--per-game", type=int, default=8, help="decisions kept per game")
    parser.add_argument("--rollouts", type=int, default=16, help="rollouts that label a decision")
    parser.add_argument("--l2", type=float, default=1e-3, help="L2 penalty on standardized weights")
    parser.add_argument("--hidden", type=int, default=16, help="the network's hidden units (0: no network)")
    args = parser.parse_args(argv)
    if args.games < 4 or args.rollouts < 2 or args.per_game < 1 or args.hidden < 0:
        print("evaluator_gap.py: need --games >= 4, --rollouts >= 2, --per-game >= 1 and --hidden >= 0",
              file=sys.stderr)
        return 2
    held = args.games // 4
    fit_data = labelled(range(args.games - held), args.seed, args.per_game, args.rollouts)
    test_data = labelled(range(args.games - held, args.games), args.seed, args.per_game, args.rollouts)
    test_labels = [mean_label(a, b) for _, _, a, b in test_data]
    entropy = sum(-sum(y * math.log(y) for y in shares if y > 0) for shares in test_labels) / len(test_labels)
    uniform = reducible_error([[1 / s.players] * s.players for _, s, _, _ in test_data], test_data)
    print(f"{len(fit_data)} decisions fitted, {len(test_data)} held out; the labels' own entropy "
          f"({args.rollouts} rollouts): {entropy:.4f}; equal shares' reducible squared error {uniform:.4f}")

    def report(name: str, width: int, forecasts: list[list[float]]) -> None:
        loss = log_loss(forecasts, test_labels)
        error = reducible_error(forecasts, test_data)
        print(f"  {name:30} {width:4} features  held-out log loss {loss:.4f}  reducible squared error "
              f"{error:.4f} ({1 - error / uniform:.1%} of the rollouts' variance explained)", flush=True)

    for name, rows in FEATURE_SETS.items():
        fitting, testing = samples(fit_data, rows), samples(test_data, rows)
        report(name, len(fitting[0].rows[0]), linear_forecasts(fitting, testing, args.l2))
    if args.hidden:
        report(f"network, {args.hidden} hidden units", len(POSITION_FEATURES),
               network_forecasts(fit_data, test_data, args.hidden, args.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
