"""lab/scripts/seat_shares.py: seat shares of identical agents, checked on hand-made games."""

from __future__ import annotations

from lab.scripts.seat_shares import play_deal, seat_report


def test_the_report_gives_each_seats_share_and_a_wald_test() -> None:
    """Three 3-player games: seat 0 wins one, seat 1 one, seats 1 and 2 tie the third (C18: 1/2 each)."""
    rows = [{"returns": [1.0, 0.0, 0.0], "scores": [30, 20, 10]},
            {"returns": [0.0, 1.0, 0.0], "scores": [10, 30, 20]},
            {"returns": [0.0, 0.5, 0.5], "scores": [10, 25, 25]}]
    lines = seat_report(rows)
    assert lines[0] == "games 3, fair share 0.333"
    assert lines[1].startswith("seat 0: share 0.333 ± ") and "outright wins 1" in lines[1]
    assert lines[2].startswith("seat 1: share 0.500 ± ") and "mean score 25.0" in lines[2]
    assert lines[3].startswith("seat 2: share 0.167 ± ") and "outright wins 0" in lines[3]
    assert lines[4].startswith("Wald test of equal shares: chi2 ") and "on 2 df, p = " in lines[4]


def test_a_deal_is_the_same_game_whenever_it_is_played() -> None:
    """The deal seed alone fixes the game (so the worker count cannot change the result)."""
    job = ("heuristic", 2, "meadows", 5, 3)
    first, again = play_deal(job), play_deal(job)
    assert first == again and sum(first["returns"]) == 1.0
