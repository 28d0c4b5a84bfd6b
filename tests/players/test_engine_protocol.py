"""The engine protocol refuge-engine/1: the server's answers, and a round trip with a subprocess engine."""

from __future__ import annotations

import io
import json
import random

import pytest

from advisor.players.specs import parse_agent_spec
from advisor.players.agents import make_agent
from advisor.players.engine import PROTOCOL, EngineAgent, EngineClient, EngineError, EngineServer, engine_argv, serve
from positions import Position, RULES_VERSION
from positions.kernel.actions import DRAW, RETURN, parse_action
from positions.saved import position_to_data


def _server(spec: str = "ismcts:iterations=20") -> EngineServer:
    return EngineServer(make_agent(spec), parse_agent_spec(spec))


def _midgame(seed: int = 3, decisions: int = 15) -> Position:
    rng = random.Random(seed)
    pos = Position.new_game(2)
    made = 0
    while made < decisions or pos.is_chance():
        if pos.is_chance():
            pos.apply(pos.sample_chance(rng))
        else:
            legal = pos.legal_actions()
            pos.apply(legal[int(rng.random() * len(legal))])
            made += 1
    return pos


def test_identify_names_program_rules_and_protocol() -> None:
    answer = _server().handle({"cmd": "identify"})
    assert answer["protocol"] == PROTOCOL == "refuge-engine/1"
    assert answer["rules_version"] == RULES_VERSION
    assert answer["name"] == "refuge-advisor" and answer["agent"] == "ismcts:iterations=20"


def test_go_answers_a_legal_action_with_search_statistics() -> None:
    server = _server()
    assert server.handle({"cmd": "position", "position": position_to_data(Position.new_game(2))}) == {"ok": True}
    answer = server.handle({"cmd": "go", "seed": 5})
    assert parse_action(str(answer["action"])) in (DRAW, RETURN)
    stats = answer["stats"]
    assert isinstance(stats, dict) and stats["iterations"] == 20
    assert sum(stats["visits"].values()) == 20 and set(stats["visits"]) == {"return", "draw"}


def test_go_is_deterministic_for_a_seed_and_obeys_limits() -> None:
    server = _server()
    server.handle({"cmd": "position", "position": position_to_data(_midgame())})
    first = server.handle({"cmd": "go", "seed": 11})
    again = server.handle({"cmd": "go", "seed": 11})
    assert again["action"] == first["action"] and again["stats"]["visits"] == first["stats"]["visits"]
    limited = server.handle({"cmd": "go", "seed": 11, "limits": {"iterations": 7}})
    assert limited["stats"]["iterations"] == 7


def test_a_game_so_far_sets_the_position() -> None:
    server = _server("heuristic")
    record = {"format": "refuge-game/1", "players": 2, "route": "meadows", "events": ["return"]}
    assert server.handle({"cmd": "game", "game": record}) == {"ok": True}
    assert "action" in server.handle({"cmd": "go"})


@pytest.mark.parametrize("request_, fragment", [
    ({"cmd": "go"}, "no position yet"),
    ({"cmd": "fly"}, "unknown cmd 'fly'"),
    (["cmd"], 'expected an object with a "cmd" string'),
    ({"cmd": "position", "position": {"format": "refuge-position/1"}}, "position"),
    ({"cmd": "go", "seed": "x"}, None),
])
def test_bad_requests_get_one_line_errors(request_: object, fragment: str | None) -> None:
    server = _server("heuristic")
    if fragment is None:  # a bad seed is only reached once there is a position
        server.handle({"cmd": "position", "position": position_to_data(Position.new_game(2))})
        fragment = "seed must be an integer"
    answer = server.handle(request_)
    assert set(answer) == {"error"} and fragment in str(answer["error"])
    assert "\n" not in str(answer["error"])


def test_serve_reads_lines_until_quit_and_reports_bad_json() -> None:
    lines = "\n".join(['{"cmd":"identify"}', "{not json", "", '{"cmd":"quit"}', '{"cmd":"identify"}'])
    out = io.StringIO()
    serve(make_agent("random"), parse_agent_spec("random"), io.StringIO(lines + "\n"), out)
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(answers) == 3  # nothing is answered after quit
    assert answers[0]["protocol"] == PROTOCOL
    assert "line 2: $: not valid JSON" in answers[1]["error"]
    assert answers[2] == {"ok": True}


def test_round_trip_with_a_subprocess_engine() -> None:
    client = EngineClient(engine_argv("ismcts:iterations=15"), "engine")
    try:
        assert client.identity["protocol"] == PROTOCOL
        position = _midgame()
        client.request({"cmd": "position", "position": position_to_data(position)}, 30)
        answer = client.request({"cmd": "go", "seed": 2}, 30)
        assert parse_action(str(answer["action"])) in position.legal_actions()
        assert answer["stats"]["iterations"] == 15
        with pytest.raises(EngineError, match="unknown cmd") as caught:
            client.request({"cmd": "fly"}, 30)
        assert caught.value.kind == "protocol"
    finally:
        client.close()
    assert not client.is_alive()


def test_an_engine_agent_plays_legal_moves_from_the_players_view() -> None:
    agent = EngineAgent("far", engine_argv("heuristic"), timeout=30)
    rng = random.Random(4)
    pos = Position.new_game(2)
    try:
        for _ in range(40):
            if pos.is_terminal():
                break
            if pos.is_chance():
                pos.apply(pos.sample_chance(rng))
            else:
                pos.apply(agent.choose(pos, rng))
    finally:
        agent.stop()
    assert pos.turn > 0 or pos.walk > 0


def test_a_program_that_is_not_an_engine_is_refused() -> None:
    with pytest.raises(EngineError) as caught:
        EngineClient(["cat"], "cat", start_timeout=5)
    assert caught.value.kind == "protocol"
    with pytest.raises(EngineError, match="cannot start") as missing:
        EngineClient(["/no/such/engine"], "ghost")
    assert missing.value.kind == "crash"


def test_the_engine_module_runs_by_itself() -> None:
    """``python -m advisor.players.engine`` starts the engine (no command layer), a bad spec is one line."""
    import subprocess
    import sys

    argv = engine_argv("heuristic")
    assert argv[1:3] == ["-m", "advisor.players.engine"]
    done = subprocess.run(argv, input=b'{"cmd":"identify"}\n{"cmd":"quit"}\n', capture_output=True,
                          timeout=60)
    assert done.returncode == 0 and b'"protocol"' in done.stdout.splitlines()[0]
    for _ in range(6):  # a quit while the reader thread waits on stdin once aborted the shutdown about half the time
        again = subprocess.run(argv, input=b'{"cmd":"identify"}\n{"cmd":"quit"}\n', capture_output=True,
                               timeout=60)
        assert again.returncode == 0, again.stderr.decode(errors="replace")[-300:]
    bad = subprocess.run([sys.executable, "-m", "advisor.players.engine", "--agent", "nope"],
                         capture_output=True, timeout=60, text=True)
    assert bad.returncode == 1 and bad.stderr.startswith("error: unknown agent 'nope'")
    assert bad.stderr.count("\n") == 1
