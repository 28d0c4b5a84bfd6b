"""Expert iteration's training (issue 27, item 2): the learned evaluator fitted to a data file of
:mod:`lab.expert`, measured on held-out games against the shipped model.

Each row's label is a mix: ``weight`` (λ) times the deeper search's root value plus ``1 - weight``
times the game's result, for the win shares and the final scores alike (λ = 1: the search alone,
λ = 0: the outcome alone). The fit is :func:`lab.training.fit` (the conditional logit
and the ridge score model of the shipped evaluator, on the same features), so the model file has
the shipped format and ``ismcts:model=PATH`` loads it. Games are split whole: the last
``held_out`` share of a file's games are never fitted, and every model (the new one, the shipped
one, the parent generation's, the HeuristicEvaluator, a constant forecast) is measured on the same
held-out positions: log loss against the outcomes and against the search labels, and calibration
against the outcomes (reliability bins, ECE).
"""

from __future__ import annotations

from typing import Any, NamedTuple, Sequence

from lab.expert import DataSettings, ExpertDataError, read_data
from advisor.players.learned import Model, softmax
from lab.learned_prior import ACTION_FEATURES, PolicyModel
from lab.training import (
    Sample, accuracy, fit, fit_win_weights, held_out_games, learned_predictions, log_loss, reliability,
    rounded, score_error)
from positions.kernel.rulesets import RULES_VERSION

DEFAULT_WEIGHT = 0.5
"""λ: the share of the deeper search's value in a label (the rest is the game's result)."""
LABEL = ("each kept decision of the agent's self-play is labelled with weight x the deeper search's "
         "root value (every player's win share and final score) + (1 - weight) x the game's result "
         "(win shares, tied winners share, C18; final scores)")


def samples_of(rows: Sequence[dict[str, Any]], weight: float) -> list[Sample]:
    """The rows as training samples, labelled with the mix `weight` (λ) of search and outcome."""
    samples = []
    for row in rows:
        search = row["search"]
        returns = [weight * s + (1 - weight) * o for s, o in zip(search["wins"], row["returns"])]
        scores = [weight * s + (1 - weight) * o for s, o in zip(search["scores"], row["scores"])]
        samples.append(Sample(row["game"], row["rows"], row["walks_left"], row["heuristic"],
                              row["heuristic_scores"], returns, scores))
    return samples


def split_games(rows: Sequence[dict[str, Any]], held_out: float,
                ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(fitted rows, held-out rows): the last `held_out` share of the games (at least one, never
    all) held out whole.

    Raises:
        ExpertDataError: fewer than 2 games, or a share outside (0, 1).
    """
    if not 0 < held_out < 1:
        raise ExpertDataError(f"expert training: held_out must be in (0, 1), got {held_out!r}")
    games = sorted({row["game"] for row in rows})
    if len(games) < 2:
        raise ExpertDataError(f"expert training: need rows of at least 2 games, got {len(games)}")
    test = set(held_out_games(games, held_out))
    return [r for r in rows if r["game"] not in test], [r for r in rows if r["game"] in test]


def _measures(shares: list[list[float]], projected: list[list[float]], rows: Sequence[dict[str, Any]],
              samples: Sequence[Sample]) -> dict[str, Any]:
    outcomes = [row["returns"] for row in rows]
    searched = [row["search"]["wins"] for row in rows]
    bins, ece = reliability(shares, outcomes)
    return {"log_loss_outcome": round(log_loss(shares, outcomes), 4),
            "log_loss_search": round(log_loss(shares, searched), 4),
            "accuracy": round(accuracy(shares, outcomes), 4), "ece": round(ece, 4),
            "score_mae": round(score_error(projected, samples), 3),
            "bins": [{k: round(v, 4) if isinstance(v, float) else v for k, v in b.items()} for b in bins]}


def measure(models: dict[str, Model], rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Every model's held-out measures on `rows`, beside the HeuristicEvaluator's and a constant
    forecast's (equal win shares, and the mean final score of all of `rows` for every player)."""
    samples = samples_of(rows, 0.0)  # scores against the final scores
    result = {name: _measures(*learned_predictions(model, samples), rows, samples)
              for name, model in models.items()}
    result["heuristic"] = _measures([list(r["heuristic"]) for r in rows],
                                    [list(r["heuristic_scores"]) for r in rows], rows, samples)
    mean = sum(sum(r["scores"]) for r in rows) / max(1, sum(len(r["scores"]) for r in rows))
    result["constant"] = _measures([[1 / len(r["returns"])] * len(r["returns"]) for r in rows],
                                   [[mean] * len(r["scores"]) for r in rows], rows, samples)
    return result


def policy_samples(rows: Sequence[dict[str, Any]]) -> list[Sample]:
    """The rows' root decisions as samples of the policy prior: each action's features (in
    ``rows``) and its share of the deeper search's visits (in ``returns``)."""
    samples = []
    for row in rows:
        visits = [float(v) for _, v in row["policy"]]
        if len(visits) > 1 and sum(visits) > 0:
            samples.append(Sample(row["game"], row["action_features"], 0, [], [],
                                  [v / sum(visits) for v in visits], []))
    return samples


def measure_policy(policy: PolicyModel, rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """The prior's held-out cross-entropy against the visit shares and how often its likeliest
    action is the most visited one, beside the uniform policy's and the heuristic's (its choice
    only: no cross-entropy)."""
    samples = policy_samples(rows)
    shares = [softmax([sum(w * f for w, f in zip(policy.weights, row)) for row in s.rows]) for s in samples]
    uniform = [[1 / len(s.rows)] * len(s.rows) for s in samples]
    labels = [s.returns for s in samples]
    heuristic = ACTION_FEATURES.index("heuristic_choice")

    def top(chosen: Sequence[int]) -> float:
        hits = sum(s.returns[c] == max(s.returns) for s, c in zip(samples, chosen))
        return round(hits / max(1, len(samples)), 4)

    def likeliest(values: Sequence[float]) -> int:
        return max(range(len(values)), key=lambda i: (values[i], -i))

    return {"learned": {"cross_entropy": round(log_loss(shares, labels), 4),
                        "top_agreement": top([likeliest(p) for p in shares])},
            "uniform": {"cross_entropy": round(log_loss(uniform, labels), 4),
                        "top_agreement": top([0] * len(samples))},
            "heuristic": {"top_agreement": top([likeliest([r[heuristic] for r in s.rows]) for s in samples])},
            "decisions": {"held_out": len(samples)}}


class Fitted(NamedTuple):
    """A generation's fit: the evaluator and its held-out measures beside the baselines', and the
    policy prior and its measures (``None`` when the data holds no decision with two actions)."""

    model: Model
    measured: dict[str, dict[str, Any]]
    policy: PolicyModel | None
    policy_measured: dict[str, dict[str, float]] | None


def train_generation(data: str, baselines: dict[str, Model], weight: float = DEFAULT_WEIGHT,
                     held_out: float = 0.2, l2: float = 1e-3, command: str = "") -> Fitted:
    """The evaluator fitted to the data file `data` with label weight `weight`, the held-out
    measures of it (``"new"``) and of each baseline model by name, and the policy prior fitted to
    the same games' visit shares with its measures.

    Raises:
        ExpertDataError: an unreadable data file, too few games, or a weight outside [0, 1].
    """
    if not 0 <= weight <= 1:
        raise ExpertDataError(f"expert training: the label weight must be in [0, 1], got {weight!r}")
    settings, rows = read_data(data)
    fitting, testing = split_games(rows, held_out)
    unmeasured = fit(samples_of(fitting, weight), l2)
    measured = measure({"new": unmeasured, **baselines}, testing)
    training = training_record(
        command, data, settings, testing, measured, label=LABEL, weight=weight, l2=l2,
        split="by game: the last share of the file's games held out whole",
        samples={"training": len(fitting), "held_out": len(testing)},
        fit="win: conditional logit (softmax across players) by Newton's method; score: ridge least squares")
    model = Model(unmeasured.win_weights, unmeasured.score_weights, training)
    fitting_policy = policy_samples(fitting)
    if not fitting_policy or not policy_samples(testing):
        return Fitted(model, measured, None, None)
    weights = rounded(fit_win_weights(fitting_policy, l2))
    policy_measured = measure_policy(PolicyModel(weights, {}), testing)
    policy_training = {key: training[key] for key in ("command", "data", "data_settings", "l2", "split",
                                                      "games", "held_out_games", "rules_version")}
    policy_training.update({
        "label": "each kept decision's visit shares of the deeper search at its root",
        "fit": "linear softmax over the legal actions by Newton's method (the evaluator's win fit)",
        "samples": {"training": len(fitting_policy), "held_out": policy_measured["decisions"]["held_out"]},
        "held_out": {k: v for k, v in policy_measured.items() if k != "decisions"}})
    return Fitted(model, measured, PolicyModel(weights, policy_training), policy_measured)


def training_record(command: str, data: str, settings: DataSettings, testing: Sequence[dict[str, Any]],
                    measured: dict[str, dict[str, Any]], **fields: Any) -> dict[str, Any]:
    """A generation's model file ``training`` record: the command, the data and its settings, the
    held-out games and measures (without the reliability bins), and `fields` (label, fit, ...)."""
    return {"command": command, "data": data, "data_settings": described(settings), **fields,
            "games": settings.games, "held_out_games": len({r["game"] for r in testing}),
            "held_out": {name: {k: v for k, v in values.items() if k != "bins"} for name, values in measured.items()},
            "rules_version": RULES_VERSION}


def described(settings: DataSettings) -> dict[str, Any]:
    """The settings a model's training record names."""
    return {"agent": settings.agent, "label_iterations": settings.label_iterations,
            "players": settings.players, "per_game": settings.per_game, "kept": settings.kept,
            "seed": settings.seed}


def report_lines(title: str, measured: dict[str, dict[str, Any]], notes: Sequence[str] = ()) -> list[str]:
    """A Markdown report of held-out measures: one table of the models, then each one's reliability bins."""
    lines = [f"# {title}", "", *notes, "",
             "| model | log loss (outcome) | log loss (search) | accuracy | ECE | score error |",
             "|---|---:|---:|---:|---:|---:|"]
    for name, m in measured.items():
        lines.append(f"| {name} | {m['log_loss_outcome']} | {m['log_loss_search']} | {m['accuracy']} "
                     f"| {m['ece']} | {m['score_mae']} |")
    lines += ["", "Log loss in nats (lower is better); accuracy: the forecast favourite is a winner (the "
              "constant forecast has none: its accuracy is the first seat's); ECE: the count-weighted "
              "mean |forecast - observed win share| over 10 equal bins; score error: mean |projected - "
              "final score| (the constant's: the held-out mean final score).", ""]
    for name, m in measured.items():
        lines += [f"## Reliability: {name}", "", "| forecast bin | count | mean forecast | observed |",
                  "|---|---:|---:|---:|"]
        lines += [f"| {b['low']:.1f}-{b['high']:.1f} | {b['count']} | {b['forecast']:.3f} | {b['observed']:.3f} |"
                  for b in m["bins"]]
        lines.append("")
    return lines


def policy_report_lines(measured: dict[str, dict[str, float]]) -> list[str]:
    """The policy prior's held-out measures as a Markdown section."""
    lines = ["## Policy prior", "",
             f"On {int(measured['decisions']['held_out'])} held-out decisions with two or more actions: "
             "cross-entropy (nats) against the deeper search's visit shares, and how often the "
             "policy's likeliest action is the most visited one.", "",
             "| policy | cross-entropy | top agreement |", "|---|---:|---:|"]
    for name in ("learned", "uniform", "heuristic"):
        entropy = measured[name].get("cross_entropy", "-")
        lines.append(f"| {name} | {entropy} | {measured[name]['top_agreement']} |")
    return lines + [""]
