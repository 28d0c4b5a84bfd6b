"""The rules: what may be done at each point of a turn, and what doing it changes (C6–C17).

Functions here take a :class:`~positions.kernel.state.State` and mutate it; :class:`~positions.kernel.position.Position`
exposes them as methods. Decisions with a single legal action are applied automatically, so every stop is a real
choice, a chance event or the end of the game. Each flow function returns once the position
waits for a decision or a chance outcome.
"""

from __future__ import annotations

import random
from typing import Any, Protocol, Sequence, TypeVar

from positions.kernel import phases
from positions.kernel.phases import CHANCE_PHASES, SIMULTANEOUS
from positions.kernel.actions import (
    BUY, BUY_BASE, DISCARD_NONE, DISCARD_NONE_CODE, DISCARD_PATH, DISCARD_PATH_BASE,
    DISCARD_SECOND, DISCARD_SECOND_CODE, DRAW, DRAW_CODE, DRAWN_ONE, DRAWN_ONE_BASE,
    DRAWN_TWO_BASE, OPTION_BASE, OPTION_NAMES, OPTIONS, PASS, PLAY, PLAY_BASE, RETURN,
    RETURN_CODE, TIEBREAK, TIEBREAK_BASE, WEATHER_STORM, WEATHER_SUN, Action, drawn_two,
)
from positions.errors import IllegalActionError
from positions.kernel.rulesets import Ruleset
from positions.kernel.state import Player, State
from positions.kernel.tiles import COST, KIND_COUNT, PAW, PRIORITY, STORM, TILES, Effect, Kind

NO_CHOICE = -1
NO_ACTOR = phases.CHANCE_PLAYER
"""``actor`` while nobody acts: at the weather tile and a tie-break (chance with no player)."""


S_contra = TypeVar("S_contra", contravariant=True)


class Policy(Protocol[S_contra]):
    """Anything that picks the current player's decision: bots and rollout policies.

    The same shape as ``search.protocol.Policy``, kept here because ``positions/`` may not import
    ``search/`` (docs/architecture.md); any policy fits both."""

    def choose(self, state: S_contra, rng: random.Random) -> int:
        """One legal action for the player to move at `state`."""
        ...


# --- small helpers ------------------------------------------------------------------------------

def _without(tiles: tuple[Kind, ...], kind: Kind) -> tuple[Kind, ...]:
    i = tiles.index(kind)
    return tiles[:i] + tiles[i + 1:]


def paw_total(tiles: Sequence[Kind]) -> int:
    """The paw (return) value of the animals among `tiles`, a path's when returning (C9, C15)."""
    return sum(PAW[k] for k in tiles)


def penalised_count(ruleset: Ruleset, tiles: Sequence[Kind]) -> int:
    """How many of `tiles` cost a Step when the Storm hits (C16): every one, unless the ruleset
    names the penalised kinds (``Ruleset.penalised_kinds``)."""
    penalised = ruleset.penalised_kinds
    if penalised is None:
        return len(tiles)
    return sum(1 for k in tiles if k in penalised)


def storm_vp_loss(penalty: int, steps: int) -> int:
    """VP the Storm costs a walker holding `steps` Steps for a penalty of `penalty` Steps: one per
    missing Step (C16; the VP total then floors at 0)."""
    return max(0, penalty - steps)


def storms_on_track(pos: State) -> int:
    """Every Storm on the weather track: from the deck, the reserve and the bags (C5)."""
    return pos.track_storms + sum(pos.owned_storms)


def storms_to_hit(pos: State) -> int:
    """How many more Storms on the weather track make the Storm hit (C5); 0 or less once it has."""
    return pos.threshold - storms_on_track(pos)


def weather_hit_chance(pos: State) -> float:
    """The chance that this turn's weather tile alone brings the Storm, the turn's draws being done
    (C5, C13): certain once it has hit, none while more than one Storm is missing, else the deck's
    share of Storms (the reserve's Storm once the deck is empty)."""
    missing = storms_to_hit(pos)
    if missing <= 0:
        return 1.0
    if missing > 1:
        return 0.0
    total = pos.deck_suns + pos.deck_storms
    return pos.deck_storms / total if total else (1.0 if pos.reserve else 0.0)


def effect_gain(effect: Effect, suns: int, path_len: int, paws: int, steps: int, vp: int,
                ) -> tuple[int, int]:
    """(VP, Steps) one effect gives with `suns` on the track, a path of `path_len` tiles and `paws`
    paw points, to a player holding `steps` and `vp` (C9); a cost that cannot be paid gives nothing."""
    if steps < effect.pay_steps or vp < effect.pay_vp:
        return 0, 0
    return (effect.vp - effect.pay_vp + effect.vp_per_sun * suns + effect.vp_per_path_tile * path_len
            + effect.vp_per_paw * paws,
            effect.steps - effect.pay_steps + effect.steps_per_sun * suns
            + effect.steps_per_path_tile * path_len + effect.steps_per_paw * paws)


def supply(pos: State, kind: Kind) -> int:
    """How many tiles of `kind` the game holds in all (C1, C3): the start bags' and the route's stack."""
    return (pos.ruleset.start_bag.count(kind) * pos.players
            + (pos.ruleset.stack_size if kind in pos.route.kinds else 0))


def choice_revealed(pos: State, player: Player) -> bool:
    """Whether `player`'s pending choice is public now: a later player's return-or-draw while the
    returning players discard (C15), or a later player's played tile while the actor resolves
    theirs (C9–C11)."""
    return (pos.walking[player] and player > pos.actor
            and (pos.phase == phases.RETURN_DISCARD
                 or (pos.phase in phases.RESOLVING and bool(pos.hands[player]))))


HASH_GOLDEN = 0x9E3779B97F4A7C15
"""The golden-ratio increment of splitmix64, added at each step of the history hash."""
_MASK64 = 0xFFFFFFFFFFFFFFFF


def fold(history: int, event: Sequence[int]) -> int:
    """The history hash `history` (an int in [0, 2**64)) with one event of ints folded in: its
    length, then each int (a negative one as 64-bit two's complement), each step the splitmix64
    finalizer of ``(h ^ x) + golden`` (docs/determinism.md, "History hash")."""
    h = history
    for x in (len(event), *event):
        z = ((h ^ (x & _MASK64)) + HASH_GOLDEN) & _MASK64
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        h = z ^ (z >> 31)
    return h


def _fold(pos: State, *event: int) -> None:
    pos.history = fold(pos.history, event)


def reset_weather(pos: State) -> None:
    """An empty track, a full reshuffled deck and a full reserve (C4, C17)."""
    ruleset = pos.ruleset
    pos.track_suns = 0
    pos.track_storms = 0
    pos.deck_suns = ruleset.deck_suns
    pos.deck_storms = ruleset.deck_storms
    pos.reserve = ruleset.reserve_storms


def reset_resolution(pos: State) -> None:
    """No tile being resolved, no tie pending."""
    pos.tile = NO_CHOICE
    pos.extra_plays = 0
    pos.discards_left = 0
    pos.discards_required = 0
    pos.ties = ()


# --- simultaneous steps (C6, C8, C12) -------------------------------------------------------------

def takes_part(pos: State, player: int) -> bool:
    """Whether a player acts in the current simultaneous step: walking, and for a tile choice holding
    a tile (a draw of two Storms leaves nothing to choose, C7)."""
    return bool(step_legal(pos, player))


_RETURN_OR_DRAW = (RETURN, DRAW)
_RETURN_ONLY = (RETURN,)
_NONE: tuple[Action, ...] = ()


def step_legal(pos: State, player: int) -> tuple[Action, ...]:
    """A player's options in the current simultaneous step; none if they sit it out (home already,
    or no tile to choose from, C7). No player's options depend on another's choice."""
    if not pos.walking[player]:
        return _NONE
    phase = pos.phase
    if phase == phases.DECIDE:
        return _RETURN_OR_DRAW if pos.bags[player] else _RETURN_ONLY
    if phase == phases.CHOOSE:
        hand = pos.hands[player]
        return choose_options(hand) if hand else _NONE
    steps = pos.steps[player]
    market = pos.market
    return (PASS,) + tuple([BUY[k] for k in pos.route.kinds if market[k] and COST[k] <= steps])


def choose_options(hand: tuple[Kind, ...]) -> tuple[Action, ...]:
    """Which tile of a hand may be played: a priority tile must be, unless both have it (C8)."""
    if len(hand) == 1 or hand[0] == hand[1]:
        return (PLAY[hand[0]],)
    first, second = hand
    if PRIORITY[first] != PRIORITY[second]:
        return (PLAY[first],) if PRIORITY[first] else (PLAY[second],)
    return (PLAY[first], PLAY[second])


def _start_step(pos: State, phase: int) -> None:
    pos.phase = phase
    pos.pending = [NO_CHOICE] * pos.players
    _next_in_step(pos, 0)


def _next_in_step(pos: State, start: int) -> None:
    for player in range(start, pos.players):
        options = step_legal(pos, player)
        if not options:
            continue
        if len(options) == 1:
            pos.pending[player] = options[0]
            continue
        pos.actor = player
        pos.legal = options
        return
    _fold(pos, -pos.phase - 1, *pos.pending)
    if pos.phase == phases.DECIDE:
        _next_returner(pos, 0)
    elif pos.phase == phases.CHOOSE:
        _next_resolver(pos, 0)
    else:
        _settle_buys(pos)


# --- C6 decide, C15 return -----------------------------------------------------------------------

def start_turn(pos: State) -> None:
    """Begin a turn: every walking player decides to return or draw (C6)."""
    _start_step(pos, phases.DECIDE)


def _next_returner(pos: State, start: int) -> None:
    for player in range(start, pos.players):
        if pos.pending[player] == RETURN_CODE and pos.walking[player]:
            pos.vp[player] += paw_total(pos.paths[player])
            path = pos.paths[player]
            if path:
                pos.phase = phases.RETURN_DISCARD
                pos.actor = player
                pos.legal = return_discard_options(path)
                return
            _go_home(pos, player)
    _next_deal(pos, 0)


def return_discard_options(path: tuple[Kind, ...]) -> tuple[Action, ...]:
    """A returning player may discard one walk tile of their path, or none (C15)."""
    return (DISCARD_NONE,) + tuple(DISCARD_PATH[k] for k in sorted(set(path)))


def _go_home(pos: State, player: int) -> None:
    pos.bags[player] = pos.bags[player] + pos.paths[player]
    pos.paths[player] = ()
    pos.walking[player] = False


# --- C7 draw ---------------------------------------------------------------------------------------

def _next_deal(pos: State, start: int) -> None:
    for player in range(start, pos.players):
        if pos.walking[player] and pos.pending[player] == DRAW_CODE:
            pos.phase = phases.DEAL
            pos.actor = player
            pos.legal = _NONE
            return
    if not any(pos.walking):
        end_walk(pos)
        return
    _start_step(pos, phases.CHOOSE)


def _deal(pos: State, action: int) -> None:
    player = pos.actor
    bag = list(pos.bags[player])
    if action >= DRAWN_TWO_BASE:
        if len(bag) < 2:
            raise IllegalActionError(f"{_describe(action)}: player {player} has only 1 tile to draw")
        drawn: tuple[Kind, ...] = divmod(action - DRAWN_TWO_BASE, KIND_COUNT)
    else:
        if len(bag) != 1:
            raise IllegalActionError(f"{_describe(action)}: player {player} must draw 2 tiles")
        drawn = (action - DRAWN_ONE_BASE,)
    try:
        for kind in drawn:
            bag.remove(kind)
    except ValueError:
        raise IllegalActionError(
            f"{_describe(action)}: player {player}'s bag does not hold these tiles") from None
    pos.bags[player] = tuple(bag)
    if STORM in drawn:
        hand = tuple(k for k in drawn if k != STORM)
        pos.owned_storms[player] += len(drawn) - len(hand)
        pos.hands[player] = hand
    else:
        pos.hands[player] = drawn
    _next_deal(pos, player + 1)


# --- C8–C11 resolving the played tiles ---------------------------------------------------------------

def _next_resolver(pos: State, start: int) -> None:
    for player in range(start, pos.players):
        choice = pos.pending[player]
        if choice >= 0 and pos.walking[player]:
            kind = choice - PLAY_BASE
            pos.actor = player
            pos.hands[player] = _without(pos.hands[player], kind)
            play_tile(pos, kind)
            return
    _start_step(pos, phases.BUY)


def _has_discard_target(pos: State) -> bool:
    return bool(pos.hands[pos.actor] or pos.paths[pos.actor])


def play_tile(pos: State, kind: Kind) -> None:
    """Resolve a played tile: ask for its option if it has two open ones, else apply its effect."""
    effects = TILES[kind].effects
    if len(effects) > 1:
        options = tuple(OPTIONS[e.name] for e in effects
                        if not e.discards_required or _has_discard_target(pos))
        if len(options) > 1:
            pos.phase = phases.OPTION
            pos.tile = kind
            pos.legal = options
            return
        effects = tuple(e for e in effects if OPTIONS[e.name] == options[0])
    _apply_effect(pos, kind, effects[0])


def _apply_effect(pos: State, kind: Kind, effect: Effect) -> None:
    player = pos.actor
    steps = pos.steps[player]
    vp = pos.vp[player]
    if steps >= effect.pay_steps and vp >= effect.pay_vp:
        path = pos.paths[player]
        paws = paw_total(path) if (effect.steps_per_paw or effect.vp_per_paw) else 0
        gained_vp, gained_steps = effect_gain(effect, pos.track_suns, len(path), paws, steps, vp)
        pos.steps[player] = steps + gained_steps
        pos.vp[player] = vp + gained_vp
        pos.extra_plays += effect.extra_plays
        if effect.discards and _has_discard_target(pos):
            pos.tile = kind
            pos.discards_left = effect.discards
            pos.discards_required = effect.discards_required
            offer_discard(pos)
            return
    _place(pos, kind)


def offer_discard(pos: State) -> None:
    """Stop for a discard target of Cairn, Hiker or Cave, or take the only required one (C11)."""
    player = pos.actor
    targets: tuple[Action, ...] = (DISCARD_SECOND,) if pos.hands[player] else ()
    targets += tuple(DISCARD_PATH[k] for k in sorted(set(pos.paths[player])))
    if pos.discards_required and len(targets) == 1:
        _discard(pos, targets[0])
        return
    pos.phase = phases.DISCARD
    pos.legal = targets if pos.discards_required else (DISCARD_NONE,) + targets


def _discard(pos: State, action: int) -> None:
    player = pos.actor
    if action != DISCARD_NONE_CODE:
        if action == DISCARD_SECOND_CODE:
            kind = pos.hands[player][0]
            pos.hands[player] = ()
        else:
            kind = action - DISCARD_PATH_BASE
            pos.paths[player] = _without(pos.paths[player], kind)
        pos.box = pos.box + (kind,)
        pos.discards_left -= 1
        pos.discards_required = max(0, pos.discards_required - 1)
        if pos.discards_left and _has_discard_target(pos):
            offer_discard(pos)
            return
    _place(pos, pos.tile)


def _place(pos: State, kind: Kind) -> None:
    """C20: the tile joins the path once its own effect is applied, before additional plays.

    Its resolution is over, so nothing of it is left behind (a saved position shows no stale tile).
    """
    pos.paths[pos.actor] = pos.paths[pos.actor] + (kind,)
    pos.tile = NO_CHOICE
    pos.discards_left = 0
    pos.discards_required = 0
    continue_extra_plays(pos)


def continue_extra_plays(pos: State) -> None:
    """Go on with the additional plays still owed (C10), then with the next player to resolve."""
    player = pos.actor
    if pos.extra_plays:
        hand = pos.hands[player]
        has_bag = bool(pos.bags[player])
        if hand and has_bag:
            pos.phase = phases.EXTRA
            pos.legal = (PLAY[hand[0]], DRAW)
            return
        if hand:
            pos.extra_plays -= 1
            pos.hands[player] = ()
            play_tile(pos, hand[0])
            return
        if has_bag:
            pos.phase = phases.EXTRA_DRAW
            pos.legal = _NONE
            return
        pos.extra_plays = 0
    _next_resolver(pos, player + 1)


def _extra(pos: State, action: int) -> None:
    player = pos.actor
    hand = pos.hands[player]
    if action == DRAW_CODE:
        pos.set_aside[player] = pos.set_aside[player] + hand
        pos.hands[player] = ()
        pos.phase = phases.EXTRA_DRAW
        pos.legal = _NONE
        return
    pos.extra_plays -= 1
    pos.hands[player] = ()
    play_tile(pos, hand[0])


def _extra_draw(pos: State, action: int) -> None:
    player = pos.actor
    kind = action - DRAWN_ONE_BASE
    if not 0 <= kind < KIND_COUNT or kind not in pos.bags[player]:
        raise IllegalActionError(f"{action}: no such tile in player {player}'s bag")
    pos.bags[player] = _without(pos.bags[player], kind)
    pos.extra_plays -= 1
    if kind == STORM:
        pos.owned_storms[player] += 1
        continue_extra_plays(pos)
    else:
        play_tile(pos, kind)


# --- C12 buying --------------------------------------------------------------------------------------

def _settle_buys(pos: State) -> None:
    if max(pos.pending) < BUY_BASE:  # everybody passed
        pos.ties = ()
        _turn_weather(pos)
        return
    ties = []
    rank = [(pos.vp[p], pos.steps[p]) for p in range(pos.players)]
    wanted: dict[Kind, list[int]] = {}
    for player, choice in enumerate(pos.pending):
        if choice >= BUY_BASE:
            wanted.setdefault(choice - BUY_BASE, []).append(player)
    for kind, buyers in sorted(wanted.items()):
        supply = pos.market[kind]
        if len(buyers) > supply:
            buyers.sort(key=rank.__getitem__)
            cut = rank[buyers[supply - 1]]
            sure = [p for p in buyers if rank[p] < cut]
            tied = tuple(p for p in buyers if rank[p] == cut)
            slots = supply - len(sure)
            if len(tied) > slots:
                ties.append((kind, tied, slots))
                buyers = sure
            else:
                buyers = sure + list(tied)
        for player in buyers:
            _buy(pos, player, kind)
    pos.ties = tuple(ties)
    _next_tie(pos)


def _buy(pos: State, player: int, kind: Kind) -> None:
    pos.steps[player] -= COST[kind]
    pos.bags[player] = pos.bags[player] + (kind,)
    market = list(pos.market)
    market[kind] -= 1
    pos.market = tuple(market)


def _next_tie(pos: State) -> None:
    if pos.ties:
        pos.phase = phases.TIEBREAK
        pos.actor = NO_ACTOR
        pos.legal = _NONE
        return
    _turn_weather(pos)


def _tiebreak(pos: State, action: int) -> None:
    kind, tied, slots = pos.ties[0]
    winner = action - TIEBREAK_BASE
    if winner not in tied:
        raise IllegalActionError(f"{action}: player {winner} is not in the tie for {TILES[kind].name}")
    _buy(pos, winner, kind)
    tied = tuple(p for p in tied if p != winner)
    slots -= 1
    rest = pos.ties[1:]
    if slots and len(tied) > slots:
        rest = ((kind, tied, slots),) + rest
    elif slots:
        for player in tied:
            _buy(pos, player, kind)
    pos.ties = rest
    _next_tie(pos)


# --- C13 weather, C16 storm, C14 / C17 ends ------------------------------------------------------------

def _turn_weather(pos: State) -> None:
    if pos.deck_suns + pos.deck_storms:
        pos.phase = phases.WEATHER
        pos.actor = NO_ACTOR
        pos.legal = _NONE
        return
    if pos.reserve:
        pos.reserve -= 1
        pos.track_storms += 1
    _check_storm(pos)


def _weather(pos: State, action: int) -> None:
    if action == WEATHER_SUN:
        if not pos.deck_suns:
            raise IllegalActionError("weather sun: no Sun left in the weather deck")
        pos.deck_suns -= 1
        pos.track_suns += 1
    else:
        if not pos.deck_storms:
            raise IllegalActionError("weather storm: no Storm left in the weather deck")
        pos.deck_storms -= 1
        pos.track_storms += 1
    _check_storm(pos)


def _check_storm(pos: State) -> None:
    if storms_to_hit(pos) <= 0:
        storm_hits(pos)
        end_walk(pos)
        return
    for player in range(pos.players):
        if pos.hands[player] or pos.set_aside[player]:
            pos.bags[player] = pos.bags[player] + pos.hands[player] + pos.set_aside[player]
            pos.hands[player] = ()
            pos.set_aside[player] = ()
    pos.turn += 1
    start_turn(pos)


def storm_penalty(pos: State, player: int) -> int:
    """Steps the Storm costs a walker now: one per penalised tile in the path (C16)."""
    return penalised_count(pos.ruleset, pos.paths[player])


def storm_hits(pos: State) -> None:
    """C16: walkers score no animals, pay a Step per penalised tile, a VP per missing Step (floor 0)."""
    for player in range(pos.players):
        if pos.walking[player]:
            penalty = storm_penalty(pos, player)
            steps = pos.steps[player]
            pos.steps[player] = steps - min(penalty, steps)
            pos.vp[player] = max(0, pos.vp[player] - storm_vp_loss(penalty, steps))


def end_walk(pos: State) -> None:
    """C17: Storms, paths and hands back to the bags, weather reset; the game ends after the last."""
    for player in range(pos.players):
        pos.bags[player] = (pos.bags[player] + pos.paths[player] + pos.hands[player]
                            + pos.set_aside[player] + (STORM,) * pos.owned_storms[player])
        pos.paths[player] = ()
        pos.hands[player] = ()
        pos.set_aside[player] = ()
        pos.owned_storms[player] = 0
        pos.walking[player] = True
    reset_weather(pos)
    reset_resolution(pos)
    pos.walk += 1
    pos.turn = 0
    if pos.walk >= pos.ruleset.walks:
        pos.phase = phases.OVER
        pos.actor = phases.TERMINAL_PLAYER
        pos.legal = ()
        return
    start_turn(pos)


# --- chance --------------------------------------------------------------------------------------------

def chance_outcomes(pos: State) -> list[tuple[Action, float]]:
    """Every outcome of the pending chance event with its probability."""
    weights, total = chance_weights(pos)
    return [(action, ways / total) for action, ways in weights]


def chance_weights(pos: State) -> tuple[list[tuple[Action, int]], int]:
    """Every outcome of the pending chance event with its number of ways, and the total number of
    ways: exact probabilities as integers (an outcome's probability is its ways over the total)."""
    phase = pos.phase
    if phase == phases.WEATHER:
        outcomes = [(WEATHER_SUN, pos.deck_suns), (WEATHER_STORM, pos.deck_storms)]
        return [(a, w) for a, w in outcomes if w > 0], pos.deck_suns + pos.deck_storms
    if phase == phases.TIEBREAK:
        tied = pos.ties[0][1]
        return [(TIEBREAK[p], 1) for p in tied], len(tied)
    bag = pos.bags[pos.actor]
    counts: dict[Kind, int] = {}
    for kind in bag:
        counts[kind] = counts.get(kind, 0) + 1
    size = len(bag)
    if phase == phases.EXTRA_DRAW or size == 1:
        return [(DRAWN_ONE[k], c) for k, c in sorted(counts.items())], size
    result = []
    kinds = sorted(counts)
    for i, first in enumerate(kinds):
        for second in kinds[i:]:
            if first == second:
                ways = counts[first] * (counts[first] - 1)
            else:
                ways = 2 * counts[first] * counts[second]
            if ways:
                result.append((drawn_two(first, second), ways))
    return result, size * (size - 1)


def sample_chance(pos: State, rng: random.Random) -> Action:
    """One outcome of the pending chance event, drawn with its probability."""
    phase = pos.phase
    if phase == phases.WEATHER:
        suns = pos.deck_suns
        return WEATHER_SUN if rng.random() * (suns + pos.deck_storms) < suns else WEATHER_STORM
    if phase == phases.TIEBREAK:
        tied = pos.ties[0][1]
        return TIEBREAK[tied[int(rng.random() * len(tied))]]
    bag = sorted(pos.bags[pos.actor])  # in kind order: the draw does not depend on the bag's order
    size = len(bag)
    first = int(rng.random() * size)
    if phase == phases.EXTRA_DRAW or size == 1:
        return DRAWN_ONE[bag[first]]
    second = int(rng.random() * (size - 1))
    if second >= first:
        second += 1
    return drawn_two(bag[first], bag[second])


# --- apply -----------------------------------------------------------------------------------------------

def apply(pos: State, action: int) -> None:
    """Play a decision or a chance outcome in place.

    Raises:
        IllegalActionError: the action is not legal here.
    """
    phase = pos.phase
    if phase in CHANCE_PHASES:
        _apply_chance(pos, phase, action)
        return
    if action not in pos.legal:
        raise IllegalActionError(_illegal_message(pos, action))
    if phase not in SIMULTANEOUS:
        _fold(pos, pos.actor, action)
    _decide(pos, phase, action)


def _decide(pos: State, phase: int, action: int) -> None:
    """Carry out a legal decision (checked and folded into the history by the caller)."""
    if phase in SIMULTANEOUS:
        pos.pending[pos.actor] = action
        _next_in_step(pos, pos.actor + 1)
    elif phase == phases.RETURN_DISCARD:
        player = pos.actor
        if action != DISCARD_NONE_CODE:
            kind = action - DISCARD_PATH_BASE
            pos.paths[player] = _without(pos.paths[player], kind)
            pos.box = pos.box + (kind,)
        _go_home(pos, player)
        _next_returner(pos, player + 1)
    elif phase == phases.OPTION:
        name = OPTION_NAMES[action - OPTION_BASE]
        effect = next(e for e in TILES[pos.tile].effects if e.name == name)
        _apply_effect(pos, pos.tile, effect)
    elif phase == phases.DISCARD:
        _discard(pos, action)
    elif phase == phases.EXTRA:
        _extra(pos, action)
    else:
        raise IllegalActionError(f"{action}: the game is over")


def playout(pos: State, rng: random.Random, policy: Policy[Any] | None = None) -> None:
    """Play on in place to the end of the game: `policy`'s decisions (uniformly random without
    one) and chance outcomes from ``sample_chance``.

    The rollout fast path: it ends in the same position, drawing from `rng` in the same order, as
    applying each decision and ``sample_chance(rng)`` one by one with :func:`apply` (a random
    decision is ``legal[int(rng.random() * len(legal))]``), but it skips what a rollout never looks
    at: the history hash behind information-set keys, and the checks on chance outcomes drawn here.

    Raises:
        IllegalActionError: `policy` chose an action that is not legal.
    """
    random_ = rng.random
    over = phases.OVER
    while True:
        phase = pos.phase
        if phase in CHANCE_PHASES:
            _CHANCE_EVENTS[phase](pos, sample_chance(pos, rng))
        elif phase == over:
            return
        elif policy is None:
            legal = pos.legal
            _decide(pos, phase, legal[int(random_() * len(legal))])
        else:
            action = policy.choose(pos, rng)
            if action not in pos.legal:
                raise IllegalActionError(_illegal_message(pos, action))
            _decide(pos, phase, action)


def _apply_chance(pos: State, phase: int, action: int) -> None:
    history = pos.history
    _fold(pos, phases.CHANCE_PLAYER, action)
    try:
        _dispatch_chance(pos, phase, action)
    except IllegalActionError:
        pos.history = history  # every outcome check comes before any other change: undo the fold
        raise


_CHANCE_EVENTS = {phases.DEAL: _deal, phases.EXTRA_DRAW: _extra_draw,
                  phases.TIEBREAK: _tiebreak, phases.WEATHER: _weather}
"""The handler of each chance phase (``playout`` calls it directly with outcomes it drew)."""


def _outcome_fits(pos: State, phase: int, action: int) -> bool:
    """Whether `action` is an outcome of the right kind for this chance phase."""
    if phase == phases.DEAL:
        return action >= DRAWN_TWO_BASE or DRAWN_ONE_BASE <= action < TIEBREAK_BASE
    if phase == phases.EXTRA_DRAW:
        return DRAWN_ONE_BASE <= action < TIEBREAK_BASE
    if phase == phases.TIEBREAK:
        return TIEBREAK_BASE <= action < TIEBREAK_BASE + pos.players
    return action in (WEATHER_SUN, WEATHER_STORM)


def _dispatch_chance(pos: State, phase: int, action: int) -> None:
    if not _outcome_fits(pos, phase, action):
        raise IllegalActionError(f"{_describe(action)} is not a possible {phases.NAMES[phase]} outcome")
    _CHANCE_EVENTS[phase](pos, action)


def _describe(action: int) -> str:
    try:
        from positions.kernel.actions import action_from_code
        return str(action_from_code(action))
    except ValueError:
        return f"action code {action}"


def _illegal_message(pos: State, action: int) -> str:
    legal = ", ".join(str(a) for a in pos.legal)
    return (f"{_describe(action)} is not legal for player {pos.actor} at "
            f"{phases.NAMES[pos.phase]} (legal: {legal})")
