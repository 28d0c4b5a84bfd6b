"""A game told as it is played: each event in words, hidden choices held until revealed, a summary
of every turn (plays, forced ones too, buys, skipped buys) and of every walk (animal points, Storm
penalties, VP and Steps). `refuge play` prints it."""

from __future__ import annotations

from typing import NamedTuple, Sequence

from positions.kernel import phases
from positions.kernel.actions import (
    DRAWN_ONE_BASE, DRAWN_TWO_BASE, PLAY, TIEBREAK_BASE, Action, drawn_pair,
)
from positions.kernel.position import Position
from positions.record import GameRecord, replay
from positions.render import player_changes, plural, verb
from positions.kernel.rules import paw_total
from positions.kernel.tiles import COST, KIND_BY_NAME, TILES


class WalkLine(NamedTuple):
    """One player's walk: animal points scored on returning, Storm penalty, VP and Steps after it."""

    label: str
    animal_points: int
    storm_steps: int
    storm_vp: int
    vp: int
    steps: int


class Narrator:
    """Turns the events of one game into lines of text (see the module docstring)."""

    def __init__(self, labels: Sequence[str], start: Position) -> None:
        self.labels = list(labels)
        self.turn_start = start.copy()
        self.held: list[str] = []
        self.decided: set[tuple[int, int]] = set()
        self.animal_points = [0] * start.players
        self.storm_steps = [0] * start.players
        self.storm_vp = [0] * start.players
        self.walks: list[list[WalkLine]] = []
        """Every finished walk's summary, in order."""

    def label(self, player: int) -> str:
        """A seat's label (``you``, ``ismcts``, a name)."""
        return self.labels[player] if player < len(self.labels) else f"player {player}"

    def event(self, before: Position, actor: int, action: Action, after: Position,
              hidden: bool) -> list[str]:
        """The lines to print after `action` took `before` to `after` (nothing while hidden)."""
        if actor >= 0:
            self.decided.add((actor, action))
        line = self._describe(before, actor, action)
        if hidden:
            self.held.append(line)
            return []
        lines: list[str] = []
        if self.held:
            lines.append("revealed: " + "; ".join(self.held + [line]))
            self.held = []
        else:
            lines.append(line)
        self._score_walk(before, actor, after)
        if (after.walk, after.turn) != (before.walk, before.turn) or after.is_terminal():
            lines.extend(self._turn_summary(before, after))
        return lines

    def _describe(self, pos: Position, actor: int, action: Action) -> str:
        if actor >= 0:
            return f"{self.label(actor)}: {action}"
        if pos.phase == phases.WEATHER:
            return f"weather: {str(action).split()[-1]}"
        if pos.phase == phases.TIEBREAK:
            kind = pos.ties[0][0]
            return f"tie-break: {self.label(action - TIEBREAK_BASE)} gets the {TILES[kind].name}"
        kinds = drawn_pair(action) if action >= DRAWN_TWO_BASE else (action - DRAWN_ONE_BASE,)
        drawer = self.label(pos.actor)
        return f"{drawer} {verb(drawer, 'draws')} {', '.join(TILES[k].name for k in kinds)}"

    def _score_walk(self, before: Position, actor: int, after: Position) -> None:
        if before.phase == phases.RETURN_DISCARD and actor == before.actor:
            self.animal_points[actor] += paw_total(before.paths[actor])
        if after.walk != before.walk:
            for p in range(before.players):
                returning = before.phase == phases.RETURN_DISCARD and before.actor == p
                if before.walking[p] and not returning:
                    self.storm_steps[p] += max(0, before.steps[p] - after.steps[p])
                    self.storm_vp[p] += max(0, before.vp[p] - after.vp[p])
            self.walks.append([WalkLine(self.label(p), self.animal_points[p], self.storm_steps[p],
                                        self.storm_vp[p], after.vp[p], after.steps[p])
                               for p in range(after.players)])
            self.animal_points = [0] * after.players
            self.storm_steps = [0] * after.players
            self.storm_vp = [0] * after.players

    def _turn_summary(self, before: Position, after: Position) -> list[str]:
        start = self.turn_start
        title = f"-- walk {start.walk + 1}, turn {start.turn + 1}:"
        changes = player_changes(start, before, self.labels)
        if after.walk != before.walk:
            for p, words in enumerate(player_changes(before, after, self.labels)):
                changes[p] += words
        lines = [title] + [f"   {self.label(p)}: {', '.join(self._mark_forced(p, words))}"
                           for p, words in enumerate(changes) if words]
        if before.phase == phases.WEATHER:
            for p in range(before.players):
                if before.walking[p] and not self._bought(p):
                    cheapest = min((COST[k] for k in before.route.kinds if before.market[k]),
                                   default=0)
                    if cheapest > before.steps[p]:
                        who = self.label(p)
                        lines.append(f"   {who}: {verb(who, 'buys nothing')} (cheapest tile costs "
                                     f"{plural(cheapest, 'Step')}, {verb(who, 'has')} "
                                     f"{before.steps[p]})")
        self.turn_start = after.copy()
        self.decided = set()
        return lines

    def _bought(self, player: int) -> bool:
        return any(p == player and (str(a).startswith("buy") or str(a) == "pass")
                   for p, a in self.decided)

    def _mark_forced(self, player: int, words: list[str]) -> list[str]:
        """``plays canteen (forced)`` where the player made no such decision this turn."""
        marked = []
        for word in words:
            verb_word, _, kind = word.partition(" ")
            if verb_word in ("plays", "play") and (player, PLAY[KIND_BY_NAME[kind]]) not in self.decided:
                word += " (forced)"
            marked.append(word)
        return marked


WALK_HEADERS = ["player", "animal points", "Storm penalty", "VP", "Steps"]


def walk_rows(walk: Sequence[WalkLine]) -> list[list[object]]:
    """A walk summary as table rows (``-2 Steps, -1 VP`` for a Storm penalty)."""
    rows: list[list[object]] = []
    for line in walk:
        penalty = ", ".join(part for part in (
            f"-{plural(line.storm_steps, 'Step')}" if line.storm_steps else "",
            f"-{line.storm_vp} VP" if line.storm_vp else "") if part) or "-"
        rows.append([line.label, line.animal_points, penalty, line.vp, line.steps])
    return rows


def narrator_for(labels: Sequence[str], record: GameRecord) -> Narrator:
    """A narrator that has followed every event of `record` (after a take-back, say)."""
    game = replay(record)
    narrator = Narrator(labels, record.start())
    for index, step in enumerate(game.steps):
        after = game.position_at(index + 1)
        hidden = after.is_simultaneous() and step_of(after) == step_of(step.position)
        narrator.event(step.position, step.player, step.action, after, hidden)
    return narrator


def step_of(pos: Position) -> tuple[int, int, int]:
    """Walk, turn and phase: equal before and after an action while a simultaneous step goes on."""
    return pos.walk, pos.turn, pos.phase
