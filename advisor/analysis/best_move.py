"""Best move: every option at a decision with its win probability, noise, score and visits; every
player's chances, the principal line and the facts behind a return-or-draw choice."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable, Sequence

from advisor.analysis.facts import ReturnFacts, return_facts
from advisor.analysis.intervals import difference_text, difference_to_data, following_edges, widened
from advisor.analysis.line import line_in_words, principal_line
from advisor.analysis.seats import seat_label
from positions import Position
from positions.kernel import phases
from positions.kernel.actions import action_from_code
from search.ismcts import LiveTree, search
from search.request import ActionStats, Recommendation, SearchRequest, SearchResult, with_exact_values

JSON_FORMAT = "refuge-best-move/1"
MIXED_SHARE = 0.1
"""A mean strategy is shown as a mix when its second likeliest option has at least this share (less
is within what the search's exploration and noise leave on an option it rejects)."""
DEFAULT_ITERATIONS = 2000
"""The default budget: answers in a few seconds on one core (see docs/performance.md)."""


@dataclass(frozen=True)
class PlayerChances:
    """One player's chances at the decision, if the recommended option is played."""

    player: int
    win: float
    """Win share (a k-way tie counts 1/k, C18); the players' shares sum to 1."""
    score: float
    """Expected final score."""


@dataclass(frozen=True)
class Advice:
    """A search's answer at one decision, with the line and the return-or-draw facts."""

    position: Position
    result: SearchResult
    request: SearchRequest
    facts: ReturnFacts | None
    line: tuple[int, ...] = ()
    """The recommendation, then the player's own most visited next decisions."""
    exact_mix: tuple[tuple[int, float], ...] = ()
    """At a simultaneous step the exact solver answers (two walkers in the last walk): each option
    with its probability in the decider's equilibrium strategy; else empty."""

    @property
    def recommendation(self) -> Recommendation:
        """The best win chance; within noise, the higher expected score."""
        return self.result.recommendation

    @property
    def ranked(self) -> list[ActionStats]:
        """Options best first: the recommendation, then the options worth considering by win
        chance (runner-up first), then the rest by win chance."""
        chosen = self.recommendation
        return sorted(self.result.actions, key=lambda s: (
            s.action != chosen.action, s.action != chosen.runner_up,
            not self.result.is_contender(s), -s.win, -s.visits))

    @property
    def best(self) -> str:
        """The recommended action in notation."""
        return str(action_from_code(self.recommendation.action))

    @property
    def mix(self) -> list[tuple[int, float]]:
        """At a simultaneous decision searched with regret matching or Exp3 whose mean strategy is
        genuinely mixed (``MIXED_SHARE``), or at an exactly solved step whose equilibrium is mixed:
        each option with its share, likeliest first; else empty."""
        chosen = self.exact_mix or tuple((s.action, s.share) for s in self.result.actions if s.share is not None)
        shares = sorted(chosen, key=lambda a: -a[1])
        if len(shares) < 2 or shares[1][1] < MIXED_SHARE:
            return []
        return shares

    @property
    def players(self) -> list[PlayerChances]:
        """Every player's win chance and expected score if the recommendation is played."""
        stats = self.result.stats(self.recommendation.action)
        return [PlayerChances(p, w, s) for p, (w, s) in enumerate(zip(stats.wins, stats.scores))]


AdviceSoFar = Callable[[Callable[[], "Advice"]], "bool | None"]
"""A growing search's hook: called with a function that builds the advice so far (as costly as the
finished search's, so build it only when a report is due); returning ``False`` stops the search."""


def advise(position: Position, request: SearchRequest, with_facts: bool = True,
           on_progress: AdviceSoFar | None = None, progress_every: int = 16) -> Advice:
    """Search the decision at `position`; the line, and the facts behind a return-or-draw choice.

    With `on_progress` (one worker) the growing search reports every `progress_every` iterations
    advice computed exactly as the final one is (see :data:`AdviceSoFar`).
    """
    facts = return_facts(position, seed=request.seed) if with_facts else None
    searching = request.replace(keep_tree=True)
    hook = None
    if on_progress is not None:
        oracle = request.config.oracle
        solved = oracle.exact_options(position) if oracle is not None else None

        def hook(so_far: SearchResult, live: LiveTree) -> bool | None:
            def build() -> Advice:
                result = dataclasses.replace(so_far, tree=live.snapshot())
                if solved is not None:
                    result = with_exact_values(result, solved)
                return advice_from(position, request, result, facts)
            return on_progress(build)

    result = search(position, searching, on_progress=hook, progress_every=progress_every)
    return advice_from(position, request, result, facts)


def advice_from(position: Position, request: SearchRequest, result: SearchResult,
                facts: ReturnFacts | None) -> Advice:
    """The advice from a search's result at `position` kept with its tree: the intervals widened,
    the principal line (the tree dropped unless `request` asks to keep it)."""
    line: tuple[int, ...] = (result.recommendation.action,)
    tree = result.tree
    if tree is not None:
        root = (result.player, position.information_set_key(result.player))
        following = following_edges(tree)  # read once: a report of a growing search pays for it
        result = widened(result, tree, root, following)
        line = tuple(principal_line(tree, root, result.recommendation.action, result.player,
                                    following=following))
        if not request.keep_tree:
            result = dataclasses.replace(result, tree=None)
    return Advice(position, result, request, facts, line, _exact_mix(position, request, result))


def _exact_mix(position: Position, request: SearchRequest, result: SearchResult) -> tuple[tuple[int, float], ...]:
    """The decider's exact equilibrium mix where the oracle solved this simultaneous step, else ()."""
    exact_step = getattr(request.config.oracle, "exact_step", None)
    if exact_step is None or not position.is_simultaneous() or not any(s.exact for s in result.actions):
        return ()
    step = exact_step(position)
    if step is None:
        return ()
    seat = step.seat(result.player)
    return tuple((option.action, float(p)) for option, p in zip(seat.options, seat.mix))


def line_text(advice: Advice) -> str:
    """The principal line in notation, e.g. ``play compass → option vp → buy pass``; a move of the
    next walk is marked (``return → discard none → next walk: draw``)."""
    return line_in_words(advice.line)


def mix_text(advice: Advice) -> str:
    """The mixed strategy in words, e.g. ``return 70% / draw 30%`` (empty when not mixed)."""
    return " / ".join(f"{action_from_code(a)} {100 * share:.0f}%" for a, share in advice.mix if share >= 0.005)


MIX_NOTE = ("mix: at this simultaneous step the search's equilibrium strategy varies between these "
            "options (regret matching, docs/search.md); a strong player mixes too, so the others cannot "
            "read the choice.")
"""What the mix line means, printed under it."""
EXACT_MIX_NOTE = ("mix: at this simultaneous step the exact equilibrium (refuge solve) plays these options "
                  "with these probabilities; each option's value is against the other walker's equilibrium "
                  "mix, so a strong player mixes too.")
"""What the mix line means when it is the solver's."""


def mix_note(advice: Advice) -> str:
    """What the mix line means: the solver's equilibrium or the search's mean strategy."""
    return EXACT_MIX_NOTE if advice.exact_mix else MIX_NOTE


def recommendation_reason(advice: Advice) -> str:
    """Why the recommendation is first, in a few words, with the difference to #2 it rests on."""
    chosen = advice.recommendation
    if chosen.runner_up is None:
        return "the only option"
    mine, second = advice.result.stats(chosen.action), advice.result.stats(chosen.runner_up)
    verdict = _verdict(chosen, mine, second)
    if mine.exact and second.exact and mine.win == second.win:
        return verdict
    return f"{verdict}; {difference_text(mine, second)}"


def _verdict(chosen: Recommendation, mine: ActionStats, second: ActionStats) -> str:
    if not chosen.within_noise:
        return "best win chance, clear of #2"
    if mine.exact and second.exact and mine.win == second.win:
        return "win chance exactly equal to #2's; the higher expected score decides"
    if mine.win >= second.win and mine.score >= second.score:
        return "best win chance and expected score; #2 within noise"
    if mine.score >= second.score:
        return "win chance within noise of #2's; the higher expected score decides"
    return "best win chance; #2 within noise"


def option_to_data(stats: ActionStats) -> dict[str, object]:
    """One option in the documented JSON shape."""
    return {
        "action": str(action_from_code(stats.action)),
        "win_probability": round(stats.win, 6),
        "ci95": [round(stats.ci_low, 6), round(stats.ci_high, 6)],
        "expected_score": round(stats.score, 4),
        "visits": stats.visits,
        "exact": stats.exact,
        "share": None if stats.share is None else round(stats.share, 4),
    }


def _facts_to_data(facts: ReturnFacts) -> dict[str, object]:
    return {
        "storms_on_track": facts.storms_on_track,
        "threshold": facts.threshold,
        "storm_hit_chance_this_turn": round(facts.hit_chance_this_turn, 6),
        "storm_hit_chance_this_turn_exact": facts.hit_chance_this_turn_exact,
        "storm_hit_chance_weather_tile": round(facts.hit_chance_weather_only, 6),
        "storm_hit_chance_walk": round(facts.hit_chance_walk, 6),
        "animal_points_at_stake": facts.animal_points,
        "tiles_at_risk": facts.tiles_at_risk,
        "steps_at_risk": facts.steps_at_risk,
        "vp_at_risk": facts.vp_at_risk,
    }


def advice_to_data(advice: Advice, source: str = "") -> dict[str, object]:
    """The ``refuge best-move --json`` document (docs/advisor.md)."""
    pos = advice.position
    chosen = advice.recommendation
    return {
        "format": JSON_FORMAT,
        "position": source,
        "player": advice.result.player,
        "decision": phases.NAMES[pos.phase],
        "walk": pos.walk + 1,
        "turn": pos.turn + 1,
        "options": [option_to_data(s) for s in advice.ranked],
        "best": advice.best,
        "within_noise_of_second": chosen.within_noise,
        "second": None if chosen.runner_up is None else str(action_from_code(chosen.runner_up)),
        "difference_to_second": None if chosen.runner_up is None else difference_to_data(
            advice.result.stats(chosen.action), advice.result.stats(chosen.runner_up)),
        "players": [{"player": c.player, "win_probability": round(c.win, 6),
                     "expected_score": round(c.score, 4)} for c in advice.players],
        "line": [str(action_from_code(a)) for a in advice.line],
        "mix": [{"action": str(action_from_code(a)), "probability": round(share, 4)} for a, share in advice.mix],
        "iterations": advice.result.iterations,
        "seconds": round(advice.result.seconds, 4),
        "seed": advice.request.seed,
        "workers": advice.request.workers,
        "backend": advice.result.backend,
        "facts": None if advice.facts is None else _facts_to_data(advice.facts),
    }


def _shown(win: float) -> float:
    """A win chance as the table shows it (percent to 0.1), so rank notes follow what is read."""
    return round(100 * win, 1)


def rank_note(advice: Advice, index: int) -> str:
    """Why the option at `index` of :attr:`Advice.ranked` sits above an option whose shown win is
    higher, or below one whose shown win is lower (empty when the ranks follow the win chances)."""
    ranked = advice.ranked
    stats = ranked[index]
    if stats.action == advice.recommendation.action and any(
            _shown(other.win) > _shown(stats.win) for other in ranked[index + 1:]):
        if advice.recommendation.within_noise:
            return "first: higher exp. score, win within noise"
        return "first: the higher-win options have too few visits"
    if not advice.result.is_contender(stats) and any(
            _shown(other.win) < _shown(stats.win) for other in ranked[:index]):
        return "few visits: its win is not trusted, ranked after the options searched enough"
    return ""


def advice_rows(advice: Advice) -> list[list[object]]:
    """Table rows: rank, action, win %, 95% noise interval, expected score, visits, note (which
    says why a row is ranked out of win order, :func:`rank_note`)."""
    chosen = advice.recommendation
    mixed = bool(advice.mix)
    rows: list[list[object]] = []
    for rank, stats in enumerate(advice.ranked, 1):
        note = "exact" if stats.exact else ""
        if stats.action == chosen.action and chosen.within_noise:
            tied = stats.exact and advice.result.stats(chosen.runner_up or stats.action).exact
            note = ", ".join(filter(None, [note, "tied with #2" if tied else "within noise of #2"]))
        note = ", ".join(filter(None, [note, rank_note(advice, rank - 1)]))
        share = dict(advice.mix).get(stats.action) if mixed else None
        if share is not None:
            note = ", ".join(filter(None, [f"mix {100 * share:.0f}%", note]))
        interval = ("exact" if stats.exact else
                    f"{100 * stats.ci_low:.1f}–{100 * stats.ci_high:.1f}%")
        rows.append([rank, str(action_from_code(stats.action)),
                     f"{100 * stats.win:.1f}%" + ("*" if stats.exact else ""), interval,
                     f"{stats.score:.1f}", stats.visits, note])
    return rows


ADVICE_HEADERS = ["#", "action", "win", "noise (95%)", "exp. score", "visits", "note"]
NOISE_NOTE = ("noise (95%): the search's Monte Carlo noise, widened to the spread between workers and "
              "the best replies below each option; not the continuation's bias (docs/advisor.md). "
              "* exact (solved endgame). pp: percentage points of win chance.")
"""What the table's interval means, printed under it."""


def player_rows(advice: Advice, names: Sequence[str] = ()) -> list[list[object]]:
    """Every player (by name where the position has names) with their win chance and expected
    score if the recommendation is played."""
    return [[seat_label(c.player, names, c.player == advice.result.player),
             f"{100 * c.win:.1f}%", f"{c.score:.1f}"] for c in advice.players]


PLAYER_HEADERS = ["player", "win", "exp. score"]
PLAYERS_TITLE = ("Every player's chances if you play it (a tie for first shares the win: each of k "
                 "tied winners counts 1/k, rule C18):")
