"""Who plays — heuristic policy, bots, agent specs and registry, the engine protocol, a game between agents; imports search, positions."""
