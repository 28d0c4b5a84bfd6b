"""The report's charts as PNG files (matplotlib on the Agg backend, imported only when asked)."""

from __future__ import annotations

import os
from typing import Any

from positions.errors import RefugeError

Row = dict[str, Any]


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise RefugeError("charts need matplotlib: pip install 'refuge-advisor[plot]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _agents(report: Row) -> str:
    return ", ".join(sorted({c["agent"] for c in report["corpora"]}))


def _save(figure: Any, plt: Any, path: str) -> None:
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def draw_buys(report: Row, plt: Any, path: str) -> None:
    """Per route, each tile's paired effect on the buyer's win share, with its 95 % interval."""
    rows = [b for b in report["buys"] if b["players"] == "all" and b["walks"] == "all" and b["ci95"]]
    routes = sorted({b["route"] for b in rows})
    figure, axes = plt.subplots(1, max(1, len(routes)), figsize=(4.2 * max(1, len(routes)), 3.6),
                                squeeze=False)
    for axis, route in zip(axes[0], routes):
        here = sorted((b for b in rows if b["route"] == route), key=lambda b: b["win_effect"])
        y = range(len(here))
        axis.errorbar([b["win_effect"] for b in here], list(y), fmt="o", capsize=3,
                      xerr=[[b["win_effect"] - b["ci95"][0] for b in here],
                            [b["ci95"][1] - b["win_effect"] for b in here]])
        axis.set_yticks(list(y), [f"{b['tile']} (n {b['n']})" for b in here], fontsize=8)
        axis.axvline(0, color="grey", linewidth=0.8)
        axis.set_title(route)
        axis.set_xlabel("win share: buy − pass")
    figure.suptitle(f"Buying vs passing, paired continuations, 95 % CI — {_agents(report)}", fontsize=10)
    _save(figure, plt, path)


def draw_returns(report: Row, plt: Any, path: str) -> None:
    """The agent's return rate over Storms to hit and the path's animal value (all walks)."""
    cells = [c for c in report["returns"]["map"] if c["walk"] == "all"]
    counts = sorted({c["players"] for c in cells})
    figure, axes = plt.subplots(1, max(1, len(counts)), figsize=(5 * max(1, len(counts)), 3.6), squeeze=False)
    for axis, players in zip(axes[0], counts):
        here = [c for c in cells if c["players"] == players]
        storms = sorted({c["storms_to_hit"] for c in here})
        bins = sorted({c["path_paws"] for c in here}, key=lambda b: int(b.split("-")[0].rstrip("+")))
        grid = [[float("nan")] * len(bins) for _ in storms]
        for c in here:
            if c["n"] >= 5:
                grid[storms.index(c["storms_to_hit"])][bins.index(c["path_paws"])] = c["return_rate"]
        image = axis.imshow(grid, vmin=0, vmax=1, cmap="viridis", aspect="auto", origin="lower")
        axis.set_xticks(range(len(bins)), bins, fontsize=8)
        axis.set_yticks(range(len(storms)), [str(s) for s in storms])
        axis.set_xlabel("path's animal value")
        axis.set_ylabel("Storms to hit")
        axis.set_title(f"{players} players (cells of 5+ decisions)")
        figure.colorbar(image, ax=axis, label="return rate")
    figure.suptitle(f"Going home — {_agents(report)}", fontsize=10)
    _save(figure, plt, path)


def draw_seats(report: Row, plt: Any, path: str) -> None:
    """Each seat's share of the win per player count, with Wilson intervals and the fair share."""
    rows = [s for s in report["seats"] if s["route"] == "all"]
    figure, axis = plt.subplots(figsize=(5, 3.4))
    labels = [f"{s['players']}p seat {s['seat']}" for s in rows]
    axis.bar(range(len(rows)), [s["win_share"] for s in rows],
             yerr=[[s["win_share"] - s["ci95"][0] for s in rows], [s["ci95"][1] - s["win_share"] for s in rows]],
             capsize=4, color=["C0" if s["players"] == 2 else "C1" for s in rows])
    for index, s in enumerate(rows):
        axis.hlines(s["fair_share"], index - 0.4, index + 0.4, colors="black", linestyles="dashed")
    axis.set_xticks(range(len(rows)), labels, fontsize=8)
    axis.set_ylabel("share of the win")
    axis.set_title(f"Seats (dashed: fair share) — {_agents(report)}", fontsize=9)
    _save(figure, plt, path)


def draw_scores(report: Row, plt: Any, path: str) -> None:
    """Final score and game length distributions per player count and route."""
    rows = [x for x in report["lengths"] if x["route"] != "all"]
    figure, axes = plt.subplots(1, 2, figsize=(9, 3.4))
    for x in rows:
        label = f"{x['players']}p {x['route']}"
        for axis, name in zip(axes, ("score", "turns")):
            values = [v for v, _ in x[name]["histogram"]]
            counts = [c / x[name]["n"] for _, c in x[name]["histogram"]]
            axis.step(values, counts, where="mid", label=label)
    axes[0].set_xlabel("final score (every seat)")
    axes[1].set_xlabel("game length (turns)")
    axes[0].set_ylabel("share")
    axes[1].legend(fontsize=7)
    figure.suptitle(f"Scores and lengths — {_agents(report)}", fontsize=10)
    _save(figure, plt, path)


CHARTS = {"buys.png": draw_buys, "returns.png": draw_returns, "seats.png": draw_seats,
          "scores.png": draw_scores}


def draw_charts(report: Row, folder: str) -> list[str]:
    """Every chart of the report as a PNG in `folder` (created); the paths written.

    Raises:
        RefugeError: matplotlib is not installed.
    """
    plt = _pyplot()
    os.makedirs(folder, exist_ok=True)
    paths = []
    for name, draw in CHARTS.items():
        path = os.path.join(folder, name)
        draw(report, plt, path)
        paths.append(path)
    return paths
