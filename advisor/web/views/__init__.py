"""The app's views, one small module per part of the API; `advisor.web.routes` maps paths to them.

A view is ``async def view(request) -> Response``: it reads the request with the checked readers of
:mod:`advisor.web.views.base`, finds the server's parts (config, jobs, tracker) through
:func:`~advisor.web.views.base.server`, and does the work that reads or replays a game in the thread
pool, so that one large request cannot stall the others.
"""
