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
    saved = tmp_path / "summary.json"
    saved.write_text(as_json.stdout)
    again = runner.invoke(cli, ["insights", "report", "--summary", str(saved)])
    assert again.exit_code == 0 and again.output == text.output  # the saved report reads as the corpus
    markdown = runner.invoke(cli, ["insights", "report", "--summary", str(saved), "--markdown"])
    assert markdown.exit_code == 0
    assert_github_markdown(markdown.output, sections=8, title="### Corpus: 4 games")


def assert_github_markdown(text: str, sections: int, title: str) -> None:
    """Headings, tables set off by blank lines with one column count each, every other line a list item."""
    lines = text.splitlines()
    assert lines[0] == title and sum(line.startswith("### ") for line in lines) == sections
    for before, line in zip(lines, lines[1:]):
        if line.startswith("|") and not before.startswith("|"):
            assert before == ""  # a table starts a block
    tables = [line for line in lines if line.startswith("|")]
    assert tables and all(line.endswith("|") for line in tables)
    prose = [line.lstrip(" ") for line in lines if line and not line.startswith(("|", "### "))]
    assert prose and all(line.startswith("- ") for line in prose)


def test_without_a_corpus_the_shipped_summary_is_reported(tmp_path, monkeypatch) -> None:
    from advisor.insights import summary

    runner = CliRunner()
    monkeypatch.setattr(summary, "published_path", lambda: None)
    none = runner.invoke(cli, ["insights", "report"])
    assert none.exit_code == 1
    assert none.output == "error: this build ships no insights summary: give --db CORPUS or --summary FILE\n"
    db = str(tmp_path / "c.sqlite")
    assert runner.invoke(cli, ["insights", "run", "--games", "2", "--agent", "heuristic", "--workers", "1",
                               "--db", db]).exit_code == 0
    shipped = tmp_path / "published-summary.json"
    shipped.write_text(runner.invoke(cli, ["insights", "report", "--db", db, "--json"]).stdout)
    monkeypatch.setattr(summary, "published_path", lambda: str(shipped))
    published = runner.invoke(cli, ["insights", "report"])
    assert published.exit_code == 0 and published.output.startswith("Corpus: 2 games")


def test_bad_input_is_one_line(tmp_path) -> None:
    runner = CliRunner()
    missing = runner.invoke(cli, ["insights", "report", "--db", str(tmp_path / "none.sqlite")])
    assert missing.exit_code == 1 and missing.output.strip().endswith("no such corpus file")
    bad = runner.invoke(cli, ["insights", "run", "--games", "2", "--agent", "ismcts:speed=3",
                              "--db", str(tmp_path / "x.sqlite")])
    assert bad.exit_code == 1 and bad.output.startswith("error: ismcts: unknown parameter 'speed'")
    (tmp_path / "bad.json").write_text('{"games": 3, "corpora": []}')
    bad_summary = runner.invoke(cli, ["insights", "report", "--summary", str(tmp_path / "bad.json")])
    assert bad_summary.exit_code == 1
    assert bad_summary.output == f"error: {tmp_path / 'bad.json'}: not a report (no 'buys' section)\n"
    formats = runner.invoke(cli, ["insights", "report", "--json", "--markdown"])
    assert formats.exit_code == 2 and "give --json or --markdown, not both" in formats.output
    both = runner.invoke(cli, ["insights", "report", "--summary", "a.json", "--db", "b.sqlite"])
    assert both.exit_code == 2 and "give --db or --summary, not both" in both.output
    route = runner.invoke(cli, ["insights", "run", "--games", "2", "--route", "beach",
                                "--db", str(tmp_path / "x.sqlite")])
    assert route.exit_code == 1 and "unknown route 'beach'" in route.output


def test_every_route_in_one_run_shares_the_games_out_in_turn(tmp_path) -> None:
    db = str(tmp_path / "all.sqlite")
    runner = CliRunner()
    args = ["insights", "run", "--agent", "heuristic", "--route", "all", "--workers", "1", "--db", db]
    first = runner.invoke(cli, [*args, "--games", "5"])
    assert first.exit_code == 0 and first.output.startswith(f"5 of 5 games in {db} (0 kept, 5 played")
    report = json.loads(runner.invoke(cli, ["insights", "report", "--db", db, "--json"]).stdout)
    assert [(c["route"], c["games"]) for c in report["corpora"]] == [("meadows", 2), ("forest", 2), ("mountains", 1)]
    more = runner.invoke(cli, [*args, "--games", "7"])
    assert more.output.startswith(f"7 of 7 games in {db} (5 kept, 2 played")
    # each route's share is that route's own corpus: the same key, the same games
    alone = runner.invoke(cli, ["insights", "run", "--agent", "heuristic", "--route", "forest", "--workers", "1",
                                "--games", "2", "--db", db])
    assert alone.output.startswith(f"2 of 2 games in {db} (2 kept, 0 played")


def test_the_summary_shipped_in_the_package_is_a_report_of_the_native_corpus() -> None:
    import os

    from advisor.insights.summary import published_path

    path = published_path()
    assert path is not None and os.path.getsize(path) < 2_000_000  # a summary, not the corpus (issue 55)
    shipped = CliRunner().invoke(cli, ["insights", "report"])
    assert shipped.exit_code == 0, shipped.output
    report = json.loads(CliRunner().invoke(cli, ["insights", "report", "--json"]).stdout)
    assert {(c["agent"], c["seed"]) for c in report["corpora"]} == {("ismcts", 55)}
    assert shipped.output.startswith(f"Corpus: {report['games']} games")
