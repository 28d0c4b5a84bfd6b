"""Expert iteration's fit (issue 54, item 3): the next generation's evaluator, a position-reading
network (:data:`advisor.players.learned.LAYOUTS` ``"network"``), fitted with NumPy to one
generation's self-play and measured on its held-out games against the generation before.

Each decision's label mixes the self-play search's root value and the game's result:
``weight`` × search + (1 − ``weight``) × outcome, for the win shares and the final scores alike
(:data:`DEFAULT_WEIGHT`). The win model is :func:`lab.value_net.fit_padded` (a linear term and
tanh units, Adam, seeded), the score model the ridge fit of the shipped evaluator
(:func:`lab.training.ridge_score_weights`). Everything runs on arrays (a million decisions fit in
a few GB). Games are split whole: the last ``held_out`` share of the generation's
games is never fitted, and both models are measured there, walk by walk: log loss against the
results and against the search values, and calibration (ECE) against the results.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from advisor.players.learned import Model, rounded
from lab.expert_store import Decisions
from lab.training import held_out_games, ridge_score_weights
from lab.value_net import fit_padded
from positions.kernel.rulesets import RULES_VERSION

DEFAULT_WEIGHT = 0.5
"""The search value's share of a label (the rest: the game's result). The search value is the
generation before's evaluator averaged over the move's tree, so alone (1) it bootstraps that
evaluator with nothing to correct it: its errors carry from generation to generation. The result
alone (0) is unbiased but noisy (a 2-player walk-1 position is close to a coin flip), and a fit to
who won learns what winners own (lab/journal/evaluator.md). Half of each keeps the results' anchor
in every generation and takes out much of their noise; it is issue 27's mix, and the Connect Four
replication of AlphaZero (Oracle's "Lessons from AlphaZero", part 4) found the average of the two
better than either alone. The smoke run's held-out comparison of 0, ½ and 1 is in the journal."""
DEFAULT_HELD_OUT = 0.2
"""The share of a generation's games never fitted (measured on)."""
DEFAULT_HIDDEN = 16
"""Tanh units of the network (the shipped network experiment's, lab/data/evaluator-network.json)."""
DEFAULT_L2 = 1e-3
"""The score model's ridge penalty on standardized features (the shipped evaluator's)."""


def label_description(weight: float) -> str:
    """What a generation's labels are, in its model file."""
    return (f"each asked decision of the agent's self-play labelled with {weight:g} x the root value of the "
            f"move's own search (every player's win share and final score, the mean over the search's "
            f"iterations) + {1 - weight:g} x the game's result (win shares, tied winners share, C18; "
            "final scores)")


def labels(decisions: Decisions, weight: float) -> tuple[np.ndarray, np.ndarray]:
    """(win shares, final scores), each (n, players): the mix `weight` of search and result."""
    return (weight * decisions.search_wins + (1 - weight) * decisions.returns,
            weight * decisions.search_scores + (1 - weight) * decisions.scores)


def split_games(decisions: Decisions, held_out: float) -> tuple[Decisions, Decisions]:
    """(fitted, held out): the last `held_out` share of the games (at least one, never all), whole.

    Raises:
        ValueError: decisions of fewer than 2 games.
    """
    games = sorted(set(decisions.game.tolist()))
    if len(games) < 2:
        raise ValueError(f"expert fit: need decisions of at least 2 games, got {len(games)}")
    test = np.isin(decisions.game, held_out_games(games, held_out))
    return decisions.take(~test), decisions.take(test)


def win_shares(model: Model, rows: np.ndarray) -> np.ndarray:
    """The model's win shares (n, players) at rows (n, players, features) of a richer or equal
    layout (cut to the model's features), in NumPy: for measuring, not bit for bit the evaluator's."""
    x = rows[..., :len(model.win_weights)]
    logits = x @ np.array(model.win_weights)
    if model.hidden is not None:
        layer = model.hidden
        logits = logits + np.tanh(x @ np.array(layer.weights_in) + np.array(layer.bias)) @ np.array(layer.weights_out)
    logits = logits - logits.max(axis=1, keepdims=True)
    weights = np.exp(logits)
    return weights / weights.sum(axis=1, keepdims=True)


def log_loss(shares: np.ndarray, targets: np.ndarray) -> float:
    """The mean cross-entropy of win shares against target shares (nats), as lab.training's."""
    return float(-(targets * np.log(np.maximum(shares, 1e-12))).sum(axis=1).mean()) if len(shares) else 0.0


def calibration_error(shares: np.ndarray, outcomes: np.ndarray, bins: int = 10) -> float:
    """The ECE of lab.training.reliability: every player's forecast in one of `bins` equal bins of
    [0, 1], the count-weighted mean |mean forecast − mean observed share| over the bins."""
    forecast, observed = shares.ravel(), outcomes.ravel()
    cell = np.minimum((forecast * bins).astype(int), bins - 1)
    count = np.bincount(cell, minlength=bins)
    gap = np.abs(np.bincount(cell, forecast, bins) - np.bincount(cell, observed, bins))
    return float(gap.sum() / max(1, count.sum()))


def measures(model: Model, decisions: Decisions) -> dict[str, dict[str, float]]:
    """Per walk (``"1"`` …) and over ``"all"``: decisions, log loss against the results and against
    the search values, and the ECE against the results (10 equal bins, every player's forecast)."""
    shares = win_shares(model, decisions.rows)
    groups = {"all": np.ones(len(decisions), dtype=bool)}
    for walk in sorted(set(decisions.walk.tolist())):
        groups[str(walk + 1)] = decisions.walk == walk
    result = {}
    for name, picked in groups.items():
        forecast, outcomes = shares[picked], decisions.returns[picked]
        result[name] = {"decisions": int(picked.sum()),
                        "log_loss_outcome": round(log_loss(forecast, outcomes), 4),
                        "log_loss_search": round(log_loss(forecast, decisions.search_wins[picked]), 4),
                        "ece": round(calibration_error(forecast, outcomes), 4)}
    return result


def fit_model(decisions: Decisions, weight: float, hidden: int, seed: int) -> Model:
    """The network (win) and ridge (score) models fitted to `decisions` labelled with the mix
    `weight`, weights rounded as a model file keeps them; no training record yet."""
    wins, scores = labels(decisions, weight)
    network = fit_padded(decisions.rows, wins, np.ones(wins.shape, dtype=bool), hidden=hidden, seed=seed)
    linear, layer = network.raw_weights()
    players, features = decisions.rows.shape[1:]
    x = np.concatenate([decisions.rows.reshape(-1, features),
                        np.repeat(decisions.walks_left, players).astype(float)[:, None]], axis=1)
    score = ridge_score_weights(x, scores.reshape(-1), DEFAULT_L2)
    return Model(rounded(linear), rounded(score), {}, "network", layer)


def fit_generation(decisions: Decisions, parent: Model, parent_name: str, *, weight: float,
                   held_out: float, hidden: int, seed: int, record: dict[str, Any]) -> Model:
    """The network fitted to the fitted games of `decisions` with label mix `weight` (tanh units
    `hidden`, Adam seeded by `seed`), its ``training`` record `record` with the data, the label and
    the held-out measures of it (``new``) and of `parent` (by `parent_name`) added.

    Raises:
        ValueError: decisions of fewer than 2 games, or a weight outside [0, 1].
    """
    if not 0 <= weight <= 1:
        raise ValueError(f"expert fit: the label weight must be in [0, 1], got {weight!r}")
    fitting, testing = split_games(decisions, held_out)
    unmeasured = fit_model(fitting, weight, hidden, seed)
    measured = {"new": measures(unmeasured, testing), parent_name: measures(parent, testing)}
    training = {**record, "label": label_description(weight), "weight": weight, "hidden_units": hidden,
                "l2_score": DEFAULT_L2,
                "fit": (f"win: a linear term and {hidden} tanh units over the position rows, softmax across "
                        "players, by Adam (lab/value_net.py); score: ridge least squares (lab/training.py)"),
                "split": "by game: the last share of the generation's games held out whole",
                "games": {"fitted": len(set(fitting.game.tolist())), "held_out": len(set(testing.game.tolist()))},
                "samples": {"training": len(fitting), "held_out": len(testing)},
                "held_out": measured, "rules_version": RULES_VERSION}
    return Model(unmeasured.win_weights, unmeasured.score_weights, training, "network", unmeasured.hidden)


def report_lines(model: Model, parent_name: str) -> list[str]:
    """The held-out measures of a generation's model beside its parent's, one line per walk."""
    measured = model.training["held_out"]
    new, old = measured["new"], measured[parent_name]
    lines = [f"{'walk':>5} {'decisions':>9}  log loss (outcome) new / {parent_name}   "
             f"log loss (search) new / {parent_name}   ECE new / {parent_name}"]
    for walk in new:
        n, o = new[walk], old[walk]
        lines.append(f"{walk:>5} {n['decisions']:>9}  {n['log_loss_outcome']:.4f} / {o['log_loss_outcome']:.4f}"
                     f"{'':>14}{n['log_loss_search']:.4f} / {o['log_loss_search']:.4f}{'':>13}"
                     f"{n['ece']:.4f} / {o['ece']:.4f}")
    return lines
