"""Agent specs: the one syntax that names a player for self-play, the arena and `refuge play`.

``random`` · ``heuristic`` · ``ismcts:iterations=2000`` · ``ismcts:seconds=0.5,exploration=0.5``
· ``cmd:COMMAND`` (an external engine speaking the engine protocol) · ``rev:GITREF:SPEC`` (this project
at another git revision, run as an external engine).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from positions.errors import RefugeError


class AgentSpecError(RefugeError):
    """An agent spec that cannot be read."""


@dataclass(frozen=True)
class AgentSpec:
    """A parsed agent spec."""

    kind: str
    """``random``, ``heuristic``, ``cautious``, ``greedy``, ``thrifty``, ``ismcts``, ``cmd``, ``rev``, ..."""
    params: dict[str, float | int | str] = field(default_factory=dict)
    command: str = ""
    """For ``cmd``: the command line."""
    revision: str = ""
    """For ``rev``: the git ref."""
    inner: "AgentSpec | None" = None
    """For ``rev``: the spec run at that revision."""
    text: str = ""

    def __str__(self) -> str:
        return self.text


def _number(text: str) -> float | int | str:
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        return text
    return value if math.isfinite(value) else text


def parse_agent_spec(text: str) -> AgentSpec:
    """Read an agent spec.

    Raises:
        AgentSpecError: empty spec, empty command or revision, or a malformed parameter.
    """
    raw = text.strip()
    if not raw:
        raise AgentSpecError("empty agent spec")
    head, _, rest = raw.partition(":")
    head = head.strip().lower()
    if head == "cmd":
        if not rest.strip():
            raise AgentSpecError(f"agent spec {text!r}: cmd: needs a command")
        return AgentSpec("cmd", command=rest.strip(), text=raw)
    if head == "rev":
        revision, _, inner = rest.partition(":")
        if not revision.strip() or not inner.strip():
            raise AgentSpecError(f"agent spec {text!r}: expected rev:GITREF:SPEC")
        return AgentSpec("rev", revision=revision.strip(), inner=parse_agent_spec(inner), text=raw)
    params: dict[str, float | int | str] = {}
    for item in rest.replace(":", ",").split(","):
        if not item.strip():
            continue
        key, equals, value = item.partition("=")
        if not equals or not key.strip() or not value.strip():
            raise AgentSpecError(f"agent spec {text!r}: expected key=value, got {item.strip()!r}")
        params[key.strip().lower()] = _number(value.strip())
    return AgentSpec(head, params=params, text=raw)
