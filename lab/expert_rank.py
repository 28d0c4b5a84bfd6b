"""Expert iteration with a ranking target (issue 27): the evaluator's win weights refitted so that it
spaces the positions a decision's options lead to as a deeper search spaces those options.

A search asks its evaluator one question: of the positions its options lead to, which is better,
and by how much? A fit to who won games answers another (docs/strength.md, "A worth per tile
kind"). Here each kept decision of a data file of :mod:`lab.expert` carries, per root
action of the deeper search, that action's visits, the decider's mean win share, and every
player's features of the position the action leads to (``options``). The fit minimizes, per
decision, the squared difference between the model's win shares for the decider at those positions
and the search's means, both centred on the decision's mean (only the spacing counts: a shift
common to all options changes no choice), averaged with equal weight per decision, plus an L2
penalty pulling each standardized weight towards the base model's (the shipped one, or the
parent generation's), so what the options do not tell apart stays as the base had it. Options the
search visited fewer than ``min_visits`` times are left out: their means are noisy and biased low.
The fit is Gauss-Newton with step halving, in NumPy. The penalty's strength is chosen from a grid
by the spacing error on the last quarter of the fitted games (held out of that choice alone).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from lab.expert import ExpertDataError, read_data
from lab.expert_fit import Fitted, measure, split_games, training_record
from advisor.players.learned import Model
from lab.training import newton_minimize, rounded

MIN_VISITS = 50
"""Options of fewer visits in the deeper search are left out of a decision's ranking."""
L2_GRID = (1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1)
"""The penalties tried (on standardized weight changes; the spacing error is of the order 1e-4, so
the largest keeps the base model)."""


@dataclass(frozen=True)
class RankedDecision:
    """One kept decision's options: their positions' features and the deeper search's means."""

    game: int
    seat: int
    features: np.ndarray
    """(options, players, features): every player's features of the position each option leads to."""
    values: np.ndarray
    """(options,): the decider's mean win share of each option in the deeper search."""
    visits: np.ndarray
    """(options,): the deeper search's visits of each option."""


def ranked_decisions(rows: Sequence[dict[str, Any]], min_visits: int = MIN_VISITS) -> list[RankedDecision]:
    """The rows' decisions with at least two options of `min_visits` visits or more (those options only).

    Raises:
        ExpertDataError: rows without ``options`` (a data file made before they were written).
    """
    decisions = []
    for row in rows:
        if "options" not in row:
            raise ExpertDataError(f"game {row.get('game')!r}: a row without options (made before the "
                                  "ranking target; make the data again)")
        options = [o for o in row["options"] if o[1] >= min_visits]
        if len(options) >= 2:
            decisions.append(RankedDecision(
                row["game"], row["player"], np.array([o[3] for o in options], dtype=float),
                np.array([o[2] for o in options], dtype=float), np.array([o[1] for o in options], dtype=float)))
    return decisions


def decider_shares(weights: np.ndarray, decision: RankedDecision) -> np.ndarray:
    """The model's win share for the decider at each option's position (softmax across players)."""
    logits = decision.features @ weights
    logits -= logits.max(axis=1, keepdims=True)
    shares = np.exp(logits)
    return shares[:, decision.seat] / shares.sum(axis=1)


def _centred_error(shares: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The model's shares minus the search's means, each centred on its decision's mean."""
    return (shares - shares.mean()) - (values - values.mean())


def _objective(decisions: Sequence[RankedDecision], w: np.ndarray, anchor: np.ndarray, penalty: np.ndarray,
               ) -> tuple[float, np.ndarray, np.ndarray]:
    """The mean spacing error + the penalty, its gradient and its Gauss-Newton Hessian at `w`."""
    change = w - anchor
    loss = float(penalty @ (change * change))
    grad = 2 * penalty * change
    hess = 2 * np.diag(penalty)
    count = len(decisions)
    for d in decisions:
        logits = d.features @ w
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        own = p[:, d.seat]
        mean_f = np.einsum("op,opf->of", p, d.features)
        jac = own[:, None] * (d.features[:, d.seat, :] - mean_f)  # d own share / d w, per option
        jac -= jac.mean(axis=0)
        error = _centred_error(own, d.values)
        n = len(error) * count
        loss += float(error @ error) / n
        grad += 2 * jac.T @ error / n
        hess += 2 * jac.T @ jac / n
    return loss, grad, hess


def spacing_error(weights: np.ndarray, decisions: Sequence[RankedDecision]) -> float:
    """The mean over decisions of the mean squared difference between the model's centred win
    shares for the decider and the search's centred means."""
    total = 0.0
    for d in decisions:
        error = _centred_error(decider_shares(weights, d), d.values)
        total += float(error @ error) / len(error)
    return total / max(1, len(decisions))


def fit_ranking(decisions: Sequence[RankedDecision], base: Sequence[float] | np.ndarray, l2: float,
                iterations: int = 50) -> np.ndarray:
    """The win weights that space the decisions' options as the search does, each standardized
    weight's change from `base` penalized by `l2`, from `base` by Gauss-Newton with step halving.

    Raises:
        ExpertDataError: no decision to fit.
    """
    if not decisions:
        raise ExpertDataError("ranking fit: no decision with two options of enough visits")
    rows = np.concatenate([d.features.reshape(-1, d.features.shape[-1]) for d in decisions])
    spread = rows.std(axis=0)
    spread[spread == 0] = 1.0
    penalty = l2 * spread * spread
    anchor = np.array(base, dtype=float)
    return newton_minimize(lambda w: _objective(decisions, w, anchor, penalty), anchor.copy(), iterations)


def choose_l2(decisions: Sequence[RankedDecision], base: Sequence[float] | np.ndarray,
              grid: Sequence[float] = L2_GRID) -> tuple[float, dict[float, float]]:
    """The penalty of `grid` whose fit to the first three quarters of the decisions' games spaces
    the last quarter's best, and every penalty's error there.

    Raises:
        ExpertDataError: fewer than 2 games.
    """
    games = sorted({d.game for d in decisions})
    if len(games) < 2:
        raise ExpertDataError("ranking fit: need decisions of at least 2 games to choose the penalty")
    first_held = games[min(len(games) - 1, max(1, round(len(games) * 0.75)))]
    fitting = [d for d in decisions if d.game < first_held]
    checking = [d for d in decisions if d.game >= first_held]
    errors = {l2: spacing_error(fit_ranking(fitting, base, l2), checking) for l2 in grid}
    return min(grid, key=lambda l2: (errors[l2], -l2)), errors


def agreement(weights: np.ndarray, decisions: Sequence[RankedDecision]) -> dict[str, float]:
    """How often the model's best option is the search's best by mean and its most visited one,
    and the spacing error (each over `decisions`)."""
    best = visited = 0
    for d in decisions:
        pick = int(np.argmax(decider_shares(weights, d)))
        best += pick == int(np.argmax(d.values))
        visited += pick == int(np.argmax(d.visits))
    count = max(1, len(decisions))
    return {"best_mean": round(best / count, 4), "most_visited": round(visited / count, 4),
            "spacing_error": float(f"{spacing_error(weights, decisions):.4g}")}


RANKING_LABEL = ("per kept decision, the deeper search's mean win share of the decider for each root "
                 f"action of at least {MIN_VISITS} visits; the model's win shares at the positions those "
                 "actions lead to fitted to them, both centred on the decision's mean")


def train_ranking_generation(data: str, base: Model, baselines: dict[str, Model], held_out: float = 0.2,
                             command: str = "") -> Fitted:
    """`base`'s win weights refitted to the ranking target of the data file `data` (its score
    weights kept), measured on the held-out games beside each baseline model: the log loss and
    calibration of :func:`~lab.expert_fit.measure`, and under ``"ranking"`` the
    :func:`agreement` of each model's ranking with the deeper search's.

    Raises:
        ExpertDataError: an unreadable data file, too few games, or no decision to fit.
    """
    if base.mix:
        raise ExpertDataError("ranking fit: a mix model cannot be the base (its features are not in the data)")
    settings, rows = read_data(data)
    fitting, testing = split_games(rows, held_out)
    fit_decisions, test_decisions = ranked_decisions(fitting), ranked_decisions(testing)
    l2, errors = choose_l2(fit_decisions, base.win_weights)
    weights = rounded(fit_ranking(fit_decisions, base.win_weights, l2))
    unmeasured = Model(weights, base.score_weights, {})
    models = {"new": unmeasured, **baselines}
    measured = measure(models, testing)
    for name, model in models.items():
        measured[name]["ranking"] = agreement(np.array(model.win_weights), test_decisions)
    training = training_record(
        command, data, settings, testing, measured, label=RANKING_LABEL,
        base_command=base.training.get("command", "?"), l2=l2,
        l2_choice={f"{k:g}": float(f"{v:.4g}") for k, v in errors.items()},
        split="by game: the last share of the file's games held out whole; the penalty chosen on the "
              "last quarter of the others",
        samples={"training": len(fit_decisions), "held_out": len(test_decisions)},
        fit="win: least squares of the centred win shares of the options' positions by Gauss-Newton, "
            "standardized changes from the base penalized; score: the base's")
    return Fitted(Model(weights, base.score_weights, training), measured, None, None)


def ranking_report_lines(measured: dict[str, dict[str, Any]]) -> list[str]:
    """The held-out ranking measures as a Markdown section."""
    lines = ["## Ranking", "",
             "On the held-out decisions with two or more options the deeper search visited at least "
             f"{MIN_VISITS} times: how often the model's best option (the largest win share for the decider "
             "at the position it leads to) is the search's best by mean and its most visited, and the "
             "spacing error (mean squared difference of the centred shares and means).", "",
             "| model | best by mean | most visited | spacing error |", "|---|---:|---:|---:|"]
    for name, m in measured.items():
        if "ranking" in m:
            r = m["ranking"]
            lines.append(f"| {name} | {r['best_mean']} | {r['most_visited']} | {r['spacing_error']} |")
    return lines + [""]
