"""Generate the value-accuracy benchmark's positions with their exact values (issue 12, item 5).

Plays seeded games of heuristic players (2-4 players, the three routes in turn; see
``lab.endgames``) and keeps decisions of the last walk where one player is still
walking, so the exact solver applies: a quota per decision kind (decide, choose, option, discard,
extra = an additional play, buy), spread over player counts and routes, each a
real choice (the options differ for the decider; mostly in win share) solved within ``--max-nodes`` positions (a few
seconds). Writes benchmarks/data/value_positions.json; the fields are described at its top and in
docs/performance.md. Same arguments, same file.

Usage: .venv/bin/python -m lab.scripts.make_value_positions [--seed 0] [--max-nodes 40000]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path


from lab.endgames import (
    best_play_chances, exact_options, is_contested, is_real_choice, single_walker_stops,
)
from positions import ROUTES, RULES_VERSION, Position, parse_action
from positions.kernel import phases
from positions.kernel.actions import action_from_code
from positions.saved import compact_json, parse_position, position_to_data
from search.errors import SolverLimitError
from search.solver import SolverResult, solve

OUT = Path(__file__).resolve().parent.parent / "benchmarks" / "data" / "value_positions.json"
FORMAT = "refuge-value-positions/1"
ROUTE_ORDER = tuple(ROUTES)
QUOTAS = {"decide": 16, "choose": 13, "option": 11, "buy": 11, "discard": 7, "extra": 6}
"""Positions per decision kind (engine phase names; ``extra`` is an additional play, C10). No
return-discard: for the last walker it changes nothing (C15 scores the paws first, C17 ends)."""
PER_GAME = 2
"""At most this many positions from one game, of different kinds."""
SCORE_ONLY_SHARE = 4
"""At most 1 in this many positions of a kind may have equal win shares for every option (the
expected score decides, as in issue 12's additional play); the others are contested."""
FIELDS = {
    "format": "refuge-value-positions/1",
    "rules_version": "the rules the values hold for (positions.RULES_VERSION)",
    "generator": "the script and the arguments that write this file",
    "positions[].id": "a stable name: index, players, route, decision kind",
    "positions[].players, route, seed": "the game: Position.new_game(players, route), heuristic "
                                        "players seeded by seed (lab.endgames)",
    "positions[].actions": "every action from the new game to the position, in notation",
    "positions[].position": "the same position as a refuge-position/1 document (for best-move)",
    "positions[].phase": "the decision kind: decide, choose, option, discard, extra (an "
                         "additional play), buy",
    "positions[].player": "the player to decide (the only one still walking)",
    "positions[].nodes": "distinct positions the exact solver evaluated",
    "positions[].options[]": "every legal option in the game's order: action, the decider's "
                             "win_probability and expected_score (floats) and win_exact, "
                             "score_exact (fractions as text, e.g. \"13/72\"), and players[]: "
                             "every player's win and score after this option under best play",
    "positions[].best": "the exactly best option: highest win share, then expected score, then "
                        "lowest action code",
    "positions[].chances": "every player's exact win chance and expected score when the decider "
                           "plays the best option (win chances sum to 1, shared wins 1/k, C18)",
}


def game_setup(index: int) -> tuple[int, str]:
    """The players and route of the `index`-th game: player counts and routes in turn."""
    return 2 + index % 3, ROUTE_ORDER[(index // 3) % 3]


def entry_for(index: int, players: int, route: str, seed: int, actions: list[str], pos: Position,
              result: SolverResult) -> dict[str, object]:
    """One benchmark position with its exact values."""
    phase = phases.NAMES[pos.phase]
    return {"id": f"v{index:02d}-{players}p-{route}-{phase}", "players": players, "route": route,
            "seed": seed, "actions": actions, "position": position_to_data(pos),
            "phase": phase, "player": result.player, "nodes": result.nodes,
            "options": exact_options(result), "best": str(action_from_code(result.best)),
            "chances": best_play_chances(result)}


def check_entry(entry: dict[str, object], pos: Position, result: SolverResult) -> None:
    """The saved document and the action list give the position that was solved."""
    loaded = parse_position(entry["position"]).position
    assert loaded.solver_key() == pos.solver_key(), entry["id"]
    replayed = Position.new_game(pos.players, pos.route)
    for text in entry["actions"]:  # type: ignore[attr-defined]
        replayed.apply(parse_action(text))
    assert replayed.solver_key() == pos.solver_key(), entry["id"]
    assert all(sum(o.value.wins) == 1 for o in result.options), entry["id"]


def collect(seed: int, max_nodes: int, max_games: int) -> list[dict[str, object]]:
    """Positions by quota from games seed*100000, seed*100000 + 1, ... (at most `max_games`)."""
    found: list[dict[str, object]] = []
    kinds: Counter[str] = Counter()
    cells: Counter[tuple[str, int, str]] = Counter()
    score_only: Counter[str] = Counter()
    cell_cap = {kind: -(-quota // 6) + 1 for kind, quota in QUOTAS.items()}
    for index in range(max_games):
        if all(kinds[kind] >= quota for kind, quota in QUOTAS.items()):
            break
        players, route = game_setup(index)
        game_seed = seed * 100_000 + index
        taken: set[str] = set()
        for actions, pos in single_walker_stops(players, route, game_seed):
            phase = phases.NAMES[pos.phase]
            if (len(taken) >= PER_GAME or phase in taken or kinds[phase] >= QUOTAS.get(phase, 0)
                    or cells[(phase, players, route)] >= cell_cap[phase]):
                continue
            started = time.perf_counter()
            try:
                result = solve(pos, max_nodes=max_nodes)
            except SolverLimitError:
                continue
            if not is_real_choice(result):
                continue
            if not is_contested(result):
                if score_only[phase] >= QUOTAS[phase] // SCORE_ONLY_SHARE:
                    continue
                score_only[phase] += 1
            entry = entry_for(len(found), players, route, game_seed, actions, pos, result)
            check_entry(entry, pos, result)
            found.append(entry)
            taken.add(phase)
            kinds[phase] += 1
            cells[(phase, players, route)] += 1
            print(f"{entry['id']}: {result.nodes} positions in {time.perf_counter() - started:.2f} s, "
                  f"best {entry['best']}", flush=True)
    missing = {kind: quota - kinds[kind] for kind, quota in QUOTAS.items() if kinds[kind] < quota}
    if missing:
        print(f"short of the quotas after {max_games} games: {missing}", file=sys.stderr)
    return found


def main() -> None:
    """Collect the positions and write the file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0, help="base seed of the games")
    parser.add_argument("--max-nodes", type=int, default=40_000, help="solver budget per position")
    parser.add_argument("--max-games", type=int, default=20_000, help="give up after this many games")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    found = collect(args.seed, args.max_nodes, args.max_games)
    document = {"_fields": FIELDS, "format": FORMAT, "rules_version": RULES_VERSION,
                "generator": {"script": "lab/scripts/make_value_positions.py", "seed": args.seed,
                              "max_nodes": args.max_nodes, "max_games": args.max_games},
                "positions": found}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(compact_json(document) + "\n")
    print(f"wrote {len(found)} positions to {args.out}")


if __name__ == "__main__":
    main()
