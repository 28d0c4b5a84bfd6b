"""The report's numbers against a tiny corpus worked out by hand."""

from __future__ import annotations

import json
import math

import pytest

from advisor.insights.ranking import difference, excludes_zero, ranking_section
from advisor.insights.report import build_report
from advisor.insights.stats import Mean
from advisor.insights.store import (
    CorpusKey, CorpusStoreError, Counterfactual, Decision, GameResult, corpus_id, open_store, store_game)
from positions.kernel import phases
from positions.kernel.actions import BUY, DRAW, PASS, RETURN
from positions.kernel.tiles import KIND_BY_NAME

COMPASS, SHEPHERD, RABBIT = (BUY[KIND_BY_NAME[name]] for name in ("compass", "shepherd", "rabbit"))
KEY = CorpusKey("ismcts:iterations=7", 2, "meadows", 1, 1, 100)


def wilson(share: float, n: int) -> list[float]:
    """The Wilson 95 % interval, written out independently of the code under test."""
    z = 1.959963984540054
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return [round(centre - half, 4), round(centre + half, 4)]


def buy(event: int, seat: int, action: int, walk: int = 0) -> Decision:
    return Decision(event, walk, 0, phases.BUY, seat, action, 3, 6, 0, 5, 0)


def decide(event: int, storms: int, paws: int, action: int, exact: list[list[float]] | None = None) -> Decision:
    return Decision(event, 4, 3, phases.DECIDE, 0, action, 2, storms, paws, 0, 0, None,
                    None if exact is None else json.dumps(exact))


def cf(event: int, kind: str, walk: int, chosen: int, first: int, second: int, r1: float, r2: float,
       s1: int, s2: int, storms: int = 6, paws: int = 0) -> Counterfactual:
    return Counterfactual(event, kind, 0, walk, storms, paws, chosen, first, second, r1, r2, s1, s2)


GAMES = [
    GameResult(0, 10, (30, 20), (1.0, 0.0), 10, 100, 2.0,
               (buy(1, 0, COMPASS), buy(2, 1, RABBIT), buy(3, 0, PASS), decide(50, 1, 6, RETURN),
                decide(51, 1, 2, DRAW, [[RETURN, 0.7, 20], [DRAW, 0.4, 18]])),
               (cf(1, "buy", 0, COMPASS, COMPASS, PASS, 1.0, 0.0, 30, 26),
                cf(50, "return", 4, DRAW, RETURN, DRAW, 1.0, 0.0, 20, 15, storms=2, paws=6))),
    GameResult(1, 11, (25, 25), (0.5, 0.5), 12, 100, 3.0,
               (buy(1, 0, COMPASS), buy(2, 1, PASS), buy(3, 0, SHEPHERD),
                decide(50, 3, 8, DRAW), decide(51, 1, 5, RETURN, [[RETURN, 0.9, 25], [DRAW, 0.2, 10]])),
               (cf(1, "buy", 0, PASS, COMPASS, PASS, 0.5, 0.5, 25, 27),
                cf(50, "return", 4, DRAW, RETURN, DRAW, 1.0, 0.5, 20, 18, storms=1, paws=4))),
    GameResult(2, 12, (18, 28), (0.0, 1.0), 14, 100, 4.0,
               (buy(1, 0, PASS), buy(2, 1, COMPASS)),
               (cf(1, "buy", 3, COMPASS, COMPASS, PASS, 1.0, 0.0, 28, 20),)),
]


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> dict:
    db = str(tmp_path_factory.mktemp("tiny") / "tiny.sqlite")
    with open_store(db) as con:
        corpus = corpus_id(con, KEY)
        for game in GAMES:
            assert store_game(con, corpus, game)
        assert not store_game(con, corpus, GAMES[0])  # never counted twice
    return build_report(db)


def _one(rows: list[dict], **match: object) -> dict:
    found = [r for r in rows if all(r[k] == v for k, v in match.items())]
    assert len(found) == 1, (match, found)
    return found[0]


def test_the_corpus_is_described_with_its_cost(report) -> None:
    assert report["games"] == 3
    assert report["corpora"] == [{"agent": KEY.agent, "players": 2, "route": "meadows", "seed": 1,
                                  "counterfactual_every": 1, "exact_nodes": 100, "games": 3,
                                  "counterfactuals": 5, "cpu_seconds_per_1000_games": 3000.0}]


def test_a_buy_effect_is_the_mean_paired_difference_with_a_normal_interval(report) -> None:
    row = _one(report["buys"], tile="compass", players="all", walks="all")
    # win differences 1, 0, 1: mean 2/3, sd sqrt(1/3), half-width 1.96 * sd / sqrt(3)
    half = 1.959963984540054 * math.sqrt(1 / 3) / math.sqrt(3)
    assert (row["n"], row["win_effect"]) == (3, 0.6667)
    # 2/3 + half is 1.32: a difference of win shares cannot pass 1, so the interval stops there
    assert 2 / 3 + half > 1 and row["ci95"] == [round(2 / 3 - half, 4), 1.0]
    assert row["score_effect"] == 3.33  # score differences 4, -2, 8
    assert row["agent_bought_it"] == 0.6667 and row["agent"] == KEY.agent
    early = _one(report["buys"], tile="compass", players=2, walks="early")
    assert (early["n"], early["win_effect"]) == (2, 0.5)
    assert _one(report["buys"], tile="any", players="all", walks="all")["ci95"] == row["ci95"]  # only compass
    late = _one(report["buys"], tile="compass", players=2, walks="late")
    assert (late["n"], late["ci95"]) == (1, None)  # one value: no interval claimed


def test_seats_share_the_win_with_wilson_intervals(report) -> None:
    first = _one(report["seats"], players=2, route="all", seat=1)
    assert (first["n"], first["win_share"], first["ci95"]) == (3, 0.5, wilson(0.5, 3))
    assert first["ci95"] == [0.1253, 0.8747]


def test_lengths_and_scores(report) -> None:
    row = _one(report["lengths"], route="meadows")
    assert (row["turns"]["mean"], row["turns"]["median"], row["turns"]["n"]) == (12.0, 12, 3)
    assert row["score"]["mean"] == round(146 / 6, 2)
    assert row["winner_score"]["mean"] == round(83 / 3, 2)
    assert row["margin"]["median"] == 10 and row["margin"]["histogram"] == [[0, 1], [10, 2]]


def test_the_explorer_follows_the_first_walks_buy_sequences(report) -> None:
    rows = report["explorer"]
    everyone = _one(rows, sequence=[])
    assert (everyone["n"], everyone["win_share"]) == (6, 0.5)
    compass = _one(rows, sequence=["compass"])
    assert (compass["n"], compass["win_share"], compass["mean_score"]) == (3, 0.8333, 27.67)
    assert compass["ci95"] == wilson(2.5 / 3, 3) and compass["ended_here"] == 2
    assert _one(rows, sequence=["compass", "shepherd"])["win_share"] == 0.5
    assert _one(rows, sequence=["rabbit"])["win_share"] == 0.0


def test_going_home_map_rule_cost_and_exact(report) -> None:
    returns = report["returns"]
    cell = _one(returns["map"], walk="all", storms_to_hit=1, path_paws="6-7")
    assert (cell["n"], cell["return_rate"]) == (1, 1.0)
    assert _one(returns["map"], walk="5", storms_to_hit=1, path_paws="2-3")["return_rate"] == 0.0
    rule = returns["rules"][0]
    # every decision agrees with "storms <= 1 and paws >= 3" (the smallest such thresholds)
    assert (rule["storms"], rule["paws"], rule["agreement"], rule["n"]) == (1, 3, 1.0, 4)
    assert rule["never_return_agreement"] == 0.5
    # continuations: the first agrees with the agent (cost 0), the second returns where the agent
    # drew (agent 0.5, rule 1.0: cost -0.5); each game had 2 such decisions over 2 seats, so per
    # seat and game: 0 and -0.5, mean -0.25; 4 decisions over 3 games x 2 seats
    assert (rule["rule_cost_n"], rule["rule_cost_per_decision"]) == (2, -0.25)
    assert rule["decisions_per_seat_game"] == 0.67
    assert rule["rule_cost_per_game"] == -0.25
    half = 1.959963984540054 * math.sqrt(0.125) / math.sqrt(2)  # values 0, -0.5: sd sqrt(0.125)
    assert rule["rule_cost_per_game_ci95"] == [round(-0.25 - half, 4), round(-0.25 + half, 4)]
    assert rule["agent_choice_effect"] == -0.75  # drew (0.0, 0.5) where returning gave 1.0, 1.0
    exact = rule["last_walk_exact"]
    assert (exact["n"], exact["agent_best"], exact["agent_loss"]) == (2, 0.5, 0.15)
    assert (exact["rule_best"], exact["rule_loss"]) == (0.5, 0.15)


def test_the_rules_cost_is_printed_per_decision_and_per_game(report) -> None:
    from advisor.insights.text import returns_text
    text = returns_text(report)
    assert "costs -0.2500 win share a decision" in text  # the tiny corpus's two continuations: 0, -0.5
    assert "-0.2500 a game" in text and "(0.67 decisions a seat and game)" in text


def test_a_missing_or_foreign_file_is_a_one_line_error(tmp_path) -> None:
    with pytest.raises(CorpusStoreError, match="no such corpus file"):
        build_report(str(tmp_path / "none.sqlite"))
    other = tmp_path / "other.sqlite"
    other.write_text("not a database at all, just text" * 10)
    with pytest.raises(CorpusStoreError, match="not a corpus database"):
        build_report(str(other))


def test_every_win_difference_interval_in_the_report_lies_within_minus_one_to_one(report) -> None:
    """Issue 56: insights printed a win effect of [-0.48, +1.48]."""
    intervals = [row["ci95"] for row in report["buys"]]
    assert intervals and all(ci is None or -1 <= ci[0] <= ci[1] <= 1 for ci in intervals)
    for key in ("rule_cost_per_decision_ci95", "agent_choice_effect_ci95"):
        for found in _values(report, key):
            assert found is None or -1 <= found[0] <= found[1] <= 1, (key, found)


def _values(data: object, key: str) -> list:
    """Every value stored under `key` anywhere in a JSON-like structure."""
    if isinstance(data, dict):
        return [v for k, v in data.items() if k == key] + [x for v in data.values() for x in _values(v, key)]
    if isinstance(data, list):
        return [x for v in data for x in _values(v, key)]
    return []


def test_a_bounded_mean_cuts_its_interval_and_too_few_values_say_so() -> None:
    from advisor.insights.stats import WIN_DIFFERENCE, Mean
    from advisor.insights.text import interval

    bounded, free = Mean(bounds=WIN_DIFFERENCE), Mean()
    for value in (1.0, -1.0):
        bounded.add(value)
        free.add(value)
    assert free.interval()[0] < -1 and free.interval()[1] > 1  # the normal interval overshoots
    assert bounded.interval() == [-1.0, 1.0]
    single = Mean(bounds=WIN_DIFFERENCE)
    single.add(0.5)
    assert interval(single.interval()) == "too few games"


def test_buy_effects_are_also_given_walk_by_walk(report) -> None:
    first = _one(report["buys"], tile="compass", players="all", walks="1")
    fourth = _one(report["buys"], tile="compass", players="all", walks="4")
    assert (first["n"], first["win_effect"], fourth["n"], fourth["win_effect"]) == (2, 0.5, 1, 1.0)
    assert not [b for b in report["buys"] if b["walks"] in ("2", "3", "5")]


def _mean(*values: float) -> Mean:
    mean = Mean()
    for value in values:
        mean.add(value)
    return mean


def test_tiles_are_ranked_and_each_pair_told_apart_only_when_its_interval_excludes_zero() -> None:
    wins = {("a", "meadows", "compass", "all", "1"): _mean(*[1.0] * 30, *[0.0] * 10),
            ("a", "meadows", "rabbit", "all", "1"): _mean(*[0.0] * 20, *[-1.0] * 20),
            ("a", "meadows", "shepherd", "all", "1"): _mean(*[1.0] * 23, *[0.0] * 17),
            ("a", "meadows", "any", "all", "1"): _mean(1.0, 0.0),
            ("a", "meadows", "bear", "all", "1"): _mean(1.0)}  # one value: not ranked
    [rank] = ranking_section(wins)
    assert [t["tile"] for t in rank["order"]] == ["compass", "shepherd", "rabbit"]
    pairs = {(p["better"], p["worse"]): p for p in rank["pairs"]}
    assert set(pairs) == {("compass", "shepherd"), ("compass", "rabbit"), ("shepherd", "rabbit")}
    # independent samples: the difference's half-width is 1.96 * sqrt(var1 / n1 + var2 / n2)
    a, b = wins[("a", "meadows", "compass", "all", "1")], wins[("a", "meadows", "shepherd", "all", "1")]
    half = 1.959963984540054 * math.sqrt(a.sd ** 2 / 40 + b.sd ** 2 / 40)
    assert pairs[("compass", "shepherd")]["ci95"] == [round(0.175 - half, 4), round(0.175 + half, 4)]
    assert half > 0.175 and not pairs[("compass", "shepherd")]["resolved"]
    assert pairs[("compass", "rabbit")]["resolved"] and pairs[("shepherd", "rabbit")]["resolved"]
    assert rank["pairs_resolved"] == 2 and rank["share_resolved"] == round(2 / 3, 4)


def test_an_interval_touching_zero_does_not_tell_a_pair_apart() -> None:
    assert not excludes_zero([0.0, 0.3]) and not excludes_zero(None)
    assert excludes_zero([0.01, 0.3]) and excludes_zero([-0.3, -0.01])
    gap, ci = difference(_mean(1.0), _mean(0.0, 1.0))
    assert gap == 0.5 and ci is None
    few = difference(_mean(*[1.0] * 19), _mean(*[-1.0] * 19))  # no spread, yet too few to judge
    assert few == (2.0, None) and difference(_mean(*[1.0] * 20), _mean(*[-1.0] * 20)) == (2.0, [2.0, 2.0])


def test_what_changes_with_the_player_count() -> None:
    from advisor.insights.players import players_section

    wins = {("a", "forest", "camera", 2, "all"): _mean(*[1.0] * 30, *[0.0] * 10),
            ("a", "forest", "camera", 3, "all"): _mean(*[0.0] * 30, *[-1.0] * 10),
            ("a", "forest", "camera", "all", "all"): _mean(1.0, 0.0),  # every count together: not compared
            ("a", "forest", "fox", 2, "all"): _mean(0.0, 1.0),
            ("a", "forest", "fox", 3, "all"): _mean(1.0)}  # one value: not compared
    seats = [{"agent": "a", "players": 3, "route": "all", "seat": 1, "n": 90, "win_share": 0.4,
              "ci95": [0.3, 0.5], "fair_share": 0.3333},
             {"agent": "a", "players": 3, "route": "all", "seat": 2, "n": 90, "win_share": 0.3,
              "ci95": [0.2, 0.4], "fair_share": 0.3333}]
    section = players_section(wins, seats)
    [camera] = section["buys"]
    assert (camera["tile"], camera["fewer"], camera["more"], camera["difference"]) == ("camera", 2, 3, -1.0)
    assert camera["resolved"] and camera["ci95"][1] < 0
    assert section["first_seat"] == [{"agent": "a", "players": 3, "n": 90, "edge": 0.0667,
                                      "ci95": [-0.0333, 0.1667]}]


def test_a_buy_effect_counts_as_resolved_only_on_enough_pairs() -> None:
    from advisor.insights.ranking import JUDGED_MIN_PAIRS
    from advisor.insights.text import ranking_text, resolved_effects

    def cell(n: int, ci: list[float]) -> dict:
        return {"agent": "a", "route": "meadows", "tile": "deer", "players": "all", "walks": "2", "n": n,
                "win_effect": ci[0], "ci95": ci}

    few = cell(2, [-1.0, -1.0])  # two equal values: a zero-width normal interval
    enough = cell(JUDGED_MIN_PAIRS, [-0.3, -0.1])
    touching = cell(JUDGED_MIN_PAIRS, [-0.3, 0.0])
    assert resolved_effects({"buys": [few, enough, touching]}) == [enough]
    assert ranking_text({"buys": [few], "ranking": []}) == (
        f"0 tile × walk effects of {JUDGED_MIN_PAIRS}+ pairs have a 95 % interval excluding zero")
