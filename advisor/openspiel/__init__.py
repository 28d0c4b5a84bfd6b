"""Refuge as an OpenSpiel game and OpenSpiel's ISMCTS as an agent (the [openspiel] extra); imports players, positions."""
