"""A small network that reads the position (issue 27): who wins, from each player's tiles by kind.

Each player's row is a position model's (:func:`advisor.players.learned.position_rows`: the
thirteen features, the tiles of each kind in bag and path, the weather and walk facts every player
sees, C7). A player's win logit is a linear term plus one tanh hidden layer over that row; a
softmax across the players gives win shares that sum to 1, as in the linear model. Fitted by Adam to soft labels (the mean of rollouts
from the position) with NumPy; deterministic by its seed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from advisor.players.learned import HiddenLayer, rounded


@dataclass(frozen=True)
class Network:
    """A fitted network: standardization, linear weights, one hidden layer."""

    centre: np.ndarray
    spread: np.ndarray
    linear: np.ndarray
    hidden_in: np.ndarray
    hidden_bias: np.ndarray
    hidden_out: np.ndarray

    def logits(self, rows: np.ndarray) -> np.ndarray:
        """Win logits for rows of shape (..., features)."""
        x = (rows - self.centre) / self.spread
        return x @ self.linear + np.tanh(x @ self.hidden_in + self.hidden_bias) @ self.hidden_out

    def raw_weights(self) -> tuple[np.ndarray, HiddenLayer]:
        """The same network on raw (unstandardized) rows, as a model file keeps it: the linear
        weights and the hidden layer (a shift common to every player cancels in the softmax)."""
        linear = self.linear / self.spread
        weights_in = self.hidden_in / self.spread[:, None]
        bias = self.hidden_bias - (self.centre / self.spread) @ self.hidden_in
        layer = HiddenLayer(tuple(tuple(rounded(row)) for row in weights_in), rounded(bias),
                            rounded(self.hidden_out))
        return linear, layer

    def shares(self, rows: list[list[float]]) -> list[float]:
        """Win shares of the players whose rows are `rows` (sum to 1)."""
        z = self.logits(np.asarray(rows, dtype=float))
        e = np.exp(z - z.max())
        return list(e / e.sum())


def padded(groups: list[list[list[float]]], labels: list[list[float]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows, labels and a mask padded to the largest player count: shapes (n, P, d), (n, P), (n, P)."""
    width = max(len(g) for g in groups)
    d = len(groups[0][0])
    x = np.zeros((len(groups), width, d))
    y = np.zeros((len(groups), width))
    mask = np.zeros((len(groups), width), dtype=bool)
    for i, (rows, label) in enumerate(zip(groups, labels)):
        x[i, :len(rows)] = rows
        y[i, :len(rows)] = label
        mask[i, :len(rows)] = True
    return x, y, mask


def _masked_softmax(z: np.ndarray, mask: np.ndarray) -> np.ndarray:
    z = np.where(mask, z, -1e9)
    e = np.exp(z - z.max(axis=1, keepdims=True)) * mask
    return e / e.sum(axis=1, keepdims=True)


def fit_network(groups: list[list[list[float]]], labels: list[list[float]], hidden: int = 16, epochs: int = 40,
                seed: int = 0, l2: float = 1e-4, rate: float = 3e-3, batch: int = 256) -> Network:
    """A network fitted to win-share `labels` (one per decision, a share per player of its rows), by
    Adam on the cross-entropy with minibatches drawn by `seed`."""
    x, y, mask = padded(groups, labels)
    return fit_padded(x, y, mask, hidden, epochs, seed, l2, rate, batch)


def fit_padded(x: np.ndarray, y: np.ndarray, mask: np.ndarray, hidden: int = 16, epochs: int = 40, seed: int = 0,
               l2: float = 1e-4, rate: float = 3e-3, batch: int = 256) -> Network:
    """:func:`fit_network` on arrays as :func:`padded` makes them: rows (n, P, d), win-share labels
    (n, P) and a mask of the players present (n, P)."""
    flat = x[mask]
    centre = flat.mean(axis=0)
    spread = flat.std(axis=0)
    spread[spread < 1e-9] = 1.0
    x = np.where(mask[..., None], (x - centre) / spread, 0.0)
    rng = np.random.default_rng(seed)
    d = x.shape[-1]
    params = [np.zeros(d), rng.normal(0, 1 / np.sqrt(d), (d, hidden)), np.zeros(hidden),
              rng.normal(0, 1 / np.sqrt(hidden), hidden)]
    moments = [np.zeros_like(p) for p in params]
    squares = [np.zeros_like(p) for p in params]
    step = 0
    for _ in range(epochs):
        order = rng.permutation(len(x))
        for start in range(0, len(x), batch):
            idx = order[start:start + batch]
            xb, yb, mb = x[idx], y[idx], mask[idx]
            linear, w1, b1, w2 = params
            h = np.tanh(xb @ w1 + b1)
            p = _masked_softmax(xb @ linear + h @ w2, mb)
            dz = (p - yb) * mb / len(idx)
            dh = dz[..., None] * w2 * (1 - h * h)
            grads = [np.einsum("np,npd->d", dz, xb) + l2 * linear,
                     np.einsum("npd,nph->dh", xb, dh) + l2 * w1,
                     dh.sum(axis=(0, 1)), np.einsum("np,nph->h", dz, h) + l2 * w2]
            step += 1
            for param, grad, m, v in zip(params, grads, moments, squares):
                m *= 0.9
                m += 0.1 * grad
                v *= 0.999
                v += 0.001 * grad * grad
                param -= rate * (m / (1 - 0.9 ** step)) / (np.sqrt(v / (1 - 0.999 ** step)) + 1e-8)
    linear, w1, b1, w2 = params
    return Network(centre, spread, linear, w1, b1, w2)
