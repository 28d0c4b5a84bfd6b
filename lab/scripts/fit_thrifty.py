"""How the thrifty heuristic's saving rule was found and fitted (issue 27, docs/strength.md).

1. ``--db FILE`` (an arena database, e.g. ``refuge scaling``'s of 4,000 against 1,000 iterations):
   how often the greedy heuristic and the thrifty one choose what each stored agent chose, by kind
   of decision. The deep searches pass at most of the buys where the greedy heuristic buys.
   ``--buys`` with it: instead, what each agent bought before the last walk and how often it kept
   its Steps (issue 27: why an evaluator plays worse).
2. ``--grid``: the saving rule's two constants (``save_ratio`` × the bag's mean worth +
   ``save_margin``) by paired bot games against the greedy bot (seeded deals, every seat
   rotation), best first; ``--players 3`` or ``4`` for the larger tables.

Usage: .venv/bin/python -m lab.scripts.fit_thrifty [--db FILE [--buys]] [--grid] [--deals 300] [--players 2]
           [--seed 20000]
"""

from __future__ import annotations

import argparse
import itertools
import sys

from tabulate import tabulate

from lab.decisions import agreement, buy_profiles, stored_decisions
from advisor.players.agents import PolicyAgent
from advisor.players.bots import greedy_bot
from advisor.players.games import play_game
from positions.kernel.heuristics import THRIFTY_ROLLOUT, HeuristicPolicy
from positions import ROUTES
from positions.errors import RefugeError

RATIOS = (0.0, 0.5, 1.0, 1.3)
MARGINS = (1.0, 2.0, 3.0, 4.0, 5.0)


def paired_score(policy: HeuristicPolicy, deals: int, players: int, seed: int) -> float:
    """`policy`'s mean win share against greedy bots in the other seats, over `deals` deals (routes
    in turn) each played once per seat it can take."""
    total = 0.0
    for deal in range(deals):
        route = tuple(ROUTES)[deal % len(ROUTES)]
        for seat in range(players):
            bots = [greedy_bot()] * players
            bots[seat] = policy
            game = play_game([PolicyAgent(b.name, b) for b in bots], route, seed + deal)
            total += game.position.returns()[seat]
    return total / (deals * players)


def agreement_table(db: str) -> None:
    """Print each stored agent's agreement with the greedy and the thrifty heuristic, by kind."""
    decisions = list(stored_decisions(db))
    rows = []
    for agent in sorted({d.agent for d in decisions}):
        for name, policy in (("greedy", greedy_bot()), ("thrifty", THRIFTY_ROLLOUT)):
            kinds = agreement(decisions, policy, agent)
            rows += [(agent, name, kind, a.decisions, f"{a.share:.3f}") for kind, a in sorted(kinds.items())]
    print(tabulate(rows, headers=("stored agent", "heuristic", "decision", "decisions", "same choice")))


def buys_table(db: str) -> None:
    """Print what each stored agent bought before the last walk and how often it kept its Steps."""
    rows = [(agent, p.decisions, p.kept, f"{p.kept_share:.3f}", ", ".join(f"{name} {n}" for name, n in p.bought))
            for agent, p in buy_profiles(stored_decisions(db)).items()]
    print(tabulate(rows, headers=("stored agent", "buy decisions", "kept Steps", "share", "bought, most first"),
                   disable_numparse=True))


def grid(deals: int, players: int, seed: int) -> None:
    """Print the saving rule's grid against greedy, best first."""
    rows = []
    for ratio, margin in itertools.product(RATIOS, MARGINS):
        policy = HeuristicPolicy(1.8, "max_value", save_ratio=ratio, save_margin=margin)
        rows.append((paired_score(policy, deals, players, seed), ratio, margin))
        print(f"save_ratio {ratio} save_margin {margin}: {rows[-1][0]:.3f}", file=sys.stderr,
              flush=True)
    rows.sort(reverse=True)
    print(tabulate([(r, m, f"{s:.3f}") for s, r, m in rows],
                   headers=("save_ratio", "save_margin",
                            f"score vs greedy ({players} players, {deals} deals)")))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="an arena database: agreement of the heuristics with its agents")
    parser.add_argument("--buys", action="store_true", help="with --db: each agent's buys, not the agreement")
    parser.add_argument("--grid", action="store_true", help="the saving rule's grid against greedy")
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--seed", type=int, default=20_000, help="the first deal's seed")
    args = parser.parse_args(argv)
    if not args.db and not args.grid:
        parser.error("give --db FILE, --grid or both")
    if args.buys and not args.db:
        parser.error("--buys reads an arena database: give --db FILE")
    if args.deals < 1:
        parser.error(f"--deals must be at least 1, got {args.deals}")
    try:
        if args.db:
            (buys_table if args.buys else agreement_table)(args.db)
        if args.grid:
            grid(args.deals, args.players, args.seed)
    except RefugeError as error:
        print(f"fit_thrifty.py: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
