"""Charts (matplotlib with the Agg backend, imported only when a chart is asked for; `[plot]` extra)."""

from __future__ import annotations

import io
import os
from collections import defaultdict
from typing import TYPE_CHECKING, Sequence

from advisor.arena.ladder import Rated
from positions.errors import RefugeError
from positions.files import check_writable, write_atomically

if TYPE_CHECKING:
    from advisor.arena.scaling import CurvePoint

CHART_TYPES = (".png", ".svg", ".pdf")
PLAYER_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd")
"""Each seat's colour, the same in the review page's graph and evaluation bar (static/common.js)."""


def pyplot():
    """matplotlib's pyplot on the Agg backend.

    Raises:
        RefugeError: matplotlib is not installed.
    """
    try:
        import matplotlib
    except ImportError:
        raise RefugeError("charts need matplotlib: pip install 'refuge-advisor[plot]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def check_chart_path(path: str) -> None:
    """Fail before any work if a chart cannot be written to `path`.

    Raises:
        RefugeError: not .png/.svg/.pdf, matplotlib is missing, or the path cannot be written.
    """
    if not path.lower().endswith(CHART_TYPES):
        raise RefugeError(f"{path}: chart files must end in .png, .svg or .pdf")
    pyplot()
    check_writable(path)


def plot_win_curves(curves: dict[int, list[tuple[int, float]]], names: Sequence[str], path: str,
                    title: str = "Win probability over the game") -> None:
    """A line per player: estimated win probability after each annotated decision, by event index
    (every player's value comes from the same search, so the lines sum to 100% at every event).

    Raises:
        RefugeError: matplotlib is missing or the file type is not png/svg/pdf.
    """
    check_chart_path(path)
    plt = pyplot()
    figure, axes = plt.subplots(figsize=(9, 4.5))
    for player, points in sorted(curves.items()):
        label = names[player] if player < len(names) else f"player {player}"
        axes.plot([e for e, _ in points], [100 * w for _, w in points], marker=".",
                  label=f"P{player} {label}", color=PLAYER_COLOURS[player % len(PLAYER_COLOURS)])
    axes.set_ylim(0, 100)
    axes.set_xlabel("event")
    axes.set_ylabel("win probability (%)")
    axes.set_title(title)
    axes.grid(alpha=0.3)
    axes.legend()
    save(figure, path)


def save(figure, path: str) -> None:
    """Lay out, write and close a figure.

    Raises:
        RefugeError: the file cannot be written.
    """
    plt = pyplot()
    figure.tight_layout()
    image = io.BytesIO()
    extension = os.path.splitext(path)[1].lstrip(".").lower() or "png"
    try:
        figure.savefig(image, format=extension)
    except ValueError as error:  # a format matplotlib cannot write
        raise RefugeError(f"{path}: cannot write the chart ({error})") from None
    finally:
        plt.close(figure)
    write_atomically(path, image.getvalue())  # the same checks and atomic replace as every output


def plot_ladder(rated: Sequence[Rated], path: str, order: Sequence[str]) -> None:
    """Strength across versions: one line per agent name, versions in the order they first played.

    Raises:
        RefugeError: matplotlib is missing or the file cannot be written.
    """
    plt = pyplot()
    position = {revision: i for i, revision in enumerate(order)}
    by_name: dict[str, list[Rated]] = defaultdict(list)
    for entry in rated:
        by_name[entry.name].append(entry)
    figure, axes = plt.subplots(figsize=(8, 4.5))
    for name, entries in sorted(by_name.items()):
        entries.sort(key=lambda e: position.get(e.revision, len(order)))
        xs = [position.get(e.revision, len(order)) for e in entries]
        ys = [e.rating.elo for e in entries]
        errors = [[e.rating.elo - e.rating.ci95[0] for e in entries],
                  [e.rating.ci95[1] - e.rating.elo for e in entries]]
        axes.errorbar(xs, ys, yerr=errors, marker="o", capsize=3, label=name)
    axes.set_xticks(range(len(order)), [r or "?" for r in order], rotation=30, ha="right")
    axes.set_xlabel("version (in the order first played)")
    axes.set_ylabel("Elo (95% CI)")
    axes.set_title("Refuge agents across versions")
    axes.legend()
    save(figure, path)


def plot_scaling(curves: dict[str, list[CurvePoint]], path: str,
                 measured: str = "Elo over the smallest budget") -> None:
    """The scaling curve: each family's Elo (`measured`: over its smallest budget, or against a fixed
    opponent) against the iterations (log scale), with the 95% intervals where they are known.

    Raises:
        RefugeError: matplotlib is missing or the file cannot be written.
    """
    plt = pyplot()
    figure, axes = plt.subplots(figsize=(8, 4.5))
    for family, points in curves.items():
        xs = [p.budget for p in points]
        ys = [p.elo for p in points]
        line, = axes.plot(xs, ys, marker="o", label=family)
        known = [p for p in points if p.low is not None and p.high is not None]
        if known:
            axes.errorbar([p.budget for p in known], [p.elo for p in known],
                          yerr=[[p.elo - p.low for p in known],  # type: ignore[operator]
                                [p.high - p.elo for p in known]],  # type: ignore[operator]
                          fmt="none", capsize=3, color=line.get_color())
    axes.set_xscale("log")
    axes.minorticks_off()
    budgets = sorted({p.budget for points in curves.values() for p in points})
    axes.set_xticks(budgets, [f"{b:,}" for b in budgets])
    axes.set_xlabel("iterations per decision")
    axes.set_ylabel(f"{measured} (95% CI)")
    axes.set_title("Strength against search budget")
    axes.grid(alpha=0.3)
    axes.legend()
    save(figure, path)
