"""The phases of a turn (C6–C14) and the ids that stand for chance and the end of the game."""

DECIDE = 0
"""Simultaneous: each walking player returns or draws (C6)."""
RETURN_DISCARD = 1
"""A returning player may discard one walk tile of their path (C15)."""
DEAL = 2
"""Chance: a drawing player's 2 (or 1) tiles (C7)."""
CHOOSE = 3
"""Simultaneous: each player with two walk tiles in hand picks one to play (C8)."""
OPTION = 4
"""The player resolving a tile picks one of its "X OR Y" options (C9)."""
DISCARD = 5
"""The player resolving Cairn / Hiker / Cave picks a discard target (C11)."""
EXTRA = 6
"""An additional play: play the second tile or draw a new one (C10)."""
EXTRA_DRAW = 7
"""Chance: the tile drawn for an additional play (C10)."""
BUY = 8
"""Simultaneous: each walking player buys one tile or passes (C12)."""
TIEBREAK = 9
"""Chance: who gets the last tiles of a contested stack (C12)."""
WEATHER = 10
"""Chance: the weather tile turned at the end of the turn (C13)."""
OVER = 11
"""The game has ended (C18)."""

NAMES = ("decide", "return-discard", "deal", "choose", "option", "discard", "extra",
         "extra-draw", "buy", "tiebreak", "weather", "over")
SIMULTANEOUS = frozenset((DECIDE, CHOOSE, BUY))
RESOLVING = (OPTION, DISCARD, EXTRA, EXTRA_DRAW)
"""Phases in which the actor resolves a played tile and the later players' plays are public."""
CHANCE_PHASES = frozenset((DEAL, EXTRA_DRAW, TIEBREAK, WEATHER))

CHANCE_PLAYER = -1
TERMINAL_PLAYER = -2
