"""Rulesets: the rule facts a user who owns the box may correct (C1, C5, C16), as data."""

from __future__ import annotations

from typing import NamedTuple

from positions.kernel.tiles import KIND_BY_NAME, STORM, Kind

RULES_VERSION = "1.1.0"
"""Changes whenever the engine's behaviour changes; saved files carry it."""


class Ruleset(NamedTuple):
    """The data that parameterises the rules."""

    name: str
    start_bag: tuple[Kind, ...]
    """Each player's 11 start tiles, Storms included (C1)."""
    storm_thresholds: tuple[tuple[int, int], ...]
    """(player count, Storms on the track that make the Storm hit) (C5)."""
    penalised_kinds: tuple[Kind, ...] | None
    """Kinds that cost a Step when the Storm hits; ``None``: every walk tile (C16)."""
    walks: int = 5
    start_steps: int = 2
    deck_suns: int = 4
    deck_storms: int = 4
    reserve_storms: int = 5
    stack_size: int = 4

    def storm_threshold(self, players: int) -> int:
        """Storms on the track at which the Storm hits with this many players (C5)."""
        for count, threshold in self.storm_thresholds:
            if count == players:
                return threshold
        raise KeyError(players)

    @property
    def player_counts(self) -> tuple[int, ...]:
        """The player counts this ruleset supports."""
        return tuple(count for count, _ in self.storm_thresholds)

    def is_penalised(self, kind: Kind) -> bool:
        """Whether a tile of this kind in a path costs a Step when the Storm hits (C16)."""
        return self.penalised_kinds is None or kind in self.penalised_kinds

    def to_ints(self) -> tuple[int, ...]:
        """The rule facts as ints (the name left out), as the state encoding writes them
        (docs/determinism.md): the start bag, the thresholds as pairs, the penalised kinds (-1 for
        ``None``), then walks, start Steps, deck Suns and Storms, reserve Storms and stack size."""
        penalised = (-1,) if self.penalised_kinds is None else (len(self.penalised_kinds), *self.penalised_kinds)
        thresholds = tuple(n for pair in self.storm_thresholds for n in pair)
        return (len(self.start_bag), *self.start_bag, len(self.storm_thresholds), *thresholds, *penalised,
                self.walks, self.start_steps, self.deck_suns, self.deck_storms, self.reserve_storms,
                self.stack_size)

    @property
    def start_storms(self) -> int:
        """Storms in each player's start bag."""
        return self.start_bag.count(STORM)


def _bag(**counts: int) -> tuple[Kind, ...]:
    return tuple(sorted(KIND_BY_NAME[name] for name, n in counts.items() for _ in range(n)))


DEFAULT_RULESET = Ruleset(
    name="default",
    start_bag=_bag(storm=2, sign=2, signpost=2, small_orientation_table=1,
                   butterfly=2, hedgehog=1, squirrel=1),
    storm_thresholds=((2, 6), (3, 7), (4, 9)),
    penalised_kinds=None,
)
"""C1 start bag, C5 thresholds, C16 every walk tile penalised."""

RULESETS: dict[str, Ruleset] = {DEFAULT_RULESET.name: DEFAULT_RULESET}
