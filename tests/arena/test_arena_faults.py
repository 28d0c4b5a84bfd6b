"""Engines that crash, hang or play illegally lose their games, with the reason stored; the run goes on."""

from __future__ import annotations

import json
import sqlite3
import sys
import textwrap

import pytest

from advisor.arena.match import ArenaSettings, run_arena

ENGINE = textwrap.dedent('''
    import json, sys, time
    behaviour = sys.argv[1]
    for line in sys.stdin:
        request = json.loads(line)
        cmd = request["cmd"]
        if cmd == "identify":
            answer = {"name": "faulty", "version": behaviour, "protocol": "refuge-engine/1"}
        elif cmd == "position":
            answer = {"ok": True}
        elif cmd == "go":
            if behaviour == "crash":
                sys.stderr.write("boom: out of cheese\\n")
                sys.exit(3)
            if behaviour == "hang":
                time.sleep(600)
            if behaviour == "illegal":
                answer = {"action": "buy magnificent_tree" if request["seed"] % 2 else "fly away"}
            if behaviour == "garbage":
                sys.stdout.write("I resign\\n")
                sys.stdout.flush()
                continue
        elif cmd == "quit":
            print(json.dumps({"ok": True}), flush=True)
            break
        print(json.dumps(answer), flush=True)
''')


@pytest.fixture
def engine_script(tmp_path) -> str:
    path = tmp_path / "faulty_engine.py"
    path.write_text(ENGINE, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("behaviour, kind, fragment", [
    ("crash", "crash", "boom: out of cheese"),
    ("hang", "timeout", "no answer to 'go' within 0.5 s"),
    ("illegal", "illegal", ""),
    ("garbage", "protocol", "not JSON"),
])
def test_a_faulty_engine_loses_every_game_and_the_run_goes_on(tmp_path, engine_script: str,
                                                               behaviour: str, kind: str,
                                                               fragment: str) -> None:
    db = str(tmp_path / "f.sqlite")
    settings = ArenaSettings([("good", "heuristic"),
                              ("bad", f"cmd:{sys.executable} {engine_script} {behaviour}")],
                             games=4, seed=1, db=db, move_timeout=0.5)
    progress = run_arena(settings)
    assert len(progress.played) == 4
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT seats, returns, fault FROM games ORDER BY idx").fetchall()
    assert len(rows) == 4
    for seats, returns, fault in rows:
        names = [s["name"] for s in json.loads(seats)]
        info = json.loads(fault)
        assert info["kind"] == kind and names[info["seat"]] == "bad"
        assert fragment in info["message"] and "bad" in info["message"]
        assert json.loads(returns)[names.index("good")] == 1.0
    assert json.loads(rows[0][0])[1]["revision"] == f"faulty {behaviour}"
    (row,) = progress.rows()
    assert (row.wins, row.losses) == (4, 0)


def test_an_in_process_agent_that_raises_loses_its_game(tmp_path) -> None:
    from advisor.players.agents import register_agent_kind

    class Broken:
        name = "broken"

        def choose(self, position, rng):  # type: ignore[no-untyped-def]
            raise RuntimeError("division by zebra")

    register_agent_kind("broken", lambda spec: Broken())
    progress = run_arena(ArenaSettings([("b", "broken"), ("r", "random")], games=2, seed=4,
                                       db=str(tmp_path / "b.sqlite")))
    faults = [game.fault for game in progress.played]
    assert faults == [(0, "crash"), (0, "crash")]
