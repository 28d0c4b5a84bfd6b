"""`refuge insights run` and `report` through click: text tables, JSON, charts, one-line errors."""

from __future__ import annotations

import json

from click.testing import CliRunner

from advisor.cli.main import cli


def test_run_then_report_as_text_json_and_charts(tmp_path) -> None:
    db = str(tmp_path / "c.sqlite")
    runner = CliRunner()
    done = runner.invoke(cli, ["insights", "run", "--games", "4", "--agent", "heuristic", "--players", "3",
                               "--route", "forest", "--counterfactual-every", "1", "--workers", "1",
                               "--db", db])
    assert done.exit_code == 0, done.output
    assert done.output.startswith(f"4 of 4 games in {db} (0 kept, 4 played")
    text = runner.invoke(cli, ["insights", "report", "--db", db])
    assert text.exit_code == 0 and "Corpus: 4 games" in text.output and "Going home" in text.output
    as_json = runner.invoke(cli, ["insights", "report", "--db", db, "--json", "--plot", str(tmp_path / "p")])
    report = json.loads(as_json.stdout)
    assert report["games"] == 4 and {"buys", "returns", "seats", "lengths", "explorer"} <= set(report)
    assert [s["seat"] for s in report["seats"] if s["route"] == "all"] == [1, 2, 3]
    assert sorted(p.name for p in (tmp_path / "p").iterdir()) == ["buys.png", "returns.png", "scores.png",
                                                                 "seats.png"]


def test_bad_input_is_one_line(tmp_path) -> None:
    runner = CliRunner()
    missing = runner.invoke(cli, ["insights", "report", "--db", str(tmp_path / "none.sqlite")])
    assert missing.exit_code == 1 and missing.output.strip().endswith("no such corpus file")
    bad = runner.invoke(cli, ["insights", "run", "--games", "2", "--agent", "ismcts:speed=3",
                              "--db", str(tmp_path / "x.sqlite")])
    assert bad.exit_code == 1 and bad.output.startswith("error: ismcts: unknown parameter 'speed'")
    route = runner.invoke(cli, ["insights", "run", "--games", "2", "--route", "beach",
                                "--db", str(tmp_path / "x.sqlite")])
    assert route.exit_code == 1 and "unknown route 'beach'" in route.output
