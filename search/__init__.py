"""Search for Refuge-like games: ISMCTS, rollout policies and an exact solver (no game imports)."""
