"""The report as text tables (what ``refuge insights report`` prints without ``--json``)."""

from __future__ import annotations

from typing import Any, Sequence

from tabulate import tabulate as _tabulate

from advisor.insights.ranking import JUDGED_MIN_PAIRS

Row = dict[str, Any]
EXPLORER_MIN_SEATS = 10
"""The text explorer shows buy sequences at least this many seats played (the JSON has them all)."""


PLAIN = "simple"
MARKDOWN = "github"
"""Table formats (tabulate's names): a terminal's plain columns, or GitHub Markdown for docs/insights.md."""


def tabulate(rows: list[list[Any]], headers: list[str], table_format: str = PLAIN) -> str:
    """A table in ``table_format``; numbers stay as written (signs and percentages kept)."""
    return _tabulate(rows, headers=headers, tablefmt=table_format, disable_numparse=True)


def interval(ci: Sequence[float] | None, digits: int = 3) -> str:
    """``[low, high]``, or ``too few games`` when there are too few values to judge."""
    return "too few games" if ci is None else f"[{ci[0]:+.{digits}f}, {ci[1]:+.{digits}f}]"


def share_interval(ci: Sequence[float] | None) -> str:
    """``[low, high]`` of a share, as percentages."""
    return "n/a" if ci is None else f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}] %"


def corpora_text(report: Row, table_format: str = PLAIN) -> str:
    """Which corpora the report reads: agent, table, games, counterfactuals, cost."""
    rows = [[c["agent"], c["players"], c["route"], c["seed"], c["games"], c["counterfactuals"],
             c["cpu_seconds_per_1000_games"]] for c in report["corpora"]]
    return tabulate(rows, headers=["agent", "players", "route", "seed", "games", "counterfactuals",
                                   "s / 1,000 games"], table_format=table_format)


def buys_text(report: Row, table_format: str = PLAIN) -> str:
    """Per route and tile over all player counts: buying it vs passing, all walks, early, late."""
    cells = {(b["agent"], b["route"], b["tile"], b["walks"]): b for b in report["buys"]
             if b["players"] == "all"}
    rows = []
    for (agent, route, tile, walks), b in sorted(cells.items()):
        if walks != "all":
            continue
        early, late = cells.get((agent, route, tile, "early")), cells.get((agent, route, tile, "late"))
        rows.append([agent, route, tile, b["n"], f"{b['win_effect']:+.3f}", interval(b["ci95"]),
                     f"{b['score_effect']:+.1f}",
                     "" if early is None else f"{early['win_effect']:+.3f} (n {early['n']})",
                     "" if late is None else f"{late['win_effect']:+.3f} (n {late['n']})",
                     f"{100 * b['agent_bought_it']:.0f} %"])
    return tabulate(rows, headers=["agent", "route", "buy", "n", "win effect", "95 % CI", "score",
                                   "early walks", "late walks", "agent chose it"], table_format=table_format)


def resolved_effects(report: Row) -> list[Row]:
    """The tile × walk buy effects (every player count together) of ``JUDGED_MIN_PAIRS`` or more
    pairs whose 95 % interval excludes zero."""
    return [b for b in report["buys"] if b["players"] == "all" and b["walks"].isdigit() and b["tile"] != "any"
            and b["n"] >= JUDGED_MIN_PAIRS and b["ci95"] is not None and (b["ci95"][0] > 0 or b["ci95"][1] < 0)]


def ranking_text(report: Row) -> str:
    """Each route's tiles in walk 1 from the best buy to the worst, and how many pairs are told apart."""
    lines = []
    for rank in report.get("ranking", []):
        if rank["players"] != "all" or rank["walks"] != "1":
            continue
        order = ", ".join(f"{t['tile']} {t['win_effect']:+.3f} (n {t['n']})" for t in rank["order"])
        told = (f"{rank['pairs_resolved']} of {len(rank['pairs'])} pairs told apart "
                f"({100 * rank['share_resolved']:.0f} %)" if rank["pairs"] else "no pair to compare")
        lines.append(f"{rank['agent']}, {rank['route']}: {order}; {told}")
    resolved = resolved_effects(report)
    lines.append(f"{len(resolved)} tile × walk effects of {JUDGED_MIN_PAIRS}+ pairs have a 95 % interval excluding zero"
                 + (": " + ", ".join(f"{b['route']} {b['tile']} in walk {b['walks']} {b['win_effect']:+.3f}"
                                     for b in resolved) if resolved else ""))
    return "\n".join(lines)


def players_text(report: Row) -> str:
    """The first seat's edge at each player count, and the buys whose effect changes with the count."""
    section = report.get("players", {"buys": [], "first_seat": []})
    lines = [f"{s['agent']}, {s['players']} players: the first seat wins {100 * s['edge']:+.1f} points over a "
             f"fair share [{100 * s['ci95'][0]:+.1f}, {100 * s['ci95'][1]:+.1f}] ({s['n']} games)"
             for s in section["first_seat"]]
    changed = [b for b in section["buys"] if b["walks"] == "all" and b["tile"] != "any"]
    told = [b for b in changed if b["resolved"]]
    lines.append(f"buys compared across player counts (all walks): {len(changed)}, told apart: {len(told)}"
                 + "".join(f"\n  {b['route']} {b['tile']}: {b['effect_fewer']:+.3f} with {b['fewer']} players, "
                           f"{b['effect_more']:+.3f} with {b['more']} ({interval(b['ci95'])})" for b in told))
    return "\n".join(lines)


def returns_text(report: Row, table_format: str = PLAIN) -> str:
    """The fitted rules of thumb, their cost, and the last walk against the exact solver."""
    lines = []
    for rule in report["returns"]["rules"]:
        exact = rule["last_walk_exact"]
        lines += [
            f"{rule['agent']}: {rule['rule']}",
            f"  agrees with the agent at {100 * rule['agreement']:.1f} % of {rule['n']} return-or-draw "
            f"decisions {share_interval(rule['agreement_ci95'])} (never going home: "
            f"{100 * rule['never_return_agreement']:.1f} %)",
            f"  following it instead costs {rule['rule_cost_per_decision']:+.4f} win share a decision "
            f"{interval(rule['rule_cost_per_decision_ci95'], 4)} ({rule['rule_cost_n']} paired continuations), "
            f"{rule['rule_cost_per_game']:+.4f} a game {interval(rule['rule_cost_per_game_ci95'], 4)} "
            f"({rule['decisions_per_seat_game']} decisions a seat and game)",
            f"  the agent's own choice vs the other option: {rule['agent_choice_effect']:+.3f} win share "
            f"{interval(rule['agent_choice_effect_ci95'])}",
            f"  last walk, {exact['n']} decisions the exact solver answered: the agent picks a best option "
            f"{100 * exact['agent_best']:.1f} % {share_interval(exact['agent_best_ci95'])}, losing "
            f"{exact['agent_loss']:.4f}; the rule {100 * exact['rule_best']:.1f} % "
            f"{share_interval(exact['rule_best_ci95'])}, losing {exact['rule_loss']:.4f}",
        ]
    rows: dict[tuple[str, int, int], dict[str, str]] = {}
    for cell in report["returns"]["map"]:
        if cell["walk"] == "all" and cell["n"] >= 20:
            rows.setdefault((cell["agent"], cell["players"], cell["storms_to_hit"]), {})[cell["path_paws"]] = (
                f"{100 * cell['return_rate']:.0f}%")
    bins = sorted({p for r in rows.values() for p in r}, key=lambda b: int(b.split("-")[0].rstrip("+")))
    table = [[agent, players, storms, *[r.get(b, "") for b in bins]]
             for (agent, players, storms), r in sorted(rows.items())]
    lines += ["", "return rate by Storms to hit (rows) and the path's animal value (columns), all walks, "
              "cells of 20+ decisions",
              tabulate(table, headers=["agent", "players", "storms to hit", *bins], table_format=table_format)]
    return "\n".join(lines)


def seats_text(report: Row, table_format: str = PLAIN) -> str:
    """Each seat's share of the win per player count (all routes)."""
    rows = [[s["agent"], s["players"], s["seat"], s["n"], f"{100 * s['win_share']:.1f} %",
             share_interval(s["ci95"]), f"{100 * s['fair_share']:.1f} %"]
            for s in report["seats"] if s["route"] == "all"]
    return tabulate(rows, headers=["agent", "players", "seat", "games", "win share", "95 % CI", "fair"],
                    table_format=table_format)


def lengths_text(report: Row, table_format: str = PLAIN) -> str:
    """Game length and scores per player count and route."""
    rows = [[x["agent"], x["players"], x["route"], x["turns"]["n"], f"{x['turns']['mean']:.1f}",
             f"{x['turns']['p10']}–{x['turns']['p90']}", f"{x['score']['mean']:.1f}",
             f"{x['score']['p10']}–{x['score']['p90']}", f"{x['winner_score']['mean']:.1f}",
             f"{x['margin']['median']}"] for x in report["lengths"]]
    return tabulate(rows, headers=["agent", "players", "route", "games", "turns", "10–90 %", "score",
                                   "10–90 %", "winner", "median margin"], table_format=table_format)


def explorer_text(report: Row, table_format: str = PLAIN) -> str:
    """The first walk's buy sequences played by enough seats."""
    rows = [[e["agent"], e["players"], e["route"], " → ".join(e["sequence"]) or "(any)", e["n"],
             f"{100 * e['win_share']:.1f} %", share_interval(e["ci95"]), f"{e['mean_score']:.1f}"]
            for e in report["explorer"] if e["n"] >= EXPLORER_MIN_SEATS]
    return tabulate(rows, headers=["agent", "players", "route", "first walk's buys", "seats",
                                   "win share", "Wilson 95 %", "mean score"], table_format=table_format)


def report_text(report: Row, markdown: bool = False) -> str:
    """The whole report as text, or as Markdown (sections, GitHub tables, lines as a list) for the docs."""
    table_format = MARKDOWN if markdown else PLAIN
    sections = [
        (f"Corpus: {report['games']} games", corpora_text(report, table_format)),
        ("Buys: buying the tile instead of passing, paired continuations (same position and chance)",
         buys_text(report, table_format)),
        ("Walk 1's buys ranked by win effect (pairs told apart: their difference's 95 % interval excludes zero)",
         ranking_text(report)),
        ("What changes with the number of players", players_text(report)),
        ("Going home", returns_text(report, table_format)),
        ("Seats: share of the win (a shared win counts 1/k)", seats_text(report, table_format)),
        ("Game length and scores", lengths_text(report, table_format)),
        (f"First walk's buys (sequences of {EXPLORER_MIN_SEATS}+ seats; --json has all)",
         explorer_text(report, table_format)),
    ]
    if markdown:
        return "\n\n".join(f"### {title}\n\n{markdown_lines(body)}" for title, body in sections)
    return "\n\n".join(f"{title}\n{body}" for title, body in sections)


def markdown_lines(body: str) -> str:
    """A section's prose lines as a Markdown list (indented lines nested); table rows kept as they are."""
    out: list[str] = []
    for line in body.splitlines():
        text = line.lstrip(" ")
        is_row = text.startswith("|")
        if text and out and out[-1] and out[-1].startswith("|") != is_row:
            out.append("")
        out.append(text if is_row or not text else " " * (len(line) - len(text)) + "- " + text)
    return "\n".join(out)
