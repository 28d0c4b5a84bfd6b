"""Seat shares of identical agents: one game per deal, every seat the same agent, so a seat effect
shows as shares away from 1/players (issue 22). The arena cannot measure this: its seat rotations
replay the same game when the agents are identical.

Deal i is ``players.games.deal_seed(seed, i)`` (the arena's and selfplay's deal); each game's returns
and scores are appended to OUT as a JSON line as it ends, so a stopped run resumes where it was, and
the result does not depend on the worker count. Prints each seat's mean share of the win (C18) with
a 95 % interval (normal, SE over games) and a Wald test of equal shares.

Usage: python -m lab.scripts.seat_shares --agent ismcts:iterations=100 --players 3 --games 600 \
           --seed 22 --out seat3p.jsonl [--route meadows] [--workers 2]
"""

from __future__ import annotations

import argparse
import json
import math
from multiprocessing import Pool
from pathlib import Path
from typing import Any

import numpy as np

from advisor.players.agents import make_agent
from advisor.players.games import deal_seed, play_game


def play_deal(job: tuple[str, int, str, int, int]) -> dict[str, Any]:
    """One game of deal `deal`, agent `spec` in every seat: its returns and scores."""
    spec, players, route, seed, deal = job
    final = play_game([make_agent(spec) for _ in range(players)], route, deal_seed(seed, deal)).position
    return {"deal": deal, "returns": list(final.returns()), "scores": list(final.scores())}


def seat_report(rows: list[dict[str, Any]]) -> list[str]:
    """Per seat: share of the win ± 1.96 SE, outright wins, mean score; then the Wald test."""
    count, players = len(rows), len(rows[0]["returns"])
    returns = np.array([r["returns"] for r in rows], dtype=float)
    lines = [f"games {count}, fair share {1 / players:.3f}"]
    for seat in range(players):
        shares = returns[:, seat]
        half = 1.96 * float(shares.std(ddof=1)) / math.sqrt(count)
        wins = int((shares == 1.0).sum())
        score = sum(r["scores"][seat] for r in rows) / count
        lines.append(f"seat {seat}: share {shares.mean():.3f} ± {half:.3f}  outright wins {wins}  "
                     f"mean score {score:.1f}")
    # The shares sum to 1, so the first players-1 of them carry the test.
    gaps = returns[:, :-1].mean(axis=0) - 1 / players
    covariance = np.atleast_2d(np.cov(returns[:, :-1].T)) / count
    wald = float(gaps @ np.linalg.solve(covariance, gaps))
    freedom = players - 1
    p_value = math.exp(-wald / 2) if freedom == 2 else float("nan")
    lines.append(f"Wald test of equal shares: chi2 {wald:.2f} on {freedom} df"
                 + (f", p = {p_value:.3f}" if freedom == 2 else ""))
    return lines


def main() -> None:
    """Play the missing deals (resuming OUT), then print the seat report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agent", required=True)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--games", type=int, required=True)
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument("--route", default="meadows")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    done = {json.loads(line)["deal"] for line in args.out.read_text().splitlines()} if args.out.exists() else set()
    jobs = [(args.agent, args.players, args.route, args.seed, d) for d in range(args.games) if d not in done]
    with Pool(args.workers) as pool, args.out.open("a") as out:
        for row in pool.imap_unordered(play_deal, jobs):
            out.write(json.dumps(row) + "\n")
            out.flush()
    rows = [r for r in map(json.loads, args.out.read_text().splitlines()) if r["deal"] < args.games]
    print("\n".join(seat_report(rows)))


if __name__ == "__main__":
    main()
