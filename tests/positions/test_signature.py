"""The rules signature: 200 seeded random games hash to a stored value (tests/data/signature.json).

Any change in behaviour (legal actions, their order, chance outcomes, automatic moves, scores) changes
the hash. If the change is deliberate, bump ``RULES_VERSION`` in positions/kernel/rulesets.py and rewrite the
file with ``.venv/bin/python tests/positions/test_signature.py --update``.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path

from builders import random_step
from positions import RULES_VERSION, ROUTES, Position, Route, parse_route

SIGNATURE_FILE = Path(__file__).parent.parent / "data" / "signature.json"
GAMES = 200
CUSTOM_ROUTE = parse_route("compass, camera, hiker, map, fox, bird, cave, starry_night")
ROUTE_CYCLE: tuple[Route, ...] = (ROUTES["meadows"], ROUTES["forest"], ROUTES["mountains"],
                                  CUSTOM_ROUTE)


def signature(games: int = GAMES) -> dict[str, object]:
    """The sha256 of every game's action notation and final scores, with counts."""
    digest = hashlib.sha256()
    actions = 0
    for seed in range(games):
        players = 2 + seed % 3
        route = ROUTE_CYCLE[seed % len(ROUTE_CYCLE)]
        prefer_draw = 0.8 if seed % 2 else 0.0
        rng = random.Random(seed)
        pos = Position.new_game(players, route)
        played = []
        while not pos.is_terminal():
            played.append(str(random_step(pos, rng, prefer_draw)))
        actions += len(played)
        digest.update(f"game {seed} {players} {','.join(map(str, route.kinds))}\n".encode())
        digest.update(("\n".join(played) + f"\nscores {pos.scores()}\n").encode())
    return {"rules_version": RULES_VERSION, "games": games, "actions": actions,
            "sha256": digest.hexdigest()}


def test_rules_signature_is_unchanged() -> None:
    """Determinism and stability: the fixed seeds replay exactly the stored games."""
    stored = json.loads(SIGNATURE_FILE.read_text())
    current = signature(stored["games"])
    how = ("The engine's behaviour changed: seeded random games no longer replay as before. If the "
           "change is deliberate, bump RULES_VERSION in positions/kernel/rulesets.py and run "
           "`.venv/bin/python tests/positions/test_signature.py --update` to rewrite tests/data/signature.json; "
           "otherwise this is a regression.")
    assert current["sha256"] == stored["sha256"], f"{how}\nstored {stored}\ncurrent {current}"
    assert stored["rules_version"] == RULES_VERSION, (
        f"RULES_VERSION is {RULES_VERSION} but the signature was recorded for "
        f"{stored['rules_version']}: rewrite tests/data/signature.json with --update.")


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        print(json.dumps(signature(), indent=2))
        sys.exit(0)
    SIGNATURE_FILE.write_text(json.dumps(signature(), indent=2) + "\n")
    print(f"wrote {SIGNATURE_FILE}")
