"""Expert iteration's fit (issue 54, item 3): the next generation's evaluator, a position-reading
network (:data:`advisor.players.learned.LAYOUTS` ``"network"``), fitted with NumPy to one
generation's self-play and measured on its held-out games against the generation before.

Each decision's label mixes the self-play search's root value and the game's result:
``weight`` × search + (1 − ``weight``) × outcome, for the win shares and the final scores alike
(:data:`DEFAULT_WEIGHT`). The win model is :func:`lab.value_net.fit_network` (a linear term and
tanh units, Adam, seeded), the score model the ridge fit of the shipped evaluator
(:func:`lab.training.fit`). Games are split whole: the last ``held_out`` share of the generation's
games is never fitted, and both models are measured there, walk by walk: log loss against the
results and against the search values, and calibration (ECE) against the results.
"""

from __future__ import annotations

from typing import Any, Sequence

from advisor.players.learned import Model
from lab.expert_store import StoredDecision
from lab.training import Sample, held_out_games, learned_predictions, log_loss, reliability
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
            f"move's own search (every player's win share and final score, the visit-weighted mean over the "
            f"root's actions) + {1 - weight:g} x the game's result (win shares, tied winners share, C18; "
            "final scores)")


def samples_of(decisions: Sequence[StoredDecision], weight: float) -> list[Sample]:
    """The decisions as training samples labelled with the mix `weight` of search and outcome."""
    samples = []
    for d in decisions:
        returns = [weight * s + (1 - weight) * o for s, o in zip(d.search_wins, d.returns)]
        scores = [weight * s + (1 - weight) * o for s, o in zip(d.search_scores, d.scores)]
        samples.append(Sample(d.game, d.rows, d.walks_left, [], [], returns, scores))
    return samples


def split_games(decisions: Sequence[StoredDecision], held_out: float,
                ) -> tuple[list[StoredDecision], list[StoredDecision]]:
    """(fitted, held out): the last `held_out` share of the games (at least one, never all), whole.

    Raises:
        ValueError: decisions of fewer than 2 games.
    """
    games = sorted({d.game for d in decisions})
    if len(games) < 2:
        raise ValueError(f"expert fit: need decisions of at least 2 games, got {len(games)}")
    test = set(held_out_games(games, held_out))
    return [d for d in decisions if d.game not in test], [d for d in decisions if d.game in test]


def measures(model: Model, decisions: Sequence[StoredDecision]) -> dict[str, dict[str, float]]:
    """Per walk (``"1"`` …) and over ``"all"``: decisions, log loss against the results and against
    the search values, and the ECE against the results (10 equal bins, every player's forecast)."""
    shares, _ = learned_predictions(model, samples_of(decisions, 0.0))
    groups: dict[str, list[int]] = {"all": list(range(len(decisions)))}
    for i, d in enumerate(decisions):
        groups.setdefault(str(d.walk + 1), []).append(i)
    result = {}
    for name in ["all", *sorted((k for k in groups if k != "all"), key=int)]:
        picked = groups[name]
        forecast = [shares[i] for i in picked]
        outcomes = [decisions[i].returns for i in picked]
        _, ece = reliability(forecast, outcomes)
        result[name] = {"decisions": len(picked),
                        "log_loss_outcome": round(log_loss(forecast, outcomes), 4),
                        "log_loss_search": round(log_loss(forecast, [decisions[i].search_wins for i in picked]), 4),
                        "ece": round(ece, 4)}
    return result


def fit_generation(decisions: Sequence[StoredDecision], parent: Model, parent_name: str, *, weight: float,
                   held_out: float, hidden: int, seed: int, record: dict[str, Any]) -> Model:
    """The network fitted to the fitted games of `decisions` with label mix `weight` (tanh units
    `hidden`, Adam seeded by `seed`), its ``training`` record `record` with the data, the label and
    the held-out measures of it (``new``) and of `parent` (by `parent_name`) added.

    Raises:
        ValueError: decisions of fewer than 2 games, or a weight outside [0, 1].
    """
    from lab.training import fit  # NumPy's fit: imported when fitting

    if not 0 <= weight <= 1:
        raise ValueError(f"expert fit: the label weight must be in [0, 1], got {weight!r}")
    fitting, testing = split_games(decisions, held_out)
    unmeasured = fit(samples_of(fitting, weight), DEFAULT_L2, layout="network", hidden_units=hidden, seed=seed)
    measured = {"new": measures(unmeasured, testing), parent_name: measures(parent, testing)}
    training = {**record, "label": label_description(weight), "weight": weight, "hidden_units": hidden,
                "l2_score": DEFAULT_L2,
                "fit": (f"win: a linear term and {hidden} tanh units over the position rows, softmax across "
                        "players, by Adam (lab/value_net.py); score: ridge least squares (lab/training.py)"),
                "split": "by game: the last share of the generation's games held out whole",
                "games": {"fitted": len({d.game for d in fitting}), "held_out": len({d.game for d in testing})},
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
