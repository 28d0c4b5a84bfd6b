"""The rules kernel: the state, every rule, the Position verbs, the game data and the heuristic rollout policy."""
