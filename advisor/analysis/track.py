"""Following a real game as it is played: events typed one a line, undo, advice, and the record.

A :class:`TrackSession` holds the game so far as the list of entries typed (who, what), in the order
they were typed. Simultaneous steps (decide, choose, buy; C6, C8, C12) take their choices in any
order: a choice is kept until every earlier seat of the step has chosen, then they are applied in
seat order, as the engine resolves them, so the record is the same whatever the typing order.
Undo drops the last entries and replays the rest. :meth:`TrackSession.enter_saved` and
:meth:`TrackSession.undo_saved` change the session only once a save of the new record has succeeded.
"""

from __future__ import annotations

from typing import Callable, NamedTuple, Sequence

from advisor.analysis.best_move import Advice, advise
from advisor.players.bots import DEFAULT_ROLLOUT
from positions.kernel import phases, rules
from positions.kernel.actions import Action
from positions.errors import IllegalActionError, InvalidActionError
from positions.events import event_line, event_options, normalize, read_event, spellings, split_event_line
from positions.kernel.position import Position
from positions.record import GameRecord, GameRecorder, replay, where
from positions.render import printable, tile_counts, tile_list
from positions.kernel.tiles import TILES
from search.request import SearchRequest

COMMANDS = ("advise", "show", "bags", "undo", "save", "help", "quit")
HELP = """\
Type each event as it happens, one a line, in action notation (docs/notation.md):
  draw / return, play <tile>, option steps|vp|play|discard, discard path <tile> | second | none,
  buy <tile>, pass; chance: drawn <tile> [<tile>], weather sun|storm, tiebreak <seat>.
Prefix a seat or name for whom it is ("1: buy bear", "Ann: draw"); short forms work where only one
event fits ("draw sign storm", "sign storm", "sun", "bear" at a buy, "steps", "none").
Simultaneous steps (decide, choose, buy) take the players' choices in any order.
Commands: advise [SEAT or NAME] (best move), show (the position), bags (every bag), undo [N],
save, help (or ?), quit. Lines starting with # are comments."""


class Entry(NamedTuple):
    """One typed event: who made it (a seat or ``CHANCE_PLAYER``) and the action."""

    player: int
    action: Action


class Outcome(NamedTuple):
    """What entering an event did: the lines to print."""

    lines: tuple[str, ...]


class TrackSession:
    """A game followed event by event from its setup (see the module docstring)."""

    def __init__(self, setup: GameRecord) -> None:
        self.setup = setup._replace(events=(), result=None, actors=())
        self.recorder = GameRecorder(self.setup)
        self.entries: list[Entry] = []
        self.held: dict[int, Action] = {}
        """Choices of a simultaneous step kept until the earlier seats have chosen."""
        self.revealed: list[str] = []
        """The step's choices applied so far, shown together when it is complete."""

    @classmethod
    def from_record(cls, record: GameRecord, source: str = "") -> "TrackSession":
        """A session continuing `record` (every event replayed and checked).

        Raises:
            IllegalActionError: an event of the record is not legal where it stands.
        """
        session = cls(record)
        for step in replay(record, source).steps:
            session.enter(step.player, step.action)
        return session

    # --- state -----------------------------------------------------------------------------------

    @property
    def position(self) -> Position:
        """The position after every applied event (held choices not yet applied)."""
        return self.recorder.position

    @property
    def names(self) -> tuple[str, ...]:
        """The players' names (may be empty)."""
        return self.setup.names

    def record(self) -> GameRecord:
        """The game so far (held choices are not events yet)."""
        return self.recorder.record()

    def label(self, player: int) -> str:
        """``1 (Ben)`` or ``1``."""
        if player == phases.CHANCE_PLAYER:
            return "chance"
        name = printable(self.names[player]) if player < len(self.names) else ""
        return f"{player} ({name})" if name else str(player)

    def typed_label(self, player: int) -> str:
        """How the event lines name a seat: its name where one reads back as that seat (``Ann``),
        else the number, so that every printed event can be typed again."""
        name = self.names[player] if player < len(self.names) else ""
        if not name or ":" in name or "#" in name or printable(name) != name or name != name.strip():
            return str(player)
        try:
            seat = split_event_line(f"{name}:", self.names, self.position.players).player
        except InvalidActionError:
            return str(player)
        return name if seat == player else str(player)

    def waiting(self) -> list[int]:
        """Seats still to choose in the current simultaneous step (empty outside one)."""
        return [p for p in choosing(self.position) if p not in self.held]

    def expected(self) -> list[int]:
        """Whose event comes next: the waiting seats, the player to decide, or ``CHANCE_PLAYER``."""
        pos = self.position
        if pos.is_terminal():
            return []
        if pos.is_simultaneous():
            return self.waiting()
        return [pos.current_player()]

    def prompt(self) -> str:
        """A prompt naming the step, whose event is expected and the legal choices."""
        pos = self.position
        if pos.is_terminal():
            return f"game over, scores {pos.scores()} > "
        step = f"{where(pos)}, {phases.NAMES[pos.phase]}"
        if pos.is_chance():
            return f"{step}: {self._chance_hint(pos)} > "
        return f"{step}: {self.seat_options(self.expected())} > "

    def seat_options(self, seats: list[int]) -> str:
        """Each seat with its own legal choices: ``Ann (play sign | play fox), Ben (play bird | play deer)``
        (at a simultaneous step every seat has its own hand); seats with the same choices share them:
        ``0, 1 (return | draw)``."""
        options = [" | ".join(str(a) for a in event_options(self.position, p)) for p in seats]
        if len(set(options)) == 1:
            return f"{', '.join(self.label(p) for p in seats)} ({options[0]})"
        return ", ".join(f"{self.label(p)} ({text})" for p, text in zip(seats, options))

    def _chance_hint(self, pos: Position) -> str:
        if pos.phase == phases.WEATHER:
            return "weather sun | weather storm"
        if pos.phase == phases.TIEBREAK:
            kind, players, _ = pos.ties[0]
            return f"tiebreak for {TILES[kind].name}: {' | '.join(map(str, players))}"
        count = 1 if pos.phase == phases.EXTRA_DRAW or len(pos.bags[pos.actor]) == 1 else 2
        return (f"{self.label(pos.actor)} draws {count} from [{tile_counts(pos.bags[pos.actor])}]"
                f" (drawn <tile>{' <tile>' if count == 2 else ''})")

    # --- entering events ------------------------------------------------------------------------

    def read_line(self, line: str) -> Entry:
        """The event a typed line names: who (stated or the next expected) and which action.

        Raises:
            InvalidActionError: unreadable, or a seat that has nothing to enter now.
            IllegalActionError: readable but not legal here (the message says why).
        """
        pos = self.position
        if pos.is_terminal():
            raise IllegalActionError("the game is over: no more events (undo to change the end)")
        said = split_event_line(line, self.names, pos.players)
        expected = self.expected()
        player = said.player
        if pos.is_chance():
            drawer = pos.actor if pos.phase in (phases.DEAL, phases.EXTRA_DRAW) else None
            if player not in (None, phases.CHANCE_PLAYER, drawer):
                raise InvalidActionError(f"the next event is chance ({self._chance_hint(pos)}), "
                                         f"not {self.label(player)}'s")
            return Entry(phases.CHANCE_PLAYER, read_event(said.text, pos))
        if player is None or player == phases.CHANCE_PLAYER:
            if player == phases.CHANCE_PLAYER:
                raise InvalidActionError(f"the next event is a decision of "
                                         f"{', '.join(self.label(p) for p in expected)}, not chance")
            player = expected[0]
        if player in self.held:
            raise InvalidActionError(f"{self.label(player)} has already chosen in this step "
                                     f"(undo to change it)")
        if player not in expected:
            raise InvalidActionError(self._not_now(player, said.text))
        return Entry(player, read_event(said.text, pos, player))

    def _not_now(self, player: int, text: str) -> str:
        """Why `player` has nothing to enter now, and whose event comes first."""
        pos = self.position
        seats = self.expected()
        if len(seats) == 1:
            options = " | ".join(str(a) for a in event_options(pos, seats[0]))
            first = f"the next event is {self.label(seats[0])}'s {phases.NAMES[pos.phase]} ({options})"
        else:
            first = f"the next event is the {phases.NAMES[pos.phase]} of {self.seat_options(seats)}"
        if not pos.walking[player]:
            return f"{self.label(player)} is home this walk: {first}"
        if pos.phase == phases.RETURN_DISCARD and normalize(text).startswith("draw"):
            return (f"{self.label(player)}'s draw comes after the returning players' discards: "
                    f"{first}")
        return f"{self.label(player)} has nothing to decide now: {first}"

    def seat(self, word: str) -> int:
        """The seat a word names: ``1``, ``P1`` or a player's name (any case).

        Raises:
            InvalidActionError: the word names no seat (with a "did you mean").
        """
        said = split_event_line(f"{word}:", self.names, self.position.players)
        if said.player is None or said.player < 0:
            raise InvalidActionError(f"{word!r} is not a player")
        return said.player

    def enter_line(self, line: str) -> Outcome:
        """Read and enter one typed event (see :meth:`read_line` for what it raises)."""
        entry = self.read_line(line)
        return self.enter(entry.player, entry.action)

    def enter(self, player: int, action: Action) -> Outcome:
        """Enter an event; a simultaneous choice waits for the earlier seats of its step.

        Raises:
            IllegalActionError: not legal for `player` here.
        """
        pos = self.position
        if not pos.is_simultaneous():
            self.entries.append(Entry(player, action))
            return Outcome((self._apply(action),))
        if player not in self.waiting() or action not in rules.step_legal(pos, player):
            raise IllegalActionError(f"{action!s} is not open to {self.label(player)} now")
        step = _step(pos)
        self.held[player] = action
        self.entries.append(Entry(player, action))
        while self.position.is_simultaneous() and self.position.actor in self.held:
            self.revealed.append(self._apply(self.held.pop(self.position.actor)))
        if self.held or _step(self.position) == step:
            waiting = ", ".join(self.label(p) for p in self.waiting())
            return Outcome((f"{self.label(player)} has chosen (hidden until {waiting} choose{'s' if len(self.waiting()) == 1 else ''})",))
        lines = ("revealed: " + "; ".join(self.revealed),)
        self.revealed = []
        return Outcome(lines)

    def _apply(self, action: Action) -> str:
        text = event_line(self.position, action, self.typed_label)
        self.recorder.apply(action)
        return text

    def undo(self, count: int = 1) -> int:
        """Drop the last `count` entries (a held choice counts as one) and replay the rest; how many
        were dropped."""
        count = max(0, min(count, len(self.entries)))
        kept = self.entries[:len(self.entries) - count]
        self.recorder = GameRecorder(self.setup)
        self.entries = []
        self.held = {}
        self.revealed = []
        for entry in kept:
            self.enter(entry.player, entry.action)
        return count

    # --- save, then commit ----------------------------------------------------------------------

    def _copy(self) -> "TrackSession":
        twin = TrackSession(self.setup)
        twin.recorder.position = self.position.copy()
        twin.recorder.events = list(self.recorder.events)
        twin.entries, twin.held, twin.revealed = list(self.entries), dict(self.held), list(self.revealed)
        return twin

    def _take(self, twin: "TrackSession") -> None:
        self.recorder, self.entries, self.held, self.revealed = \
            twin.recorder, twin.entries, twin.held, twin.revealed

    def enter_saved(self, player: int, action: Action, save: Callable[[GameRecord], None]) -> Outcome:
        """:meth:`enter` on a copy, `save` its record, then adopt it: when the event is refused or
        `save` raises, the session is as it was and the error propagates."""
        twin = self._copy()
        outcome = twin.enter(player, action)
        save(twin.record())
        self._take(twin)
        return outcome

    def undo_saved(self, count: int, save: Callable[[GameRecord], None]) -> int:
        """:meth:`undo` on a copy, `save` its record, then adopt it (unchanged if `save` raises)."""
        twin = self._copy()
        dropped = twin.undo(count)
        save(twin.record())
        self._take(twin)
        return dropped

    # --- questions --------------------------------------------------------------------------------

    def decision_view(self, player: int | None = None) -> Position:
        """The position at `player`'s decision (default: the first expected), as that player sees it:
        earlier seats of a simultaneous step get placeholder choices that a search resamples.

        Raises:
            InvalidActionError: nobody (or not `player`) has a decision to make now.
        """
        expected = self.expected()
        pos = self.position
        if not expected or pos.is_chance():
            what = "the game is over" if pos.is_terminal() else "the next event is chance"
            raise InvalidActionError(f"no decision to advise on: {what}")
        player = expected[0] if player is None else player
        if player not in expected:
            raise InvalidActionError(f"{self.label(player)} has no decision now: waiting for "
                                     f"{', '.join(self.label(p) for p in expected)}")
        view = pos.copy()
        while view.actor != player:
            view.apply(rules.step_legal(view, view.actor)[0])
        return view

    def advise(self, player: int | None = None, iterations: int = 1000, seed: int = 0) -> Advice:
        """The best move for `player` (default: the first expected) as ``refuge best-move`` finds it.

        Raises:
            InvalidActionError: nobody (or not `player`) has a decision to make now.
        """
        view = self.decision_view(player)
        request = SearchRequest(iterations=iterations, seed=seed, rollout=DEFAULT_ROLLOUT)
        return advise(view, request)

    def bags(self) -> list[str]:
        """Every player's bag (and hand, path, set-aside tiles) as the events imply them."""
        pos = self.position
        lines = []
        for p in range(pos.players):
            extra = []
            for label, tiles in (("hand", pos.hands[p]), ("path", pos.paths[p]),
                                 ("set aside", pos.set_aside[p])):
                if tiles:
                    extra.append(f"{label} [{tile_list(tiles)}]")
            lines.append(f"{self.label(p)}: bag {len(pos.bags[p])}: {tile_counts(pos.bags[p])}"
                         + ("; " + "; ".join(extra) if extra else ""))
        return lines

    def completions(self, text: str) -> list[str]:
        """Whole lines starting with `text`: the commands and every event open now (with seats)."""
        pos = self.position
        words: list[str] = list(COMMANDS)
        if not pos.is_terminal():
            if pos.is_chance():
                words += [spellings(a)[0] for a in pos.legal_actions()]
            else:
                for p in self.expected():
                    options = [spellings(a)[0] for a in event_options(pos, p)]
                    words += [f"{p}: {o}" for o in options]
                    if p == self.expected()[0]:
                        words += options
        low = text.lower()
        return sorted({w for w in words if w.startswith(low)})


def choosing(pos: Position) -> list[int]:
    """The seats with a choice to make in the current simultaneous step, from the one the engine
    resolves next on (empty outside one); they may choose in any order."""
    if not pos.is_simultaneous():
        return []
    return [p for p in range(pos.actor, pos.players) if len(rules.step_legal(pos, p)) >= 2]


def _step(pos: Position) -> tuple[int, int, int]:
    return pos.walk, pos.turn, pos.phase


def entries_from_lines(session: TrackSession, lines: Sequence[str]) -> None:
    """Enter every event line (comments and blank lines skipped) of a script into `session`.

    Raises:
        InvalidActionError, IllegalActionError: the first bad line (its 1-based number named).
    """
    for number, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        try:
            session.enter_line(text)
        except (InvalidActionError, IllegalActionError) as error:
            raise type(error)(f"line {number}: {error}") from None
