"""A stored arena's decisions (issue 27): every choice of every game, by seat and agent, and how
often a policy makes the same ones; lab/scripts/fit_thrifty.py prints it."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from lab.decisions import agreement, buy_profiles, stored_decisions
from advisor.arena.store import ArenaStore, StoreError
from advisor.players.bots import cautious_bot, greedy_bot
from positions.kernel import phases
from positions.kernel.actions import PASS

SCRIPT = Path(__file__).resolve().parents[2] / "lab" / "scripts" / "fit_thrifty.py"


def test_each_decision_names_its_seat_agent_and_result(arena_db) -> None:
    decisions = list(stored_decisions(arena_db))
    store = ArenaStore(arena_db)
    games = list(store.games())
    store.close()
    assert {d.game for d in decisions} == set(range(len(games))) and len(games) == 6
    for d in decisions:
        game = games[d.game]
        assert d.agent == game.seats[d.seat][0] and d.returns == game.returns
        assert d.position.current_player() == d.seat and d.action in d.position.legal_actions()


def test_a_bot_agrees_with_itself_and_not_wholly_with_another(arena_db) -> None:
    """The greedy bot's own choices are all greedy's (a bot reads only its view, so the redrawn
    hidden tiles change nothing); the cautious bot buys and returns otherwise."""
    decisions = list(stored_decisions(arena_db))
    itself = agreement(decisions, greedy_bot(), "g")
    assert all(a.same == a.decisions > 0 for a in itself.values())
    assert set(itself) <= set(phases.NAMES) and "decide" in itself
    other = agreement(decisions, cautious_bot(), "g")
    assert sum(a.same for a in other.values()) < sum(a.decisions for a in other.values())
    assert agreement(decisions, greedy_bot(), "nobody") == {}


def test_the_script_prints_the_table_and_refuses_a_missing_db(tmp_path, arena_db) -> None:
    result = subprocess.run([sys.executable, str(SCRIPT), "--db", arena_db], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "same choice" in result.stdout and "thrifty" in result.stdout
    missing = subprocess.run([sys.executable, str(SCRIPT), "--db", str(tmp_path / "x.sqlite")],
                             capture_output=True, text=True)
    assert missing.returncode == 2 and missing.stderr.startswith("fit_thrifty.py: ")
    assert "Traceback" not in missing.stderr
    with pytest.raises(StoreError, match="no such arena database"):
        list(stored_decisions(str(tmp_path / "x.sqlite")))
    for deals in ("0", "-3"):
        refused = subprocess.run([sys.executable, str(SCRIPT), "--grid", "--deals", deals],
                                 capture_output=True, text=True)
        assert refused.returncode == 2 and "--deals must be at least 1" in refused.stderr


def test_a_record_whose_players_are_not_its_seats_is_refused(tmp_path, arena_db) -> None:
    """A stored game whose record has more players than its seat list is named, not a traceback."""
    broken = tmp_path / "seats.sqlite"
    broken.write_bytes(Path(arena_db).read_bytes())
    with sqlite3.connect(broken) as con:
        seats = json.loads(con.execute("SELECT seats FROM games WHERE idx = 2").fetchone()[0])
        con.execute("UPDATE games SET seats = ? WHERE idx = 2", (json.dumps(seats[:1]),))
    with pytest.raises(StoreError, match="game 2: its record has 2 players, its seats 1"):
        list(stored_decisions(str(broken)))


def test_buy_profiles_count_each_agents_choices_before_the_last_walk(arena_db) -> None:
    """Every buy with a choice before the last walk is counted once: passed (Steps kept) or bought,
    by tile; the greedy bot buys whenever it can."""
    decisions = list(stored_decisions(arena_db))
    profiles = buy_profiles(decisions)
    assert set(profiles) == {"h", "g"}
    for agent, profile in profiles.items():
        mine = [d for d in decisions if d.agent == agent and d.position.phase == phases.BUY
                and d.position.walk < d.position.ruleset.walks - 1 and len(d.position.legal_actions()) > 1]
        assert profile.decisions == len(mine) > 0
        assert profile.kept == sum(d.action == PASS for d in mine)
        assert profile.kept + sum(n for _, n in profile.bought) == profile.decisions
        assert [n for _, n in profile.bought] == sorted((n for _, n in profile.bought), reverse=True)
        assert 0 <= profile.kept_share <= 1
    assert profiles["g"].kept_share < 0.5
    result = subprocess.run([sys.executable, str(SCRIPT), "--db", arena_db, "--buys"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "kept Steps" in result.stdout and f"{profiles['g'].kept_share:.3f}" in result.stdout
    refused = subprocess.run([sys.executable, str(SCRIPT), "--buys", "--grid"], capture_output=True, text=True)
    assert refused.returncode == 2 and "--buys reads an arena database" in refused.stderr
