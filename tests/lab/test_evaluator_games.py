"""The learned evaluator on a stored arena's games (issue 27): every decision of every game, labelled
with the game's stored result; the report's refit never sees its held-out games."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from lab.evaluator_games import evaluator_report, stored_samples
from advisor.arena.store import StoreError
from advisor.players.learned import load_model, shipped_model
from positions.kernel import phases
from positions.record import read_record_text, replay

SCRIPT = Path(__file__).resolve().parents[2] / "lab" / "scripts" / "evaluator_on_arena.py"


def _stored(db: str) -> list[tuple[str, list[float]]]:
    with sqlite3.connect(db) as con:
        return [(record, json.loads(returns)) for record, returns in
                con.execute("SELECT record, returns FROM games ORDER BY idx")]


def test_every_decision_is_a_sample_labelled_with_its_games_result(arena_db) -> None:
    found = stored_samples(arena_db)
    expected = []
    for game, (record, returns) in enumerate(_stored(arena_db)):
        steps = replay(read_record_text(record)).steps
        expected += [(game, step.position.walk, returns) for step in steps if step.player != phases.CHANCE_PLAYER]
    assert [(f.sample.game, f.walk, f.sample.returns) for f in found] == expected
    assert all(len(f.sample.rows) == 2 and sum(f.sample.returns) == pytest.approx(1) for f in found)


def test_the_report_measures_every_walk_and_refits_on_the_other_games(arena_db) -> None:
    found = stored_samples(arena_db)
    report = evaluator_report(found, shipped_model(), held_out=1 / 3)
    assert report.games == 6 and report.held_out_games == 2
    assert report.shipped.decisions == len(found) == sum(f.decisions for f in report.by_walk.values())
    assert sorted(report.by_walk) == [1, 2, 3, 4, 5]
    held = [f for f in found if f.sample.game >= 4]
    assert report.shipped_held_out.decisions == report.refit_held_out.decisions == len(held)
    assert 0 < report.shipped.log_loss < 2 and 0 <= report.shipped.ece <= 1
    with pytest.raises(ValueError, match="two stored games"):
        evaluator_report([f for f in found if f.sample.game == 0], shipped_model())


def test_a_missing_or_broken_database_is_one_line(tmp_path, arena_db) -> None:
    with pytest.raises(StoreError, match="no such arena database"):
        stored_samples(str(tmp_path / "none.sqlite"))
    assert not (tmp_path / "none.sqlite").exists()
    broken = tmp_path / "broken.sqlite"
    broken.write_bytes(Path(arena_db).read_bytes())
    with sqlite3.connect(broken) as con:
        con.execute("UPDATE games SET record = '{\"players\": 2}' WHERE idx = 1")
    with pytest.raises(StoreError, match="game 1"):
        stored_samples(str(broken))
    result = subprocess.run([sys.executable, str(SCRIPT), "--db", str(broken)], capture_output=True, text=True)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert lines and all(line.startswith("evaluator_on_arena.py: ") and "game 1" in line for line in lines)


def test_the_script_prints_the_table(arena_db) -> None:
    result = subprocess.run([sys.executable, str(SCRIPT), "--db", arena_db], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "6 games of" in result.stdout and "refitted to the other" in result.stdout


def _numbers(table: str) -> list[list[str]]:
    """Each row's numbers (decisions, log loss, accuracy, ECE), without its label."""
    return [line.split()[-4:] for line in table.splitlines()[3:]]


def test_the_script_measures_a_model_file_and_refuses_a_broken_one(tmp_path, arena_db) -> None:
    copy = tmp_path / "evaluator.json"
    copy.write_text(json.dumps(shipped_model().to_json()))
    shipped = subprocess.run([sys.executable, str(SCRIPT), "--db", arena_db], capture_output=True, text=True)
    result = subprocess.run([sys.executable, str(SCRIPT), "--db", arena_db, "--model", str(copy)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "model file, walk 1" in result.stdout and "shipped" not in result.stdout
    assert _numbers(result.stdout) == _numbers(shipped.stdout)  # the same weights, the same forecasts
    copy.write_text('{"version": 1, "win_weights": [1.0]}')
    broken = subprocess.run([sys.executable, str(SCRIPT), "--db", arena_db, "--model", str(copy)],
                            capture_output=True, text=True)
    assert broken.returncode == 2 and "Traceback" not in broken.stderr
    assert broken.stderr.count("\n") == 1 and str(copy) in broken.stderr


def test_a_mix_refit_is_written_for_the_search(tmp_path, arena_db) -> None:
    """--mix --refit-out: a model with a worth per tile kind, fitted to the games before the held-out
    ones and written as a version-2 file the search takes (ismcts:model=PATH); the base model's
    forecasts are the same whether or not the samples carry the mix features."""
    out = tmp_path / "strong_mix.json"
    base = subprocess.run([sys.executable, str(SCRIPT), "--db", arena_db, "--held-out", "0.34"],
                          capture_output=True, text=True)
    result = subprocess.run([sys.executable, str(SCRIPT), "--db", arena_db, "--held-out", "0.34", "--mix",
                             "--refit-out", str(out)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    table, wrote = result.stdout.split("wrote the refitted model to ")
    assert wrote.strip() == str(out)
    assert _numbers(table)[:-1] == _numbers(base.stdout)[:-1]  # all rows but the refit's
    model = load_model(str(out))
    assert model.mix and model.training["training_games"] == 4 and model.training["held_out_games"] == 2
    assert "--refit-out" in model.training["command"] and arena_db in model.training["source"]
    found = stored_samples(arena_db, mix=True)
    assert model.training["samples"]["training"] == sum(f.sample.game < 4 for f in found)
    blocked = subprocess.run([sys.executable, str(SCRIPT), "--db", arena_db, "--refit-out",
                              str(tmp_path / "no" / "such" / "dir" / "m.json")], capture_output=True, text=True)
    assert blocked.returncode == 2 and "Traceback" not in blocked.stderr and "m.json" in blocked.stderr
