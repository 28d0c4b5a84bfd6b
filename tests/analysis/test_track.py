"""Following a game event by event (advisor/analysis/track.py): any-order steps, undo, advice."""

from __future__ import annotations

import pytest

from advisor.analysis.track import TrackSession, entries_from_lines
from positions.kernel import phases
from positions.errors import IllegalActionError, InvalidActionError
from positions.record import GameRecord
from positions.kernel.routes import ROUTES
from tests.track_games import reorder_simultaneous, script_of, self_played


@pytest.fixture(scope="module")
def game() -> GameRecord:
    return self_played(3, seed=5).record()


def new_session(players: int = 3, names: tuple[str, ...] = ()) -> TrackSession:
    return TrackSession(GameRecord(players, ROUTES["forest"], names=names))


def test_movetext_replays_to_the_same_record(game: GameRecord) -> None:
    session = new_session()
    entries_from_lines(session, script_of(game))
    assert session.record().events == game.events
    assert session.position.is_terminal()


def test_simultaneous_choices_in_any_order_give_the_seat_order_record(game: GameRecord) -> None:
    # C6, C12: choices are made without seeing the others' and revealed together, so the order in
    # which people call them out cannot matter.
    lines = script_of(game)
    reordered = reorder_simultaneous(lines)
    assert reordered != lines
    session = new_session()
    entries_from_lines(session, reordered)
    assert session.record().events == game.events


def test_a_choice_is_held_until_the_earlier_seats_have_chosen() -> None:
    session = new_session(names=("Ann", "Ben", "Cy"))
    out = session.enter_line("Cy: return")
    assert "hidden until 0 (Ann), 1 (Ben) choose" in out.lines[0]
    assert session.record().events == ()
    assert session.waiting() == [0, 1]
    session.enter_line("0: draw")
    assert [str(a) for a in session.record().events] == ["draw"]
    out = session.enter_line("draw")  # the next waiting seat: Ben
    assert out.lines == ("revealed: Ann: draw; Ben: draw; Cy: return",)  # names, as typed
    assert session.position.phase == phases.DEAL


def test_short_forms_name_the_one_event_that_fits() -> None:
    session = new_session()
    for line in ("draw", "draw", "return"):
        session.enter_line(line)
    session.enter_line("draw sign storm")          # player 0's two tiles, any order
    session.enter_line("1: hedgehog, sign")
    assert [str(a) for a in session.record().events][-2:] == ["drawn storm sign",
                                                              "drawn sign hedgehog"]


def test_unreadable_and_illegal_events_say_why() -> None:
    session = new_session()
    with pytest.raises(InvalidActionError, match="did you mean 'draw'"):
        session.enter_line("drwa")
    with pytest.raises(InvalidActionError, match="not a player"):
        session.enter_line("7: draw")
    for line in ("draw", "draw", "draw"):
        session.enter_line(line)
    with pytest.raises(InvalidActionError, match="hikng_poles.*did you mean 'hiking_poles'"):
        session.enter_line("drawn hikng_poles sign")
    with pytest.raises(IllegalActionError, match="bag holds 0 bear"):
        session.enter_line("drawn bear sign")
    with pytest.raises(InvalidActionError, match="the next event is chance"):
        session.enter_line("1: draw sign sign")
    assert len(session.record().events) == 3  # nothing applied by a refused line


def test_buy_that_costs_too_much_names_the_cost() -> None:
    # C12: a tile is bought by paying its cost in Steps; a player starts with 2 (C1).
    session = new_session(2)
    for line in ("draw", "draw", "drawn sign butterfly", "drawn sign hedgehog", "play butterfly",
                 "play hedgehog"):
        session.enter_line(line)
    assert session.position.phase == phases.BUY
    with pytest.raises(IllegalActionError, match="buy bear: costs 12 Steps, you have 2"):
        session.enter_line("buy bear")


def test_undo_drops_entries_held_choices_included(game: GameRecord) -> None:
    lines = [line for line in script_of(game) if not line.startswith("#")]
    session = new_session()
    entries_from_lines(session, lines[:20])
    before = session.record()
    session.enter_line(lines[20])
    session.enter_line(lines[21])
    assert session.undo(2) == 2
    assert session.record() == before
    assert session.undo(1000) == 20
    assert session.record().events == ()


def test_advise_at_a_simultaneous_step_for_a_later_seat() -> None:
    session = new_session()
    session.enter_line("0: draw")
    view = session.decision_view(2)
    assert view.actor == 2 and view.phase == phases.DECIDE
    advice = session.advise(2, iterations=30, seed=1)
    assert advice.result.player == 2
    assert advice.best in ("return", "draw")
    with pytest.raises(InvalidActionError, match="has no decision now"):
        session.advise(0)


def test_continuing_a_record_replays_it(game: GameRecord) -> None:
    half = game._replace(events=game.events[:40], result=None)
    session = TrackSession.from_record(half)
    assert session.record().events == game.events[:40]


def test_completions_offer_the_open_events_and_commands() -> None:
    session = new_session()
    assert "draw" in session.completions("dr")
    assert "2: return" in session.completions("2: r")
    assert session.completions("und") == ["undo"]


def test_a_failed_save_leaves_the_session_as_it_was(game: GameRecord) -> None:
    """Save, then commit (issue 24): the session changes only once `save` has the new record."""
    session = new_session()
    saved: list[GameRecord] = []
    session.enter_saved(0, game.events[0], saved.append)
    assert saved[-1].events == game.events[:1] == session.record().events

    def broken(record: GameRecord) -> None:
        raise OSError("disk full")

    entries, held, record, actor = list(session.entries), dict(session.held), session.record(), session.position.actor
    for attempt in (lambda: session.enter_saved(1, game.events[1], broken),
                    lambda: session.undo_saved(1, broken)):
        with pytest.raises(OSError, match="disk full"):
            attempt()
        assert (session.entries, session.held, session.record()) == (entries, held, record)
        assert session.position.actor == actor and session.recorder.events == list(record.events)
    with pytest.raises(IllegalActionError):
        session.enter_saved(0, game.events[0], saved.append)  # seat 0 has chosen: refused, not saved
    assert len(saved) == 1
    assert session.undo_saved(1, saved.append) == 1 and saved[-1].events == () == session.record().events


def test_a_simultaneous_choose_lists_each_seats_own_tiles() -> None:
    """C8: both walkers choose from their own hands at once, so the prompt lists each seat's options
    (it listed the first seat's options for both)."""
    session = new_session(2, names=("Ann", "Ben"))
    for line in ("draw", "draw", "drawn sign butterfly", "drawn signpost squirrel"):
        session.enter_line(line)
    assert session.position.phase == phases.CHOOSE and session.waiting() == [0, 1]
    prompt = session.prompt()
    assert "0 (Ann) (play sign | play butterfly), 1 (Ben) (play signpost | play squirrel)" in prompt
    session.enter_line("Ann: play sign")
    with pytest.raises(InvalidActionError, match=r"1 \(Ben\)'s choose \(play signpost \| play squirrel\)"):
        session.read_line("Ann: play butterfly")  # Ann has chosen; the message lists Ben's tiles
