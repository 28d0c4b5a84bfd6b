"""`refuge bench`: a deterministic signature of search on fixed positions, checked against the stored one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from advisor.arena.bench import BENCH_POSITIONS, bench_positions, run_bench
from advisor.cli import cli

EXPECTED = json.loads((Path(__file__).parent.parent / "data" / "bench_signature.json").read_text())


def test_bench_positions_are_the_decisions_they_name() -> None:
    positions = bench_positions()
    assert [label for label, _ in positions] == [entry[0] for entry in BENCH_POSITIONS]
    for (label, players, route, _, walk, phase), (_, position) in zip(BENCH_POSITIONS, positions):
        assert position.players == players and position.route.name == route, label
        assert position.walk >= walk and position.current_player() >= 0, label
        assert len(position.legal_actions()) > 1, label


def test_signature_matches_the_stored_one() -> None:
    """An unintended change to the rules, the bots or the search changes this signature."""
    result = run_bench(EXPECTED["test"]["iterations"])
    assert result.signature == EXPECTED["test"]["signature"]
    assert result.iterations == 25 * len(BENCH_POSITIONS)


def test_signature_is_the_same_in_another_process() -> None:
    code = ("from advisor.arena.bench import run_bench; "
            f"print(run_bench({EXPECTED['test']['iterations']}).signature)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == EXPECTED["test"]["signature"]


def test_bench_command_prints_signature_and_speed() -> None:
    result = CliRunner().invoke(cli, ["bench", "--iterations", "25"])
    assert result.exit_code == 0, result.output
    assert f"signature: {EXPECTED['test']['signature']}" in result.output
    assert "iterations: 150" in result.output and "iterations/s:" in result.output
    as_json = CliRunner().invoke(cli, ["bench", "--iterations", "25", "--json"])
    assert json.loads(as_json.stdout)["signature"] == EXPECTED["test"]["signature"]


def test_two_workers_give_their_own_signature_every_time() -> None:
    """Root parallelism (threads natively): the signature depends on the worker count, never on
    the run or the scheduling."""
    runs = [CliRunner().invoke(cli, ["bench", "--iterations", "25", "--workers", "2", "--json"]) for _ in range(2)]
    assert all(run.exit_code == 0 for run in runs), runs[0].output
    first, second = (json.loads(run.stdout) for run in runs)
    assert first["workers"] == 2 and first["iterations"] == 150
    assert first["signature"] == second["signature"] != EXPECTED["test"]["signature"]


def test_more_workers_than_iterations_is_a_one_line_error() -> None:
    result = CliRunner().invoke(cli, ["bench", "--iterations", "2", "--workers", "3"])
    assert result.exit_code == 2
    assert "--workers: 3 workers for only 2 iterations" in result.output
    assert "Traceback" not in result.output
