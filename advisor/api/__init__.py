"""The advisor as a Python library: load a position, analyse it within a limit, read the options.

Modelled on python-chess's ``engine.analyse(board, limit)``: :func:`analyse` searches the decision
at a position as ``refuge best-move`` does and returns its table as objects, ranked as the table
ranks them (each with the note that says why a row sits out of win order)::

    >>> from advisor import api
    >>> position = api.load("storm-one-away")
    >>> analysis = api.analyse(position, api.Limit(iterations=100), seed=1)
    >>> analysis.player, analysis.iterations
    (0, 100)
    >>> sorted(option.action for option in analysis.options)
    ['draw', 'return']
    >>> analysis.best is analysis.options[0]
    True
    >>> all(o.low <= o.win <= o.high for o in analysis.options)
    True
    >>> round(sum(p.win for p in analysis.players), 6)  # a shared win counts 1/k (C18)
    1.0
    >>> analysis.line[0] == analysis.best.action
    True

The same seed and limit give the same analysis; a time limit gives results that vary from run to
run. Positions come from files (``refuge-position/1`` or a game record: its last position), the
shipped examples, or the rules engine itself (:class:`positions.Position`)::

    >>> from positions import Position
    >>> opening = api.analyse(Position.new_game(2), api.Limit(iterations=30))
    >>> [option.action for option in opening.options] in (["draw", "return"], ["return", "draw"])
    True
    >>> api.Limit()
    Traceback (most recent call last):
    ...
    ValueError: Limit: give iterations, seconds or both

docs/advisor.md ("Python API") describes the fields; ``refuge best-move --json`` is the same analysis
as a document. The package sits beside ``cli/`` above the middle layer: it may import
``advisor.analysis``, ``advisor.players``, ``search`` and ``positions`` (tests/layering.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from advisor.analysis.best_move import Advice, advise, rank_note
from advisor.players.bots import advisor_request
from advisor.players.tablebase import ExactEndgames
from positions.documents import parse_document
from positions.examples import example_names, load_example
from positions.files import read_text_file
from positions.kernel.actions import action_from_code
from positions.kernel.position import Position
from positions.record import GameRecord, replay
from positions.saved import parse_position, position_to_data
from positions.validation import parse_json

__all__ = ["Analysis", "Limit", "Option", "PlayerChance", "analyse", "load"]


@dataclass(frozen=True)
class Limit:
    """How long to search: iterations (reproducible), seconds (wall clock), or both (the first reached)."""

    iterations: int | None = None
    seconds: float | None = None

    def __post_init__(self) -> None:
        if self.iterations is None and self.seconds is None:
            raise ValueError("Limit: give iterations, seconds or both")


@dataclass(frozen=True)
class Option:
    """One option at the decision, from the deciding player's point of view."""

    action: str
    """The option in action notation (docs/notation.md): ``draw``, ``play compass``, ``buy bear``."""
    win: float
    """Win share if it is played (a tie for first counts 1/k, C18)."""
    low: float
    high: float
    """The 95% noise interval of ``win`` (the search's Monte Carlo noise, docs/advisor.md)."""
    score: float
    """Expected final score (VP)."""
    visits: int
    exact: bool
    """Solved exactly (an endgame) rather than estimated."""
    note: str
    """Why the option is ranked out of win order, if it is (``first: higher exp. score, ...``)."""


@dataclass(frozen=True)
class PlayerChance:
    """A player's win share and expected final score if the best option is played."""

    player: int
    win: float
    score: float


@dataclass(frozen=True)
class Analysis:
    """What :func:`analyse` found: the options ranked as ``refuge best-move`` ranks them."""

    player: int
    """The seat deciding."""
    options: tuple[Option, ...]
    """Best first: the recommendation, the runner-up, then the rest by win share."""
    within_noise: bool
    """The runner-up's win share is within the noise of the best's."""
    players: tuple[PlayerChance, ...]
    line: tuple[str, ...]
    """The principal line: the best option, then the player's own likeliest next decisions."""
    iterations: int
    seconds: float

    @property
    def best(self) -> Option:
        """The recommended option."""
        return self.options[0]


def load(source: str) -> Position:
    """The position in a file (a saved position, or a game record's last position as its player to
    decide sees it) or the shipped example of that name (``refuge examples`` lists them).

    Raises:
        positions.RefugeError: no such file or example, or not a valid position or record.
    """
    if source in example_names():
        return load_example(source).position
    document = parse_document(parse_json(read_text_file(source), source), source)
    if isinstance(document, GameRecord):
        final = replay(document, source).final
        return parse_position(position_to_data(final)).position  # others' hidden choices left out
    return document.position


def analyse(position: Position, limit: Limit, seed: int = 0, workers: int = 1) -> Analysis:
    """Search the decision at `position` within `limit` as ``refuge best-move`` does.

    Raises:
        ValueError: `position` is not a player's decision (chance or the end of the game).
    """
    if position.current_player() < 0:
        raise ValueError("analyse: the position is not a player's decision (chance or the end)")
    request = advisor_request(iterations=limit.iterations, seconds=limit.seconds, seed=seed,
                              workers=workers, oracle=ExactEndgames())
    return analysis_from(advise(position, request))


def analysis_from(advice: Advice) -> Analysis:
    """The :class:`Analysis` of an advisor search's answer."""
    options = tuple(Option(str(action_from_code(s.action)), s.win, s.ci_low, s.ci_high, s.score,
                           s.visits, s.exact, rank_note(advice, index))
                    for index, s in enumerate(advice.ranked))
    return Analysis(advice.result.player, options, advice.recommendation.within_noise,
                    tuple(PlayerChance(c.player, c.win, c.score) for c in advice.players),
                    tuple(str(action_from_code(a)) for a in advice.line),
                    advice.result.iterations, advice.result.seconds)
