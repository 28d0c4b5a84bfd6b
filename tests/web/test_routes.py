"""The app as small views (issue 24 item 9): a route table pointing at views in advisor/web/views/,
each callable alone, using the game's constants rather than literals."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

from starlette.requests import Request
from starlette.routing import Mount, Route

from advisor.web import views
from advisor.web.routes import routes
from advisor.web.views import reference
from positions.kernel.rulesets import DEFAULT_RULESET

WEB = Path(views.__file__).parent.parent


def test_every_route_points_at_a_view_of_the_views_package() -> None:
    table = routes()
    endpoints = [r.endpoint for r in table if isinstance(r, Route)]
    assert len(endpoints) >= 30 and all(isinstance(r, (Route, Mount)) for r in table)
    for endpoint in endpoints:
        module = getattr(endpoint, "__module__", "") or type(endpoint).__module__
        assert module.startswith("advisor.web.views."), (endpoint, module)


def test_a_view_answers_alone() -> None:
    request = Request({"type": "http", "method": "GET", "path": "/api/catalogue", "headers": [],
                       "query_string": b""})
    response = asyncio.run(reference.catalogue(request))
    data = json.loads(bytes(response.body))
    assert data["player_counts"] == list(DEFAULT_RULESET.player_counts) and "weather" in data["phases"]


def test_views_use_the_games_constants_not_literals() -> None:
    literal = re.compile(r'"refuge-(game|position)/1"|\(2, 3, 4\)|\b[2-4] <= \w+ <= [2-4]\b|players: expected 2')
    sources = [*sorted((WEB / "views").glob("*.py")), WEB / "tracker.py", WEB / "routes.py"]
    found = [f"{path.name}:{n}" for path in sources
             for n, line in enumerate(path.read_text().splitlines(), 1) if literal.search(line)]
    assert not found, found
    page = (WEB / "static" / "track.html").read_text()
    assert "<option>2</option>" not in page  # player counts come from /api/catalogue
