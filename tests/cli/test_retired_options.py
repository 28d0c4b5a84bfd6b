"""Options of retired experiments are refused by the commands as unknown parameters, in one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("retired, command", [
    ("chance_widening", ["arena", "--agent", "a=ismcts:chance_widening=1", "--agent", "b=greedy", "--games", "2"]),
    ("score_utility", ["selfplay", "--agents", "ismcts:score_utility=0.3,heuristic", "--games", "1"]),
    ("belief", ["arena", "--agent", "a=ismcts:iterations=50,belief=heuristic", "--agent", "b=greedy",
                "--games", "2"]),
    ("model", ["selfplay", "--agents", "ismcts:model=lab/data/evaluator-network.json,random",
               "--games", "1"]),
])
def test_a_retired_option_is_one_line_and_exit_1(retired: str, command: list[str], tmp_path: Path) -> None:
    where = ["--db", str(tmp_path / "a.sqlite")] if command[0] == "arena" else ["--out", str(tmp_path / "out")]
    done = subprocess.run([sys.executable, "-m", "advisor", *command, *where], capture_output=True, text=True,
                          cwd=PROJECT, timeout=120)
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith(f"error: ismcts: unknown parameter '{retired}' (expected ")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert not list(tmp_path.glob("out/*.json"))  # nothing played
