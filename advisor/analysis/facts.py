"""The facts behind a return-or-draw decision: Storm risk, animal points at stake, Steps at risk."""

from __future__ import annotations

import random
from dataclasses import dataclass

from positions.kernel.heuristics import DEFAULT_ROLLOUT
from positions import Position
from positions.render import plural
from positions.kernel.tiles import STORM
from positions.kernel.actions import DRAW, RETURN
from positions.kernel.phases import BUY, DECIDE, TIEBREAK, WEATHER
from positions.kernel.rules import paw_total, storm_penalty, storm_vp_loss, storms_to_hit, weather_hit_chance


@dataclass(frozen=True)
class ReturnFacts:
    """What a player weighs when deciding to return to the refuge or draw again (C6, C15, C16)."""

    storms_on_track: int
    threshold: int
    storms_to_hit: int
    """How many more Storms make the Storm hit (``Position.storms_to_hit``)."""
    hit_chance_this_turn: float
    """Chance that the Storm hits at the end of this turn if the player draws, i.e. before their
    next return-or-draw decision."""
    hit_chance_this_turn_exact: bool
    """Whether that chance is exact (no draw this turn can change it) rather than estimated."""
    hit_chance_weather_only: float
    """Chance that the weather tile alone makes the Storm hit this turn (exact)."""
    hit_chance_walk: float
    """Estimated chance that the Storm catches the player before the end of the walk if they draw
    now and every walker then plays like the search's continuation (the heuristic)."""
    animal_points: int
    """Paw points scored by returning now, lost if the Storm hits (C15, C16)."""
    tiles_at_risk: int
    """Penalised tiles the Storm would find in the path if the player draws: the path now plus the
    tile they would play (C9, C16), counted when every tile left in the bag is penalised."""
    steps_at_risk: int
    """Steps the Storm would cost if it hits this turn after a draw (one per penalised tile, C16)."""
    vp_at_risk: int
    """Victory points it would cost for want of Steps (C16, floor 0)."""
    samples: int
    """Playouts behind the estimates."""

    def lines(self) -> list[str]:
        """The facts as short sentences."""
        how = "exact" if self.hit_chance_this_turn_exact else f"estimated from {self.samples} playouts"
        return [
            f"Storms on the track: {self.storms_on_track}/{self.threshold} "
            f"({storm_words(self.storms_to_hit)})",
            f"Chance the Storm hits before your next return-or-draw decision (end of this turn) if "
            f"you draw: {100 * self.hit_chance_this_turn:.1f}% ({how}; weather tile alone: "
            f"{100 * self.hit_chance_weather_only:.1f}%, exact)",
            f"Chance the Storm catches you before the end of the walk if you draw: "
            f"{100 * self.hit_chance_walk:.1f}% (estimated from {self.samples} playouts of the "
            f"search's continuation)",
            f"Animal points at stake (scored if you return now): {self.animal_points}",
            f"Penalty if you draw and the Storm hits this turn: {plural(self.steps_at_risk, 'Step')}"
            + (f" and {self.vp_at_risk} VP" if self.vp_at_risk else "")
            + f" (1 Step for each of the {plural(self.tiles_at_risk, 'tile')} of your path with the "
            "tile you would play, 1 VP for each Step you cannot pay; rule C16: the Storm penalises "
            "the paths of the players still walking)",
        ]


def storm_words(missing: int) -> str:
    """``1 more Storm and it hits``, ``2 more Storms and it hits``, ``the Storm has hit``."""
    if missing <= 0:
        return "the Storm has hit"
    return f"{missing} more {'Storm' if missing == 1 else 'Storms'} and it hits"


def _hit_chance_after_plays(state: Position) -> float:
    """Chance the Storm hits at the end of the turn once every tile of the turn has been played."""
    return weather_hit_chance(state)


def _turn_hit_is_certain(pos: Position) -> bool:
    """Whether no draw of this turn can change whether the Storm hits at its end: it already will,
    or even every Storm left in the walkers' bags plus the weather tile cannot reach the threshold."""
    missing = storms_to_hit(pos)
    if missing <= 0:
        return True
    in_bags = sum(pos.bags[p].count(STORM) for p in range(pos.players) if pos.walking[p])
    return in_bags + 1 < missing


def storm_odds_if_drawing(pos: Position, samples: int, seed: int) -> tuple[float, float]:
    """Estimated chances that the Storm hits the deciding player (this turn, before the end of the
    walk) if they draw now, every later decision made by the search's continuation (the heuristic).

    This turn's chance takes the weather tile's exact odds once the turn's plays are over.
    """
    player = pos.current_player()
    rng = random.Random(seed)
    turn = walk = 0.0
    for _ in range(samples):
        state = pos.determinize(player, rng)
        state.apply(DRAW)
        safe = counted = False
        while state.walk == pos.walk and not state.is_terminal() and not safe:
            if not counted and (state.phase in _AFTER_PLAYS or state.turn != pos.turn):
                counted = True
                turn += _hit_chance_after_plays(state) if state.turn == pos.turn else 1.0
            if state.is_chance():
                state.apply(state.sample_chance(rng))
                continue
            action = DEFAULT_ROLLOUT.choose(state, rng)
            safe = state.current_player() == player and state.phase == DECIDE and action == RETURN
            state.apply(action)
        if not counted and state.walk != pos.walk:
            turn += 1.0  # the walk ended with this player still walking: only the Storm does that
        walk += not safe
    return turn / samples, walk / samples


def return_facts(pos: Position, samples: int = 1000, seed: int = 0) -> ReturnFacts | None:
    """The facts for the player to decide at a return-or-draw decision; ``None`` elsewhere.

    The chance of a hit this turn is exact when no draw can change it; otherwise it and the chance
    of a hit before the end of the walk are estimated by `samples` playouts
    (:func:`storm_odds_if_drawing`).
    """
    if pos.phase != DECIDE or pos.current_player() < 0:
        return None
    player = pos.current_player()
    turn, walk = storm_odds_if_drawing(pos, samples, seed)
    exact = _turn_hit_is_certain(pos)
    if exact:
        turn = 1.0 if pos.storms_to_hit() <= 0 else 0.0
    walk_tiles = [k for k in pos.bags[player] if k != STORM]
    played = bool(walk_tiles) and all(pos.ruleset.is_penalised(k) for k in walk_tiles)
    penalty = storm_penalty(pos, player) + played
    steps = pos.steps[player]
    return ReturnFacts(
        storms_on_track=pos.storms_on_track(),
        threshold=pos.threshold,
        storms_to_hit=pos.storms_to_hit(),
        hit_chance_this_turn=turn,
        hit_chance_this_turn_exact=exact,
        hit_chance_weather_only=weather_hit_chance(pos),
        hit_chance_walk=max(walk, turn),  # the walk includes this turn; two estimators, one order
        animal_points=paw_total(pos.paths[player]),
        tiles_at_risk=penalty,
        steps_at_risk=min(penalty, steps),
        vp_at_risk=min(storm_vp_loss(penalty, steps), pos.vp[player]),
        samples=samples,
    )


_AFTER_PLAYS = frozenset((BUY, TIEBREAK, WEATHER))
