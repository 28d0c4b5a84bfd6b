"""The Refuge heuristics: a rule-of-thumb player used as a bot and as the default rollout policy.

It reads only what its player may know: public facts (bags, paths, weather, market, scores are all
seen by everyone, C7) and its own hand; never another player's unrevealed choice (``pending``).
This module is on the rollout hot path; the native core copies it (native/core/src/heuristic.rs).
"""

from __future__ import annotations

import random
from typing import Sequence

from positions.kernel import phases
from positions.kernel.actions import (
    BUY_BASE, DISCARD_NONE_CODE, DISCARD_PATH_BASE, DISCARD_SECOND_CODE, OPTION_BASE,
    OPTION_NAMES, PASS, PLAY_BASE, RETURN, DRAW,
)
from positions.kernel.position import Position
from positions.kernel.rules import (
    effect_gain, paw_total, penalised_count, storm_penalty, storm_vp_loss, storms_to_hit, weather_hit_chance,
)
from positions.kernel.tiles import COST, KIND_BY_NAME, PAW, STORM, TILES, Effect, Kind

MARSHMALLOWS = KIND_BY_NAME["toasted_marshmallows"]
"""The one tile whose effect can cost VP (C9): pay 2 VP for 7 Steps."""
STEP_VALUE = (0.5, 0.45, 0.35, 0.25, 0.08)
"""What one Step is worth in VP during walk 1..5: buying power fades as the game ends."""
TYPICAL = (2, 4, 4)
"""A typical context (suns on the track, walk tiles in the path, paw points in the path)."""


def projected_score(vp: int, paws: int, walks_left: int, bag_sum: float, bag_size: int) -> float:
    """A player's final score as the heuristics project it: their VP, 0.6 per paw point on the path
    of a walker, and 4 per walk left times the mean worth of a bag tile (`bag_sum` over `bag_size`)."""
    return vp + 0.6 * paws + walks_left * 4.0 * bag_sum / max(1, bag_size)


def _effect_value(effect: Effect, suns: int, path_len: int, paws: int, steps: int, vp: int,
                  step_value: float, extra_value: float) -> float:
    gain_vp, gain_steps = effect_gain(effect, suns, path_len, paws, steps, vp)
    value = gain_vp + step_value * gain_steps + extra_value * effect.extra_plays
    if effect.discards:
        value += 0.5 * step_value * effect.discards  # thinning the bag pays off in later walks
    return value


def _worth_table(walk: int) -> tuple[float, ...]:
    """Each kind's typical worth when played during `walk` (0-based), paw value included."""
    suns, path_len, paws = TYPICAL
    step_value = STEP_VALUE[walk]
    table = []
    for tile in TILES:
        if tile.kind == STORM:
            table.append(0.0)
            continue
        best = max(_effect_value(e, suns, path_len, paws, 5, 5, step_value, 2.0)
                   for e in tile.effects)
        table.append(best + 0.7 * tile.paw)
    return tuple(table)


WORTH: tuple[tuple[float, ...], ...] = tuple(_worth_table(w) for w in range(len(STEP_VALUE)))
"""WORTH[walk][kind]: a kind's typical worth in VP when played in that walk."""


def walk_index(pos: Position) -> int:
    """The row of ``STEP_VALUE`` and ``WORTH`` for the walk of `pos`."""
    return min(pos.walk, len(STEP_VALUE) - 1)


_BAG_VALUES: dict[tuple[int, tuple[Kind, ...]], float] = {}


def bag_value(walk: int, bag: tuple[Kind, ...]) -> float:
    """Mean typical worth of the walk tiles in `bag` during `walk` (memoised: rollouts ask often)."""
    key = (walk, bag)
    value = _BAG_VALUES.get(key)
    if value is None:
        worth = WORTH[walk]
        tiles = [worth[k] for k in bag if k != STORM]
        value = sum(tiles) / len(tiles) if tiles else 0.0
        if len(_BAG_VALUES) > 200_000:
            _BAG_VALUES.clear()
        _BAG_VALUES[key] = value
    return value


def storm_hit_chance(pos: Position, player: int) -> float:
    """The chance the Storm hits at the end of this turn if `player` draws (C5, C7, C13).

    Counts the Storms the drawing players may pull from their bags (each walking player is assumed
    to draw) and the weather tile; extra draws are ignored.
    """
    needed = storms_to_hit(pos)
    if needed <= 0:
        return 1.0
    dist = [1.0]
    for other in range(pos.players):
        if not pos.walking[other]:
            continue
        bag = pos.bags[other]
        size = len(bag)
        if not size:
            continue
        storms = bag.count(STORM)
        if not storms:
            continue
        source: tuple[float, ...]
        if size == 1:
            source = (0.0, 1.0)
        else:
            pairs = size * (size - 1)
            two = storms * (storms - 1) / pairs
            none = (size - storms) * (size - storms - 1) / pairs
            source = (none, 1.0 - none - two, two)
        dist = _convolve(dist, source)
    total = pos.deck_suns + pos.deck_storms
    weather = pos.deck_storms / total if total else (1.0 if pos.reserve else 0.0)
    dist = _convolve(dist, (1.0 - weather, weather))
    return sum(dist[needed:])


def _share(score: float, lead: int, ties: int) -> float:
    """C18: a win share against the best of the others (`ties` of them on `lead`)."""
    if score > lead:
        return 1.0
    return 1.0 / (1 + ties) if score == lead else 0.0


def _convolve(dist: list[float], source: Sequence[float]) -> list[float]:
    result = [0.0] * (len(dist) + len(source) - 1)
    for i, p in enumerate(dist):
        if p:
            for j, q in enumerate(source):
                result[i + j] += p * q
    return result


class HeuristicPolicy:
    """A rule-of-thumb player: returns by storm risk against what is at stake, plays tiles by value,
    buys by value per Step; the last walker of the last walk plays for the win (C18) by this
    turn's exact weather odds. ``aggression`` > 1 walks on longer; ``buy_style`` is ``"per_step"``
    (value per Step spent) or ``"max_value"`` (the most valuable affordable tile). Before the last
    walk it keeps its Steps rather than buy a tile whose typical worth is below ``save_ratio`` times
    the bag's mean worth plus ``save_margin`` (both 0: it buys whatever its style picks)."""

    def __init__(self, aggression: float = 1.0, buy_style: str = "per_step", name: str = "heuristic",
                 draw_gain: float = 1.45, tie_draw: float = 1.0, behind: float = 0.3,
                 save_ratio: float = 0.0, save_margin: float = 0.0):
        if aggression <= 0:
            raise ValueError(f"heuristic: aggression must be > 0, got {aggression!r}")
        if buy_style not in ("per_step", "max_value"):
            raise ValueError(f"heuristic: buy_style must be per_step or max_value, got {buy_style!r}")
        if draw_gain <= 0 or tie_draw <= 0 or not 0 <= behind <= 1:
            raise ValueError(f"heuristic: draw_gain and tie_draw must be > 0 and behind in [0, 1], got "
                             f"{draw_gain!r}, {tie_draw!r}, {behind!r}")
        if not (save_ratio >= 0 and save_margin >= 0):
            raise ValueError(f"heuristic: save_ratio and save_margin must be >= 0, got "
                             f"{save_ratio!r}, {save_margin!r}")
        self.aggression = aggression
        self.buy_style = buy_style
        self.name = name
        self.draw_gain = draw_gain
        """What one more draw is worth, in units of the bag's mean tile worth."""
        self.tie_draw = tie_draw
        """Last walk, alone and tied for the lead: draw when (1 - hit chance) * tie_draw > the tie's share."""
        self.behind = behind
        """Last walk, alone: the chance a player still behind after this turn catches up later."""
        self.save_ratio = save_ratio
        """Before the last walk, buy only a tile worth at least this times the bag's mean worth ..."""
        self.save_margin = save_margin
        """... plus this (VP); else keep the Steps for a better tile (issue 27: the search does)."""

    def __repr__(self) -> str:
        return (f"HeuristicPolicy({self.aggression!r}, {self.buy_style!r}, {self.name!r}, "
                f"{self.draw_gain!r}, {self.tie_draw!r}, {self.behind!r}, {self.save_ratio!r}, "
                f"{self.save_margin!r})")

    def native_parameters(self) -> tuple[float, bool, float, float, float, float, float]:
        """The parameters as the native core's ``Heuristic`` takes them (native/core/src/heuristic.rs)."""
        return (float(self.aggression), self.buy_style == "max_value", float(self.draw_gain),
                float(self.tie_draw), float(self.behind), float(self.save_ratio), float(self.save_margin))

    def choose(self, state: Position, rng: random.Random) -> int:
        """The heuristic's action for the player to move at `state` (ties broken by `rng`)."""
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        phase = state.phase
        player = state.actor
        if phase == phases.DECIDE:
            return self._decide(state, player)
        if phase in (phases.CHOOSE, phases.OPTION, phases.DISCARD) and self._alone_at_the_end(state, player):
            return max(legal, key=lambda action: self._endgame_value(state, player, action))
        if phase == phases.CHOOSE:
            first, second = legal[0], legal[1]
            return first if (self._play_value(state, player, first - PLAY_BASE)
                             >= self._play_value(state, player, second - PLAY_BASE)) else second
        if phase == phases.BUY:
            return self._buy(state, player, legal)
        if phase == phases.OPTION:
            return self._option(state, player, legal)
        if phase in (phases.DISCARD, phases.RETURN_DISCARD):
            return self._discard(state, player, legal, phase == phases.RETURN_DISCARD)
        if phase == phases.EXTRA:
            kept = state.hands[player][0]
            play_second = self._play_value(state, player, kept)
            return legal[0] if play_second >= self._bag_value(state, player) else DRAW
        return legal[int(rng.random() * len(legal))]

    # --- C6 return or draw -------------------------------------------------------------------------

    def _decide(self, pos: Position, player: int) -> int:
        paws = paw_total(pos.paths[player])
        hit = storm_hit_chance(pos, player)
        if self._alone_at_the_end(pos, player):
            return self._decide_alone_at_the_end(pos, player, paws, hit)
        # C9/C13/C16: the tile played this turn joins the path before the weather tile is turned,
        # so a Storm this turn penalises it too (counted as penalised: its kind is not known yet).
        steps = pos.steps[player]
        penalty = storm_penalty(pos, player) + 1
        lost_vp = min(pos.vp[player], storm_vp_loss(penalty, steps))
        step_value = STEP_VALUE[walk_index(pos)]
        stake = paws + lost_vp + step_value * min(penalty, steps)
        gain = self.draw_gain * self._bag_value(pos, player)
        return DRAW if (1.0 - hit) * gain * self.aggression > hit * stake else RETURN

    @staticmethod
    def _alone_at_the_end(pos: Position, player: int) -> bool:
        """The last walk, every other player home: their scores are final (C15, C17)."""
        return pos.walk == pos.ruleset.walks - 1 and not any(
            pos.walking[p] for p in range(pos.players) if p != player)

    def _behind_at_the_end(self, pos: Position, player: int) -> bool:
        """Alone in the last walk and behind even after scoring the path: a bought tile may yet be
        drawn (C12), and the Steps it costs would only pay a penalty that already means a loss."""
        if not self._alone_at_the_end(pos, player):
            return False
        home = pos.vp[player] + paw_total(pos.paths[player])
        return home < max(pos.vp[p] for p in range(pos.players) if p != player)

    def _endgame_points(self, pos: Position, player: int, kind: Kind, steps: int) -> float:
        """VP and paw points `kind` would bring if drawn and played now with `steps` Steps (an
        additional play counts a typical paw point)."""
        path = pos.paths[player]
        suns, paws, vp = pos.track_suns, paw_total(path), pos.vp[player]
        best = 0.0
        for effect in TILES[kind].effects:
            gain_vp = effect_gain(effect, suns, len(path), paws, steps, vp)[0]
            best = max(best, gain_vp + effect.extra_plays)
        return best + PAW[kind]

    def _buy_to_catch_up(self, pos: Position, player: int, legal: Sequence[int]) -> int:
        """Behind at the end: the affordable tile that most raises what a draw brings on average,
        counting the Steps it costs (a Summit needs 2 left to pay), if any does."""
        bag = [k for k in pos.bags[player] if k != STORM]
        steps = pos.steps[player]
        best: int = PASS
        best_mean = sum(self._endgame_points(pos, player, k, steps) for k in bag) / len(bag) if bag else 0.0
        for action in legal:
            if action >= BUY_BASE:
                kind = action - BUY_BASE
                left = steps - COST[kind]
                mean = (sum(self._endgame_points(pos, player, k, left) for k in bag)
                        + self._endgame_points(pos, player, kind, left)) / (len(bag) + 1)
                if mean > best_mean:
                    best, best_mean = action, mean
        return best

    def _endgame_value(self, pos: Position, player: int, action: int) -> float:
        """The last walker's win share after `action` (a tile, an option or a discard), looking
        only at this turn's weather tile: if it brings the Storm, the VP left after the penalty
        (C16) decide; if not, returning with the path's paws (C15) does, and a player still behind
        walks on with chance ``behind`` of catching up. A thousandth of the expected score breaks ties."""
        path = pos.paths[player]
        hand = pos.hands[player]
        phase = pos.phase
        if phase == phases.CHOOSE:
            kind = action - PLAY_BASE
            second = hand[1] if hand[0] == kind else hand[0]
            return max(self._effect_share(pos, player, kind, effect, second) for effect in TILES[kind].effects)
        kind = pos.tile
        if phase == phases.OPTION:
            effect = next(e for e in TILES[kind].effects if e.name == OPTION_NAMES[action - OPTION_BASE])
            return self._effect_share(pos, player, kind, effect, hand[0] if hand else -1)
        # the discard step (C11): the played tile joins the path once its discards are done
        ruleset = pos.ruleset
        penalty = storm_penalty(pos, player) + penalised_count(ruleset, (kind,))
        lost = 0
        if action not in (DISCARD_NONE_CODE, DISCARD_SECOND_CODE):
            removed = action - DISCARD_PATH_BASE
            lost = PAW[removed]
            penalty -= penalised_count(ruleset, (removed,))
        return self._endgame_share(pos, player, pos.vp[player], pos.steps[player], penalty,
                                   paw_total(path) + PAW[kind] - lost)

    def _effect_share(self, pos: Position, player: int, kind: Kind, effect: Effect, second: int) -> float:
        """The endgame win share of playing `kind` with `effect`; its additional plays (C10) play
        the second tile while it beats an average draw, else draw."""
        path = pos.paths[player]
        paws, steps, vp = paw_total(path), pos.steps[player], pos.vp[player]
        gain_vp, gain_steps = effect_gain(effect, pos.track_suns, len(path), paws, steps, vp)
        # the tile joins the path, each additional play adds one (counted as penalised: not known
        # yet), a discard takes the path's tile of fewest paws
        ruleset = pos.ruleset
        penalty = storm_penalty(pos, player) + penalised_count(ruleset, (kind,)) + effect.extra_plays
        lost = 0
        if effect.discards and path:
            removed = min(path, key=PAW.__getitem__)
            lost = PAW[removed]
            penalty -= penalised_count(ruleset, (removed,))
        extra_vp = 0.0
        extra_paws = 0.0
        if effect.extra_plays:
            bag = [k for k in pos.bags[player] if k != STORM]
            draw_vp = sum(self._tile_vp(pos, player, k) for k in bag) / len(bag) if bag else 0.0
            draw_paws = paw_total(bag) / len(bag) if bag else 0.0
            for _ in range(effect.extra_plays):
                if second >= 0 and self._tile_vp(pos, player, second) + PAW[second] >= draw_vp + draw_paws:
                    extra_vp += self._tile_vp(pos, player, second)
                    extra_paws += PAW[second]
                    second = -1
                else:
                    extra_vp += draw_vp
                    extra_paws += draw_paws
        return self._endgame_share(pos, player, vp + gain_vp + extra_vp, steps + gain_steps, penalty,
                                   paws + PAW[kind] - lost + extra_paws)

    def _tile_vp(self, pos: Position, player: int, kind: Kind) -> float:
        """The most VP `kind`'s effect gives if played now (C9)."""
        path = pos.paths[player]
        paws = paw_total(path)
        return float(max(effect_gain(e, pos.track_suns, len(path), paws, pos.steps[player], pos.vp[player])[0]
                         for e in TILES[kind].effects))

    def _endgame_share(self, pos: Position, player: int, vp: float, steps: int, penalty: int,
                       paws: float) -> float:
        """The win share with `vp`, `steps`, a Storm penalty of `penalty` Steps and `paws` paw points
        in the path: the Storm at this turn's weather tile or a return (see ``_endgame_value``)."""
        others = [pos.vp[p] for p in range(pos.players) if p != player]
        lead = max(others)
        ties = others.count(lead)
        hit = weather_hit_chance(pos)
        if_hit = max(0.0, vp - storm_vp_loss(penalty, steps))
        home = vp + paws
        walk_on = _share(home, lead, ties) if home >= lead else self.behind
        return (hit * _share(if_hit, lead, ties) + (1.0 - hit) * walk_on
                + 0.001 * (hit * if_hit + (1.0 - hit) * home))

    def _decide_alone_at_the_end(self, pos: Position, player: int, paws: int, hit: float) -> int:
        """The last walker of the last walk: the others' scores are final, so play for the win (C18)."""
        home = pos.vp[player] + paws
        others = [pos.vp[p] for p in range(pos.players) if p != player]
        lead = max(others)
        if home < lead:
            return DRAW  # returning now is a certain loss
        if home > lead:
            # A certain win either way if no Storm can come this turn (its own bag's Storms and the
            # weather tile are all it can meet, C5/C7/C13) and no forced tile costs the lead: then
            # drawing scores more (the solver's tie-break, C18).
            bag = pos.bags[player]
            safe = storms_to_hit(pos) > bag.count(STORM) + 1
            costly = home - lead <= 2 and MARSHMALLOWS in bag
            return DRAW if safe and not costly else RETURN
        share = 1.0 / (1 + others.count(lead))
        return DRAW if (1.0 - hit) * self.tie_draw > share else RETURN

    def _bag_value(self, pos: Position, player: int) -> float:
        """Mean typical worth of the walk tiles in the bag (what one more draw is worth)."""
        return bag_value(walk_index(pos), pos.bags[player])

    # --- C8-C11 playing ------------------------------------------------------------------------------

    def _context(self, pos: Position, player: int) -> tuple[int, int, int, int, int, float]:
        path = pos.paths[player]
        return (pos.track_suns, len(path), paw_total(path), pos.steps[player],
                pos.vp[player], STEP_VALUE[walk_index(pos)])

    def _play_value(self, pos: Position, player: int, kind: Kind) -> float:
        suns, path_len, paws, steps, vp, step_value = self._context(pos, player)
        extra = 0.8 * self._bag_value(pos, player)
        best = max(_effect_value(e, suns, path_len, paws, steps, vp, step_value, extra)
                   for e in TILES[kind].effects)
        return best + 0.7 * PAW[kind]

    def _option(self, pos: Position, player: int, legal: Sequence[int]) -> int:
        suns, path_len, paws, steps, vp, step_value = self._context(pos, player)
        extra = 0.8 * self._bag_value(pos, player)
        effects = {e.name: e for e in TILES[pos.tile].effects}

        def value(action: int) -> float:
            effect = effects[OPTION_NAMES[action - OPTION_BASE]]
            if effect.discards:
                return self._discard_gain(pos, player)
            return _effect_value(effect, suns, path_len, paws, steps, vp, step_value, extra)

        return max(legal, key=value)

    def _keep_value(self, pos: Position, kind: Kind) -> float:
        return WORTH[walk_index(pos)][kind]

    def _discard_gain(self, pos: Position, player: int) -> float:
        """What discarding the weakest target is worth: thinner bags draw their good tiles more."""
        walks_left = pos.ruleset.walks - 1 - pos.walk
        targets = list(pos.paths[player]) + list(pos.hands[player])
        if not targets or not walks_left:
            return 0.0
        weakest = min(self._keep_value(pos, k) for k in targets)
        return max(0.0, 1.5 - weakest) * walks_left * 0.5

    def _discard(self, pos: Position, player: int, legal: Sequence[int], returning: bool) -> int:
        def keep(action: int) -> float:
            if action == DISCARD_NONE_CODE:
                return 1.0 if pos.walk < pos.ruleset.walks - 1 else -1.0
            if action == DISCARD_SECOND_CODE:
                return self._keep_value(pos, pos.hands[player][0])
            kind = action - DISCARD_PATH_BASE
            at_stake = 0.0 if returning else 0.7 * PAW[kind]
            return self._keep_value(pos, kind) + at_stake

        return min(legal, key=keep)

    # --- C12 buying ---------------------------------------------------------------------------------

    def _buy(self, pos: Position, player: int, legal: Sequence[int]) -> int:
        if pos.walk >= pos.ruleset.walks - 1:
            if not self._behind_at_the_end(pos, player):
                return PASS  # Steps are worth nothing at the end but pay the Storm's penalty (C16)
            return self._buy_to_catch_up(pos, player, legal)
        worth = WORTH[walk_index(pos)]
        best: int = PASS
        best_value = 0.0
        for action in legal:
            if action < BUY_BASE:
                continue
            kind = action - BUY_BASE
            if self.buy_style == "per_step":
                value = worth[kind] / COST[kind]
            else:
                value = worth[kind] - 0.1 * COST[kind]
            if value > best_value:
                best, best_value = action, value
        if best != PASS and (self.save_ratio or self.save_margin):
            floor = self.save_ratio * self._bag_value(pos, player) + self.save_margin
            if worth[best - BUY_BASE] < floor:
                return PASS
        return best


DEFAULT_ROLLOUT = HeuristicPolicy(aggression=1.8, buy_style="max_value", name="heuristic")
"""The rollout policy the advisor uses unless told otherwise (the greedy style: the strongest
heuristic in paired matches, 78% against the cautious one)."""
THRIFTY_ROLLOUT = HeuristicPolicy(aggression=1.8, buy_style="max_value", name="thrifty",
                                  save_ratio=1.0, save_margin=2.0)
"""The greedy style that keeps its Steps rather than buy a tile less than 2 VP above its bag's mean
worth, as deep searches do (issue 27, docs/strength.md): 0.92 against the greedy bot."""
