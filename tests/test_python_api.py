"""The documented Python API (advisor/api.py): its docstring examples run as doctests, and its
answer is the one `refuge best-move --json` gives for the same position, seed and limit."""

from __future__ import annotations

import doctest
import json

import pytest
from click.testing import CliRunner

from advisor import api
from advisor.cli.main import cli


def test_the_docstring_examples_run() -> None:
    failures, attempted = doctest.testmod(api, optionflags=doctest.ELLIPSIS)
    assert attempted >= 10 and failures == 0


def test_analyse_gives_best_moves_table_as_objects() -> None:
    analysis = api.analyse(api.load("storm-one-away"), api.Limit(iterations=60), seed=3)
    document = json.loads(CliRunner().invoke(cli, ["best-move", "storm-one-away", "--iterations", "60",
                                                   "--seed", "3", "--json"]).output)
    assert [o.action for o in analysis.options] == [o["action"] for o in document["options"]]
    assert [o.visits for o in analysis.options] == [o["visits"] for o in document["options"]]
    assert analysis.best.action == document["best"] and list(analysis.line) == document["line"]
    assert analysis.within_noise == document["within_noise_of_second"]


def test_a_record_loads_as_its_last_position_and_bad_sources_say_why(tmp_path) -> None:
    out = tmp_path / "games"
    assert CliRunner().invoke(cli, ["selfplay", "--agents", "random,random", "--games", "1",
                                    "--out", str(out)]).exit_code == 0
    final = api.load(str(out / "game-00001.json"))
    assert final.is_terminal()
    with pytest.raises(ValueError, match="not a player's decision"):
        api.analyse(final, api.Limit(iterations=5))
    with pytest.raises(Exception, match="no-such-file"):
        api.load(str(tmp_path / "no-such-file.json"))
