"""The facts behind a return-or-draw decision: Storm risk, animal points at stake, Steps at risk."""

from __future__ import annotations

import random
from dataclasses import dataclass

from positions import Position
from positions.actions import DRAW
from positions.phases import BUY, DECIDE, TIEBREAK, WEATHER
from positions.rules import paw_total, storm_penalty


@dataclass(frozen=True)
class ReturnFacts:
    """What a player weighs when deciding to return to the refuge or draw again (C6, C15, C16)."""

    storms_on_track: int
    threshold: int
    hit_chance_this_turn: float
    """Estimated chance that the Storm hits at the end of this turn if the player draws."""
    hit_chance_weather_only: float
    """Chance that the weather tile alone makes the Storm hit this turn (exact)."""
    animal_points: int
    """Paw points scored by returning now, lost if the Storm hits (C15, C16)."""
    steps_at_risk: int
    """Steps the Storm would cost now (one per penalised tile, C16)."""
    vp_at_risk: int
    """Victory points the Storm would cost now for want of Steps (C16, floor 0)."""
    samples: int

    def lines(self) -> list[str]:
        """The facts as short sentences."""
        return [
            f"Storms on the track: {self.storms_on_track}/{self.threshold} "
            f"({self.threshold - self.storms_on_track} more and the Storm hits)",
            f"Chance the Storm hits at the end of this turn if you draw: "
            f"{100 * self.hit_chance_this_turn:.1f}% (weather tile alone: "
            f"{100 * self.hit_chance_weather_only:.1f}%; estimate from {self.samples} samples)",
            f"Animal points at stake (scored if you return now): {self.animal_points}",
            f"At risk if the Storm hits: {self.steps_at_risk} Steps"
            + (f" and {self.vp_at_risk} VP" if self.vp_at_risk else ""),
        ]


def weather_hit_chance(pos: Position) -> float:
    """Chance that this turn's weather tile alone brings the Storms to the threshold (C13)."""
    missing = pos.threshold - pos.storms_on_track()
    if missing <= 0:
        return 1.0
    if missing > 1:
        return 0.0
    deck = pos.deck_suns + pos.deck_storms
    if deck == 0:
        return 1.0 if pos.reserve else 0.0
    return pos.deck_storms / deck


def _hit_chance_after_plays(state: Position) -> float:
    """Chance the Storm hits at the end of the turn once every tile of the turn has been played."""
    missing = state.threshold - state.storms_on_track()
    if missing <= 0:
        return 1.0
    return weather_hit_chance(state)


def return_facts(pos: Position, samples: int = 2000, seed: int = 0) -> ReturnFacts | None:
    """The facts for the player to decide at a return-or-draw decision; ``None`` elsewhere.

    The chance of a hit this turn is estimated by playing the rest of the turn's draws and plays at
    random (the other players' return-or-draw choices too) and taking the weather tile's exact odds.
    """
    if pos.phase != DECIDE or pos.current_player() < 0:
        return None
    player = pos.current_player()
    rng = random.Random(seed)
    total = 0.0
    for _ in range(samples):
        state = pos.determinize(player, rng)
        state.apply(DRAW)
        while state.phase not in _AFTER_PLAYS and (state.walk, state.turn) == (pos.walk, pos.turn):
            if state.is_chance():
                state.apply(state.sample_chance(rng))
            else:
                legal = state.legal_actions()
                state.apply(legal[int(rng.random() * len(legal))])
        if state.walk != pos.walk:
            total += 1.0  # the walk ended with this player still walking: only the Storm does that
        elif state.turn == pos.turn:
            total += _hit_chance_after_plays(state)
    penalty = storm_penalty(pos, player)
    steps = pos.steps[player]
    return ReturnFacts(
        storms_on_track=pos.storms_on_track(),
        threshold=pos.threshold,
        hit_chance_this_turn=total / samples,
        hit_chance_weather_only=weather_hit_chance(pos),
        animal_points=paw_total(pos.paths[player]),
        steps_at_risk=min(penalty, steps),
        vp_at_risk=min(max(0, penalty - steps), pos.vp[player]),
        samples=samples,
    )


_AFTER_PLAYS = frozenset((BUY, TIEBREAK, WEATHER))
