"""The report of a corpus as plain data (the JSON of ``refuge insights report --json``).

Every entry names the agent (its spec holds the budget) and carries its n and 95 % interval. Rows
are streamed from SQLite and folded into small tallies, so memory grows with the number of cells
reported, not with the corpus.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from typing import Any, Iterable

from advisor.insights.corpus import is_buy
from advisor.insights.homing import returns_section
from advisor.insights.players import players_section
from advisor.insights.ranking import BuyCell, ranking_section
from advisor.insights.stats import WIN_DIFFERENCE, Counts, Mean, Share, rounded
from advisor.insights.store import CorpusKey, corpora, open_store
from positions.kernel import phases
from positions.kernel.actions import BUY_BASE
from positions.kernel.tiles import TILES

EARLY_WALKS = 2
"""Walks 1 and 2 are "early", walks 3 to 5 "late"."""
EXPLORER_DEPTH = 3
"""The explorer's buy sequences are followed this many buys deep."""

Row = dict[str, Any]


def walk_label(walk: int) -> str:
    """``early`` (walks 1–2) or ``late`` (walks 3–5)."""
    return "early" if walk < EARLY_WALKS else "late"


def tile_name(action: int) -> str:
    """The tile a buy action buys."""
    return TILES[action - BUY_BASE].name


def build_report(db: str) -> Row:
    """The whole report of the corpus file `db`.

    Raises:
        CorpusStoreError: the file is missing or not a corpus.
    """
    with open_store(db, create=False) as con:
        keys = dict(corpora(con))
        buys = buy_cells(con, keys)
        wins = {cell: win for cell, (win, _, _) in buys.items()}
        seats = seats_section(con, keys)
        return {
            "games": con.execute("SELECT COUNT(*) FROM games").fetchone()[0],
            "corpora": corpus_rows(con, keys),
            "buys": buys_section(buys),
            "ranking": ranking_section(wins),
            "players": players_section(wins, seats),
            "returns": returns_section(con, keys),
            "seats": seats,
            "lengths": lengths_section(con, keys),
            "explorer": explorer_section(con, keys),
        }


def corpus_rows(con: sqlite3.Connection, keys: dict[int, CorpusKey]) -> list[Row]:
    """Each corpus in the file: its key, games, and the play time per 1,000 games."""
    rows = []
    for corpus, key in keys.items():
        games, seconds = con.execute("SELECT COUNT(*), COALESCE(SUM(seconds), 0) FROM games WHERE corpus = ?",
                                     (corpus,)).fetchone()
        counterfactuals = con.execute("SELECT COUNT(*) FROM counterfactuals WHERE corpus = ?",
                                      (corpus,)).fetchone()[0]
        rows.append({"agent": key.agent, "players": key.players, "route": key.route, "seed": key.seed,
                     "counterfactual_every": key.counterfactual_every, "exact_nodes": key.exact_nodes,
                     "games": games, "counterfactuals": counterfactuals,
                     "cpu_seconds_per_1000_games": rounded(1000 * seconds / games, 1) if games else None})
    return rows


def _effect_row(cells: tuple[Mean, Mean, Share]) -> Row:
    win, score, chosen = cells
    return {"n": win.n, "win_effect": rounded(win.mean), "ci95": win.interval(),
            "score_effect": rounded(score.mean, 2), "score_ci95": score.interval(),
            "agent_bought_it": rounded(chosen.mean), "agent_bought_it_ci95": chosen.interval()}


BuyCells = dict[BuyCell, tuple[Mean, Mean, Share]]
"""Per (agent, route, tile, players, walks): the win and score effects and how often the agent bought it."""


def buy_cells(con: sqlite3.Connection, keys: dict[int, CorpusKey]) -> BuyCells:
    """Per tile (and ``any``: every tile tested), route, player count (and ``all``) and walks (each
    walk ``1``–``5``, ``early``, ``late``, ``all``): the paired effect of buying the tile instead of
    passing on the buyer's win share and final score, and how often the agent chose that tile."""
    cells: BuyCells = defaultdict(lambda: (Mean(bounds=WIN_DIFFERENCE), Mean(), Share()))
    query = ("SELECT corpus, walk, chosen, first, first_return, second_return, first_score, "
             "second_score FROM counterfactuals WHERE kind = 'buy'")
    for corpus, walk, chosen, first, r1, r2, s1, s2 in con.execute(query):
        key = keys[corpus]
        for players in (key.players, "all"):
            for walks in (str(walk + 1), walk_label(walk), "all"):
                for tile in (tile_name(first), "any"):
                    win, score, bought = cells[(key.agent, key.route, tile, players, walks)]
                    win.add(r1 - r2)
                    score.add(s1 - s2)
                    bought.add(float(chosen == first))
    return cells


def buys_section(cells: BuyCells) -> list[Row]:
    """The buy effects of :func:`buy_cells` as rows."""
    rows = []
    for (agent, route, tile, players, walks), tally in sorted(cells.items(), key=lambda kv: str(kv[0])):
        rows.append({"agent": agent, "route": route, "tile": tile, "players": players, "walks": walks,
                     "versus": "pass", **_effect_row(tally)})
    return rows


def seats_section(con: sqlite3.Connection, keys: dict[int, CorpusKey]) -> list[Row]:
    """Per agent, player count (over all routes, and per route) and seat: the seat's share of the
    win (a shared win counts 1/k) with its Wilson 95 % interval."""
    cells: dict[tuple[str, int, str, int], Share] = defaultdict(Share)
    for corpus, returns in con.execute("SELECT corpus, returns FROM games"):
        key = keys[corpus]
        for seat, share in enumerate(json.loads(returns)):
            for route in (key.route, "all"):
                cells[(key.agent, key.players, route, seat)].add(share)
    return [{"agent": agent, "players": players, "route": route, "seat": seat + 1, "n": m.n,
             "win_share": rounded(m.mean), "ci95": m.interval(), "fair_share": rounded(1 / players)}
            for (agent, players, route, seat), m in sorted(cells.items())]


def _distribution(counts: Counts, mean: Mean) -> Row:
    return {"n": mean.n, "mean": rounded(mean.mean, 2), "ci95": mean.interval(), "sd": rounded(mean.sd, 2),
            "p10": counts.quantile(0.1), "median": counts.quantile(0.5), "p90": counts.quantile(0.9),
            "histogram": [[value, count] for value, count in sorted(counts.counts.items())]}


def lengths_section(con: sqlite3.Connection, keys: dict[int, CorpusKey]) -> list[Row]:
    """Per agent, player count and route: the game's length in turns, every seat's final score, the
    winner's score and the winning margin, as distributions."""
    cells: dict[tuple[str, int, str], dict[str, tuple[Counts, Mean]]] = defaultdict(
        lambda: {name: (Counts(), Mean()) for name in ("turns", "score", "winner_score", "margin")})
    for corpus, turns, scores_text in con.execute("SELECT corpus, turns, scores FROM games"):
        key = keys[corpus]
        scores = json.loads(scores_text)
        ranked = sorted(scores, reverse=True)
        values = {"turns": [turns], "score": scores, "winner_score": [ranked[0]],
                  "margin": [ranked[0] - ranked[1]]}
        for route in (key.route, "all"):
            tally = cells[(key.agent, key.players, route)]
            for name, items in values.items():
                for value in items:
                    tally[name][0].add(value)
                    tally[name][1].add(value)
    return [{"agent": agent, "players": players, "route": route,
             **{name: _distribution(*pair) for name, pair in tally.items()}}
            for (agent, players, route), tally in sorted(cells.items())]


def first_walk_buys(con: sqlite3.Connection) -> Iterable[tuple[int, int, int, tuple[str, ...], float, int]]:
    """(corpus, game, seat, the tiles bought in walk 1 in order, the seat's share of the win, its
    final score) for every seat of every game, streamed."""
    query = (f"SELECT d.corpus, d.game, d.seat, d.action, g.returns, g.scores FROM decisions d "
             f"JOIN games g ON g.corpus = d.corpus AND g.idx = d.game "
             f"WHERE d.walk = 0 AND d.phase = {phases.BUY} ORDER BY d.corpus, d.game, d.seat, d.event")
    current: tuple[int, int, int] | None = None
    outcome: tuple[float, int] = (0.0, 0)
    bought: list[str] = []
    for corpus, game, seat, action, returns, scores in con.execute(query):
        if (corpus, game, seat) != current:
            if current is not None:
                yield (*current, tuple(bought), *outcome)
            current, bought = (corpus, game, seat), []
            outcome = (json.loads(returns)[seat], json.loads(scores)[seat])
        if is_buy(action):
            bought.append(tile_name(action))
    if current is not None:
        yield (*current, tuple(bought), *outcome)


def explorer_section(con: sqlite3.Connection, keys: dict[int, CorpusKey]) -> list[Row]:
    """lichess's explorer over the first walk's buys: per route, player count and buy sequence (up to
    :data:`EXPLORER_DEPTH` buys; ``[]`` is every seat), the seats that bought so, their share of the
    win with its Wilson interval, and their mean final score."""
    cells: dict[tuple[str, int, str, tuple[str, ...]], tuple[Share, Mean, list[int]]] = defaultdict(
        lambda: (Share(), Mean(), [0]))
    for corpus, _, _, bought, share_of_win, final_score in first_walk_buys(con):
        key = keys[corpus]
        depth = min(len(bought), EXPLORER_DEPTH)
        for length in range(depth + 1):
            share, score, complete = cells[(key.agent, key.players, key.route, bought[:length])]
            share.add(share_of_win)
            score.add(final_score)
            complete[0] += length == len(bought)
    return [{"agent": agent, "players": players, "route": route, "sequence": list(sequence),
             "n": share.n, "ended_here": complete[0], "win_share": rounded(share.mean),
             "ci95": share.interval(), "mean_score": rounded(score.mean, 2), "score_ci95": score.interval()}
            for (agent, players, route, sequence), (share, score, complete) in sorted(cells.items())]
