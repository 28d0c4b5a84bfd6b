"""Small command-line items of issue 56: arena's --records folder, what bench runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from advisor.arena.bench import BENCH_POSITIONS
from advisor.cli.main import cli

PROJECT = Path(__file__).resolve().parents[2]


def test_arena_records_folder_that_cannot_be_created_is_one_line(tmp_path) -> None:
    """It printed a 28-line traceback (os.makedirs inside the run)."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    result = subprocess.run(
        [sys.executable, "-m", "advisor", "arena", "--agent", "random", "--agent", "heuristic",
         "--games", "2", "--db", str(tmp_path / "arena.db"), "--records", str(blocker / "sub")],
        capture_output=True, text=True, timeout=120, cwd=PROJECT)
    assert result.returncode == 1
    lines = [line for line in result.stderr.splitlines() if not line.startswith("note:")]
    assert lines == [f"error: --records {blocker / 'sub'}: cannot create the folder: Not a directory"]
    assert not (tmp_path / "arena.db").exists()  # refused before any game


def test_bench_says_what_it_runs_before_running() -> None:
    result = CliRunner().invoke(cli, ["bench", "--iterations", "2"])
    assert result.exit_code == 0, result.output
    first = result.output.splitlines()[0]
    assert first.startswith("bench: agent ismcts:iterations=2,workers=1,reuse=0")
    assert f"on {len(BENCH_POSITIONS)} positions (decide-2p-meadows, " in first and "2 iterations each" in first
    data = json.loads(CliRunner().invoke(cli, ["bench", "--iterations", "2", "--json"]).output)
    assert data["agent"] == "ismcts:iterations=2,workers=1,reuse=0" and len(data["positions"]) == len(BENCH_POSITIONS)
    assert first.endswith("seeds from 20240611, 1 worker") and data["workers"] == 1
