"""Advice on positions and games — best move, return-or-draw facts, annotation, tree export; imports players, search, positions."""
