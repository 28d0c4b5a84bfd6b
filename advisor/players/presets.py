"""The two searches the product ships, each defined here once (docs/search.md, "Presets").

* :func:`agent_config` — the **agent** (``ismcts:``), what plays a game: the heuristic as prior and
  rollout, rollouts cut off after :data:`DEFAULT_CUTOFF` decisions and judged by the learned
  evaluator, exact endgames; it passed its SPRT at equal time (+103 Elo). Used by `refuge arena`,
  `play`, `selfplay`, `engine` and `bench`.
* :func:`advisor_config` — the **advisor**, what explains a position: heuristic rollouts to the
  end with progressive widening below the root, exact endgames, grown from a simultaneous step's
  start. Used by `best-move`, `annotate`, `track`, `play`'s hints and the web board.

They differ because they answer different questions: the agent must pick a strong move in a
fixed time, the advisor must put a win chance on every option that means what it says.
"""

from __future__ import annotations

from typing import Any

from advisor.players.bots import DEFAULT_ROLLOUT
from advisor.players.learned import LearnedEvaluator
from advisor.players.tablebase import ExactEndgames
from search.request import SearchConfig, SearchRequest

DEFAULT_CUTOFF = 8
"""Decisions a rollout of the agent plays before the evaluator judges it (``ismcts:cutoff=N``)."""
AGENT_ROOT_NODES = 5_000
"""New positions an agent's root probe of exact endgames may solve: tens of milliseconds, so the
probe stays a small part of a decision's time (the advisor allows more)."""
ADVISOR_WIDENING = 0.1
"""Progressive widening below the root for the advisor's searches (``SearchConfig.widening``):
thin nodes play the heuristic, so an option's value is that of good play, not of random replies."""
ADVISOR_EXPLORATION_BELOW = 0.3
"""The advisor's UCT constant below the root (the root keeps ``exploration``)."""


def agent_config() -> SearchConfig:
    """The agent's search (a fresh evaluator and exact-endgame probes of its own on every call)."""
    return SearchConfig(rollout=DEFAULT_ROLLOUT, rollout_cutoff=DEFAULT_CUTOFF, evaluator=LearnedEvaluator(),
                        prior=DEFAULT_ROLLOUT, oracle=ExactEndgames(AGENT_ROOT_NODES, shared=False),
                        step_root=False)


def advisor_config() -> SearchConfig:
    """The advisor's search (exact endgames shared by every search of the process)."""
    return SearchConfig(rollout=DEFAULT_ROLLOUT, widening=ADVISOR_WIDENING,
                        exploration_below=ADVISOR_EXPLORATION_BELOW, oracle=ExactEndgames())


def advisor_request(**fields: Any) -> SearchRequest:
    """A request for the advisor's search: :func:`advisor_config` with `fields` (the limit —
    ``iterations``, ``seconds``, ``seed``, ``workers`` — and any change by name, e.g. annotate's
    ``root_selection="uniform"``)."""
    return SearchRequest.of(advisor_config(), **fields)
