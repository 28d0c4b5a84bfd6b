"""Fitting the learned evaluator (:mod:`advisor.players.learned`) to seeded self-play.

:func:`generate` plays heuristic self-play games (2-4 players, every named route, seats drawn from
a small mix of bots, one of them with random moves) and keeps a few decisions of each, labelled with
the game's result: every player's win share (C18: tied winners share) and final score.
:func:`fit_win_weights` fits the conditional logit by Newton's method with an L2 penalty,
:func:`fit_score_weights` the score model by ridge least squares; :func:`train` does both and
measures them on held-out games against the :class:`~advisor.players.bots.HeuristicEvaluator`.
Every random choice flows from the seed, so the same arguments give the same model file.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from advisor.players.bots import (
    DEFAULT_ROLLOUT, THRIFTY_ROLLOUT, HeuristicEvaluator, HeuristicPolicy, cautious_bot, greedy_bot)
from advisor.players.agents import PolicyAgent
from advisor.players.games import GameLoop, derive_seed
from lab.value_net import fit_network
from advisor.players.learned import LAYOUTS, MIX_FEATURES, Model, rounded, layout_rows, softmax, walks_left
from positions.kernel.position import Position
from positions.kernel.routes import ROUTES
from positions.kernel.rulesets import RULES_VERSION

SEATS: tuple[tuple[str, float], ...] = (
    ("heuristic", 0.5), ("heuristic-noisy", 0.2), ("cautious", 0.15), ("greedy", 0.15))
"""The bots a seat is drawn from, with their chances (``heuristic-noisy``: the heuristic's move with
probability 0.85, else a uniformly random legal move)."""
PLAYER_COUNTS: tuple[tuple[int, float], ...] = ((2, 0.5), (3, 0.25), (4, 0.25))
"""Players per game, with their chances."""
LABEL = ("each kept decision is labelled with its game's result: every player's win share "
         "(tied winners share, C18) and final score")


def rollout_label(rollouts: int) -> str:
    """What a model's samples are labelled with when each is played on `rollouts` times."""
    return (f"each kept decision is labelled with the mean of {rollouts} rollouts from it to the end, "
            "every seat playing the continuation (the search's own rollouts): every player's win "
            "share (tied winners share, C18) and final score")


@dataclass(frozen=True)
class Sample:
    """One kept decision: every player's features and its label (the game's result, or the mean of
    rollouts from it)."""

    game: int
    rows: list[list[float]]
    """Per player, :data:`~advisor.players.learned.FEATURES` (a mix or position run's: and then the
    rest of its layout's features, :data:`~advisor.players.learned.LAYOUTS`)."""
    walks_left: int
    heuristic: list[float]
    """The HeuristicEvaluator's (win shares, then projected scores) at the decision."""
    heuristic_scores: list[float]
    returns: list[float]
    scores: list[float]


class TrustedPolicy:
    """A model of how a player chooses: `policy`'s action with probability `trust`, otherwise a
    uniformly random legal action (the noisy heuristic of the training mix)."""

    def __init__(self, policy: HeuristicPolicy, trust: float = 0.8):
        if not (isinstance(trust, (int, float)) and 0.0 <= trust <= 1.0):
            raise ValueError(f"trust must be a number in [0, 1], got {trust!r}")
        self.policy = policy
        self.trust = trust

    def __repr__(self) -> str:
        return f"TrustedPolicy({self.policy!r}, {self.trust!r})"

    def choose(self, state: Position, rng: random.Random) -> int:
        """`policy`'s action with probability `trust`, else a uniform pick (one draw decides)."""
        legal = state.legal_actions()
        if rng.random() < self.trust:
            return self.policy.choose(state, rng)
        return legal[int(rng.random() * len(legal))]


CONTINUATIONS = {"heuristic": DEFAULT_ROLLOUT, "thrifty": THRIFTY_ROLLOUT}
"""What the ``heuristic`` and ``heuristic-noisy`` seats play: the default rollout policy (the
shipped model's games) or the thrifty one (issue 27: the games its rollouts continue)."""


def _continuation(name: str) -> Any:
    """The policy of continuation `name`; an unknown one is a ValueError naming the choices."""
    if name not in CONTINUATIONS:
        raise ValueError(f"train: unknown continuation {name!r} (expected {' or '.join(CONTINUATIONS)})")
    return CONTINUATIONS[name]


def _seat_bots(continuation: str) -> dict[str, Any]:
    policy = _continuation(continuation)
    return {"heuristic": policy, "heuristic-noisy": TrustedPolicy(policy, 0.85),
            "cautious": cautious_bot(), "greedy": greedy_bot()}


def _pick(rng: random.Random, table: Sequence[tuple[Any, float]]) -> Any:
    x = rng.random() * sum(weight for _, weight in table)
    for value, weight in table:
        x -= weight
        if x < 0:
            return value
    return table[-1][0]


def training_game(game: int, seed: int, per_game: int,
                  continuation: str = "heuristic", layout: str = "summary", rollouts: int = 0) -> list[Sample]:
    """Game number `game` of the run seeded `seed` (see :func:`kept_decisions`): up to `per_game` of
    its decisions, labelled by :func:`decision_labels`, with the features of a `layout` model."""
    kept, final = kept_decisions(game, seed, per_game, continuation)
    heuristic = HeuristicEvaluator()
    return [labelled_sample(game, state, returns, scores, heuristic, layout)
            for state, (returns, scores) in zip(kept, decision_labels(game, seed, kept, final,
                                                                       continuation, rollouts))]


def kept_decisions(game: int, seed: int, per_game: int,
                   continuation: str = "heuristic") -> tuple[list[Position], Position]:
    """Game number `game` of the run seeded `seed`, played through the game loop (every bot on its
    seat's view, the ``heuristic`` seats playing `continuation`): up to `per_game` of its decisions,
    drawn by the game's seed, in order, and the finished game."""
    rng = random.Random(derive_seed(seed, "evaluator-training", game))
    bots = _seat_bots(continuation)
    players = _pick(rng, PLAYER_COUNTS)
    route = rng.choice(sorted(ROUTES))
    seats = [_pick(rng, SEATS) for _ in range(players)]
    loop = GameLoop([PolicyAgent(name, bots[name]) for name in seats], route,
                    derive_seed(seed, "evaluator-training", game, "deal"))
    decisions: list[Position] = []
    while not loop.position.is_terminal():
        if not loop.position.is_chance():
            decisions.append(loop.position.copy())
        loop.step()
    kept = sorted(rng.sample(range(len(decisions)), min(per_game, len(decisions))))
    return [decisions[index] for index in kept], loop.position


def decision_labels(game: int, seed: int, states: Sequence[Position], final: Position,
                    continuation: str = "heuristic", rollouts: int = 0) -> list[tuple[list[float], list[float]]]:
    """Every player's win shares and scores for each of game `game`'s `states`: the finished
    game's (`final`), or with `rollouts` > 0 the mean of that many rollouts of `continuation` from
    each (:func:`rollout_outcome`, chance drawn from the game's own seed)."""
    if rollouts <= 0:
        result = (final.returns(), [float(v) for v in final.scores()])
        return [result for _ in states]
    played = random.Random(derive_seed(seed, "evaluator-training", game, "rollouts"))
    policy = _continuation(continuation)
    return [rollout_outcome(state, rollouts, policy, played) for state in states]


def rollout_outcome(state: Position, rollouts: int, policy: Any,
                    rng: random.Random) -> tuple[list[float], list[float]]:
    """Every player's mean win share and mean final score over `rollouts` games played on from
    `state` by `policy` in every seat, chance drawn by `rng`: what a search's full rollouts see."""
    returns = [0.0] * state.players
    scores = [0.0] * state.players
    for _ in range(rollouts):
        game = state.copy()
        game.playout(rng, policy)
        for player, (share, score) in enumerate(zip(game.returns(), game.scores())):
            returns[player] += share
            scores[player] += score
    return [share / rollouts for share in returns], [score / rollouts for score in scores]


def sample_rows(state: Position, layout: str = "summary") -> list[list[float]]:
    """Every player's features at `state` for a model of `layout` (``summary``: the thirteen
    :data:`~advisor.players.learned.FEATURES`; ``mix``, ``position``: more after them)."""
    return layout_rows(state, layout)


def labelled_sample(game: int, state: Position, returns: Sequence[float], scores: Sequence[float],
                    heuristic: HeuristicEvaluator, layout: str = "summary") -> Sample:
    """The decision at `state` of game `game` as a sample: every player's features and the
    HeuristicEvaluator's forecast there, labelled with the game's result."""
    shares, projected = heuristic.evaluate(state)
    return Sample(game, sample_rows(state, layout), walks_left(state), shares, projected, list(returns),
                  [float(s) for s in scores])


def held_out_games(games: Sequence[int], share: float) -> list[int]:
    """The games a fit never sees: the last `share` of `games` (in their order), at least one and
    never all (with two or more)."""
    return list(games[len(games) - min(len(games) - 1, max(1, round(len(games) * share))):])


def generate(games: int, seed: int, per_game: int, first: int = 0,
             continuation: str = "heuristic", layout: str = "summary", rollouts: int = 0) -> list[Sample]:
    """The samples of games `first` .. `first + games - 1` of the run seeded `seed`."""
    samples: list[Sample] = []
    for game in range(first, first + games):
        samples.extend(training_game(game, seed, per_game, continuation, layout, rollouts))
    return samples


def _groups(samples: Sequence[Sample]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per player count: features (samples, players, features) and labels (samples, players)."""
    by_count: dict[int, list[Sample]] = {}
    for sample in samples:
        by_count.setdefault(len(sample.rows), []).append(sample)
    return [(np.array([s.rows for s in group], dtype=float), np.array([s.returns for s in group], dtype=float))
            for _, group in sorted(by_count.items())]


def _win_objective(groups: list[tuple[np.ndarray, np.ndarray]], w: np.ndarray, penalty: np.ndarray,
                   total: int) -> tuple[float, np.ndarray, np.ndarray]:
    """Mean log loss + the L2 penalty (one strength per weight), its gradient and Hessian at `w`."""
    loss = 0.5 * float(penalty @ (w * w))
    grad = penalty * w
    hess = np.diag(penalty)
    for x, y in groups:
        logits = x @ w
        logits -= logits.max(axis=1, keepdims=True)
        log_p = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
        p = np.exp(log_p)
        loss -= float((y * log_p).sum()) / total
        grad += np.einsum("ni,nif->f", p - y, x) / total  # the labels sum to 1
        mean_x = np.einsum("ni,nif->nf", p, x)
        hess += (np.einsum("ni,nif,nig->fg", p, x, x) - mean_x.T @ mean_x) / total
    return loss, grad, hess


DEFAULT_HIDDEN_UNITS = 16
"""A ``network`` model's tanh units (``train_evaluator.py --network``; evaluator_gap.py's measure)."""
MIX_L2 = 1e-4
"""The L2 penalty on the mix features' weights, in their own units (share x walks left): a kind the
games seldom put in a bag keeps a weight near 0, and so its worth is ``heuristics.WORTH``'s. (Chosen
on held-out games of seed 1: 1e-4 gives the log loss of a standardized fit without its weights of
±90 on kinds owned in 1 decision of 10,000.)"""


def _scaling(rows: np.ndarray, l2: float, own_units: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per feature: centre, spread and penalty. The features are standardized and penalized by
    `l2`, but for the last `own_units`, which keep their units and :data:`MIX_L2`."""
    centre, spread = rows.mean(axis=0), rows.std(axis=0)
    spread[spread == 0] = 1.0
    penalty = np.full(rows.shape[1], l2)
    if own_units:
        spread[-own_units:] = 1.0
        penalty[-own_units:] = MIX_L2
    return centre, spread, penalty


def fit_win_weights(samples: Sequence[Sample], l2: float = 1e-3, iterations: int = 50,
                    own_units: int = 0) -> np.ndarray:
    """The conditional logit's weights (one per feature): maximum likelihood of the win shares with
    an L2 penalty on standardized features (the last `own_units` penalized in their own units), by
    Newton's method with step halving. (The options need not be players: the policy prior fits
    actions' features to visit shares the same way.)"""
    raw = _groups(samples)
    rows = np.concatenate([x.reshape(-1, x.shape[-1]) for x, _ in raw])
    centre, spread, penalty = _scaling(rows, l2, own_units)
    groups = [((x - centre) / spread, y) for x, y in raw]  # a shift common to all players cancels
    total = len(samples)
    w = newton_minimize(lambda w: _win_objective(groups, w, penalty, total), np.zeros(rows.shape[1]), iterations)
    return w / spread


Objective = Callable[[np.ndarray], tuple[float, np.ndarray, np.ndarray]]
"""A loss at the weights: (loss, gradient, Hessian or its Gauss-Newton approximation)."""


def newton_minimize(objective: Objective, w: np.ndarray, iterations: int = 50) -> np.ndarray:
    """The weights reached from `w` by (Gauss-)Newton steps of `objective`, each step halved until
    the loss does not rise; stops when a step gains less than 1e-12 or none is found."""
    loss, grad, hess = objective(w)
    for _ in range(iterations):
        step = np.linalg.solve(hess, grad)
        size = 1.0
        while size > 1e-6:
            trial = w - size * step
            trial_loss, trial_grad, trial_hess = objective(trial)
            if trial_loss <= loss:
                break
            size /= 2
        else:
            break
        converged = loss - trial_loss < 1e-12
        w, loss, grad, hess = trial, trial_loss, trial_grad, trial_hess
        if converged:
            break
    return w


def fit_score_weights(samples: Sequence[Sample], l2: float = 1e-3, own_units: int = 0) -> np.ndarray:
    """The score model's weights (:data:`~advisor.players.learned.SCORE_FEATURES`, or a mix
    model's): ridge least squares of every player's final score on standardized features (the mix
    features, the `own_units` before the walks left, in their own units), the constant not penalized."""
    x = np.array([row + [float(s.walks_left)] for s in samples for row in s.rows], dtype=float)
    y = np.array([score for s in samples for score in s.scores], dtype=float)
    return ridge_score_weights(x, y, l2, own_units)


def ridge_score_weights(x: np.ndarray, y: np.ndarray, l2: float = 1e-3, own_units: int = 0) -> np.ndarray:
    """:func:`fit_score_weights` on arrays: one row per player of every sample, its features then the
    walks left (`x`), and that player's final score (`y`)."""
    centre, spread, penalty = _scaling(x[:, :-1], l2, own_units)
    centre, spread = np.append(centre, x[:, -1].mean()), np.append(spread, x[:, -1].std() or 1.0)
    z = np.hstack([(x - centre) / spread, np.ones((len(x), 1))])
    ridge = np.diag(np.append(np.append(penalty, l2), 0.0)) * len(x)  # the constant not penalized
    beta = np.linalg.solve(z.T @ z + ridge, z.T @ y)
    weights = beta[:-1] / spread
    return np.append(weights, beta[-1] - float(weights @ centre))


def log_loss(shares: Sequence[Sequence[float]], labels: Sequence[Sequence[float]]) -> float:
    """The mean cross-entropy of predicted win shares against the labels' shares (nats)."""
    total = 0.0
    for predicted, label in zip(shares, labels):
        total -= sum(y * math.log(max(q, 1e-12)) for q, y in zip(predicted, label) if y)
    return total / max(1, len(labels))


def accuracy(shares: Sequence[Sequence[float]], labels: Sequence[Sequence[float]]) -> float:
    """How often the predicted favourite is one of the winners."""
    hits = 0
    for predicted, label in zip(shares, labels):
        favourite = max(range(len(predicted)), key=predicted.__getitem__)
        hits += label[favourite] == max(label)
    return hits / max(1, len(labels))


def score_error(projected: Sequence[Sequence[float]], samples: Sequence[Sample]) -> float:
    """The mean absolute error of projected final scores, over every player of every sample."""
    errors = [abs(p - s) for scores, sample in zip(projected, samples) for p, s in zip(scores, sample.scores)]
    return sum(errors) / max(1, len(errors))


def learned_predictions(model: Model, samples: Sequence[Sample]) -> tuple[list[list[float]], list[list[float]]]:
    """The model's (win shares, projected scores) for each sample (rows of a richer layout are cut
    to the model's features: a summary model is measured on a mix or position run's samples)."""
    shares, projected = [], []
    width = len(model.win_weights)
    for s in samples:
        rows = [row[:width] for row in s.rows]
        logits = [sum(w * f for w, f in zip(model.win_weights, row)) for row in rows]
        if model.hidden is not None:
            logits = [a + b for a, b in zip(logits, model.hidden.logits(rows))]
        shares.append(softmax(logits))
        tail = model.score_weights[-2] * s.walks_left + model.score_weights[-1]
        projected.append([sum(w * f for w, f in zip(model.score_weights, row)) + tail for row in rows])
    return shares, projected


def metrics(model: Model, samples: Sequence[Sample]) -> dict[str, dict[str, float]]:
    """Log loss, accuracy and score error of the model and of the HeuristicEvaluator on `samples`."""
    labels = [s.returns for s in samples]
    shares, projected = learned_predictions(model, samples)
    result = {}
    for name, (wins, scores) in (("learned", (shares, projected)),
                                 ("heuristic", ([s.heuristic for s in samples],
                                                [s.heuristic_scores for s in samples]))):
        result[name] = {"log_loss": round(log_loss(wins, labels), 4),
                        "accuracy": round(accuracy(wins, labels), 4),
                        "score_mae": round(score_error(scores, samples), 3)}
    return result


def reliability(shares: Sequence[Sequence[float]], labels: Sequence[Sequence[float]], bins: int = 10,
                ) -> tuple[list[dict[str, float]], float]:
    """Calibration of predicted win shares: every player's forecast of every sample put in one of
    `bins` equal bins of [0, 1], each non-empty bin's count, mean forecast and mean observed share;
    and the expected calibration error (the count-weighted mean |forecast - observed|)."""
    sums = [[0, 0.0, 0.0] for _ in range(bins)]
    for predicted, label in zip(shares, labels):
        for q, y in zip(predicted, label):
            cell = sums[min(bins - 1, int(q * bins))]
            cell[0] += 1
            cell[1] += q
            cell[2] += y
    total = sum(cell[0] for cell in sums)
    table = [{"low": i / bins, "high": (i + 1) / bins, "count": n, "forecast": f / n, "observed": o / n}
             for i, (n, f, o) in enumerate(sums) if n]
    ece = sum(row["count"] * abs(row["forecast"] - row["observed"]) for row in table) / max(1, total)
    return table, ece


def fit(samples: Sequence[Sample], l2: float = 1e-3, training: dict[str, Any] | None = None,
        layout: str = "summary", hidden_units: int = DEFAULT_HIDDEN_UNITS, seed: int = 0) -> Model:
    """Both models fitted to `samples` (their ``returns`` and ``scores`` the labels, their rows a
    `layout` model's features), weights rounded to 6 digits as the model file keeps them; a
    ``network`` model's win logits through `hidden_units` tanh units besides (Adam, seeded by `seed`)."""
    own_units = len(MIX_FEATURES) if layout == "mix" else 0
    score = rounded(fit_score_weights(samples, l2, own_units))
    if layout == "network":
        network = fit_network([s.rows for s in samples], [s.returns for s in samples], hidden=hidden_units,
                              seed=seed)
        linear, layer = network.raw_weights()
        return Model(rounded(linear), score, training or {}, layout, layer)
    return Model(rounded(fit_win_weights(samples, l2, own_units=own_units)), score, training or {}, layout)


def train(games: int, seed: int, per_game: int = 8, held_out: float = 0.2, l2: float = 1e-3,
          command: str = "", continuation: str = "heuristic", layout: str = "summary",
          rollouts: int = 0, hidden_units: int = DEFAULT_HIDDEN_UNITS) -> Model:
    """A model fitted to the first games of the run seeded `seed`, measured on the rest (the last
    `held_out` share of the games, at least one); the ``heuristic`` seats play `continuation`;
    the model has the features of `layout` (:data:`~advisor.players.learned.LAYOUTS`; a
    ``network`` one `hidden_units` tanh units besides); with `rollouts` > 0 every sample is labelled
    by that many rollouts of the continuation from it instead of its game's result."""
    if games < 2:
        raise ValueError(f"train: need at least 2 games, got {games}")
    if rollouts < 0:
        raise ValueError(f"train: rollouts must be 0 (the game's result) or more, got {rollouts}")
    _continuation(continuation)  # an unknown one is refused before any game is played
    test_games = min(games - 1, max(1, round(games * held_out)))
    train_games = games - test_games
    if layout not in LAYOUTS:
        raise ValueError(f"train: unknown layout {layout!r} (expected {', '.join(LAYOUTS)})")
    if hidden_units < 1:
        raise ValueError(f"train: hidden units must be 1 or more, got {hidden_units}")
    fitting = generate(train_games, seed, per_game, continuation=continuation, layout=layout, rollouts=rollouts)
    testing = generate(test_games, seed, per_game, first=train_games, continuation=continuation,
                       layout=layout, rollouts=rollouts)
    unmeasured = fit(fitting, l2, layout=layout, hidden_units=hidden_units, seed=seed)
    training = {
        "command": command, "seed": seed, "games": games, "training_games": train_games,
        "held_out_games": test_games, "decisions_per_game": per_game,
        "players": {str(n): share for n, share in PLAYER_COUNTS}, "routes": sorted(ROUTES),
        "agents": {name: share for name, share in SEATS},
        "label": rollout_label(rollouts) if rollouts else LABEL,
        **({"continuation": continuation} if continuation != "heuristic" else {}),
        "samples": {"training": len(fitting), "held_out": len(testing)}, "l2": l2,
        "fit": (f"win: a linear term and {hidden_units} tanh units, softmax across players, by Adam "
                "(advisor/players/value_net.py); score: ridge least squares" if layout == "network" else
                "win: conditional logit (softmax across players) by Newton's method; "
                "score: ridge least squares"),
        **({"mix_l2": MIX_L2} if layout == "mix" else {}),
        "held_out": metrics(unmeasured, testing), "rules_version": RULES_VERSION,
    }
    return Model(unmeasured.win_weights, unmeasured.score_weights, training, layout, unmeasured.hidden)
