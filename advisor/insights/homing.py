"""Going home: how often the agent returns, a rule of thumb fitted to it, what the rule costs
(paired counterfactuals), and the last walk against the exact solver."""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from advisor.insights.stats import WIN_DIFFERENCE, Mean, Share, rounded
from advisor.insights.store import CorpusKey
from positions.kernel import phases
from positions.kernel.actions import DRAW, RETURN

PAW_BUCKET = 2
"""The return map groups the path's animal value in bins this wide (0–1, 2–3, ...)."""
PAW_CAP = 12
"""Animal values at or above this share the last bin."""
RULE_STORMS = range(1, 8)
RULE_PAWS = range(0, 21)

Row = dict[str, Any]


@dataclass(frozen=True)
class Rule:
    """Go home when the Storm is at most `storms` away and the path is worth at least `paws`."""

    storms: int
    paws: int

    def returns(self, storms_to_hit: int, path_paws: int) -> bool:
        """Whether the rule goes home here."""
        return storms_to_hit <= self.storms and path_paws >= self.paws

    def __str__(self) -> str:
        away = "one Storm away" if self.storms == 1 else f"{self.storms} or fewer Storms away"
        worth = (" and the path's animals are worth {} or more".format(self.paws)) if self.paws else ""
        return f"go home when the Storm is {away}{worth}"


def paw_bin(paws: int) -> str:
    """The return map's label for an animal value (``4-5``, ``12+``)."""
    if paws >= PAW_CAP:
        return f"{PAW_CAP}+"
    low = paws - paws % PAW_BUCKET
    return f"{low}-{low + PAW_BUCKET - 1}"


DECISIONS = (f"SELECT corpus, walk, storms_to_hit, path_paws, action, exact FROM decisions "
             f"WHERE phase = {phases.DECIDE} AND legal = 2")
"""Return-or-draw decisions where both were legal."""


def fit_rule(counts: dict[tuple[int, int, bool], int]) -> tuple[Rule, int, int]:
    """The rule agreeing with the most decisions (ties: the smaller thresholds), its agreements and
    the decisions; `counts` maps (storms to hit, animal value, returned) to decisions."""
    total = sum(counts.values())
    best: tuple[int, Rule] | None = None
    for storms in RULE_STORMS:
        for paws in RULE_PAWS:
            rule = Rule(storms, paws)
            agree = sum(n for (s, p, back), n in counts.items() if rule.returns(s, p) == back)
            if best is None or agree > best[0]:
                best = (agree, rule)
    assert best is not None
    return best[1], best[0], total


def _exact_choice(exact: list[list[float]], action: int) -> tuple[float, float]:
    """(the best option's exact win share, the exact win share of `action`)."""
    values = {int(a): w for a, w, _ in exact}
    return max(values.values()), values[action]


def returns_section(con: sqlite3.Connection, keys: dict[int, CorpusKey]) -> dict[str, Any]:
    """The return map, the fitted rule with its cost, and the last walk against the exact solver,
    per agent."""
    maps: dict[tuple[str, int, str, int, str], Share] = defaultdict(Share)
    counts: dict[str, dict[tuple[int, int, bool], int]] = defaultdict(lambda: defaultdict(int))
    for corpus, walk, storms, paws, action, _ in con.execute(DECISIONS):
        key = keys[corpus]
        back = action == RETURN
        for walks in (str(walk + 1), "all"):
            maps[(key.agent, key.players, walks, storms, paw_bin(paws))].add(float(back))
        counts[key.agent][(storms, paws, back)] += 1
    seat_games: dict[str, int] = defaultdict(int)
    for corpus, games in con.execute("SELECT corpus, COUNT(*) FROM games GROUP BY corpus"):
        seat_games[keys[corpus].agent] += games * keys[corpus].players
    rules = []
    for agent, table in sorted(counts.items()):
        rule, agree, total = fit_rule(table)
        never = sum(n for (_, _, back), n in table.items() if not back)
        rules.append({"agent": agent, "rule": str(rule), "storms": rule.storms, "paws": rule.paws,
                      "n": total, "agreement": rounded(agree / total),
                      "agreement_ci95": _share(agree, total).interval(),
                      "never_return_agreement": rounded(never / total),
                      "decisions_per_seat_game": rounded(total / max(1, seat_games[agent]), 2),
                      **_rule_cost(con, keys, agent, rule),
                      "last_walk_exact": _against_exact(con, keys, agent, rule)})
    return {"map": [{"agent": agent, "players": players, "walk": walk, "storms_to_hit": storms,
                     "path_paws": paws, "n": share.n, "return_rate": rounded(share.mean),
                     "ci95": share.interval()}
                    for (agent, players, walk, storms, paws), share in sorted(maps.items())],
            "rules": rules}


def _share(hits: int, n: int) -> Share:
    share = Share()
    share.n, share.total = n, float(hits)
    return share


SAMPLED = (f"SELECT c.corpus, c.storms_to_hit, c.path_paws, c.chosen, c.first_return, c.second_return, "
           f"(SELECT COUNT(*) FROM decisions d WHERE d.corpus = c.corpus AND d.game = c.game "
           f"AND d.phase = {phases.DECIDE} AND d.legal = 2) "
           f"FROM counterfactuals c WHERE c.kind = 'return'")
"""Each sampled return-or-draw decision with both branches, and how many such decisions its game had."""


def _rule_cost(con: sqlite3.Connection, keys: dict[int, CorpusKey], agent: str, rule: Rule) -> Row:
    """What following `rule` instead of the agent costs the decider in win share (the agent's
    branch minus the rule's, 0 where they agree; negative: the rule does better), from the paired
    continuations: per decision, and per seat and game — one decision is sampled per game, so the
    game's total is its decisions times the sampled difference, shared out over the seats (one
    deviation at a time, summed: a first-order estimate)."""
    cost, per_game, choice = Mean(bounds=WIN_DIFFERENCE), Mean(), Mean(bounds=WIN_DIFFERENCE)
    for corpus, storms, paws, chosen, back, on, decisions in con.execute(SAMPLED):
        if keys[corpus].agent != agent:
            continue
        value = {RETURN: back, DRAW: on}
        ruled = RETURN if rule.returns(storms, paws) else DRAW
        cost.add(value[chosen] - value[ruled])
        per_game.add((value[chosen] - value[ruled]) * decisions / keys[corpus].players)
        choice.add(value[chosen] - value[DRAW if chosen == RETURN else RETURN])
    return {"rule_cost_n": cost.n, "rule_cost_per_decision": rounded(cost.mean),
            "rule_cost_per_decision_ci95": cost.interval(),
            "rule_cost_per_game": rounded(per_game.mean), "rule_cost_per_game_ci95": per_game.interval(),
            "agent_choice_effect": rounded(choice.mean), "agent_choice_effect_ci95": choice.interval()}


def _against_exact(con: sqlite3.Connection, keys: dict[int, CorpusKey], agent: str, rule: Rule) -> Row:
    """At last-walk decisions the solver answered: how often the agent and the rule pick an exactly
    best option, and the win share each loses to best play on average."""
    agent_agrees, rule_agrees, agent_loss, rule_loss = Share(), Share(), Mean(), Mean()
    for corpus, _, storms, paws, action, exact_text in con.execute(DECISIONS + " AND exact IS NOT NULL"):
        if keys[corpus].agent != agent:
            continue
        exact = json.loads(exact_text)
        best, agents = _exact_choice(exact, action)
        _, ruled = _exact_choice(exact, RETURN if rule.returns(storms, paws) else DRAW)
        agent_agrees.add(float(agents >= best - 1e-9))
        rule_agrees.add(float(ruled >= best - 1e-9))
        agent_loss.add(best - agents)
        rule_loss.add(best - ruled)
    return {"n": agent_agrees.n,
            "agent_best": rounded(agent_agrees.mean), "agent_best_ci95": agent_agrees.interval(),
            "agent_loss": rounded(agent_loss.mean), "agent_loss_ci95": agent_loss.interval(),
            "rule_best": rounded(rule_agrees.mean), "rule_best_ci95": rule_agrees.interval(),
            "rule_loss": rounded(rule_loss.mean), "rule_loss_ci95": rule_loss.interval()}
