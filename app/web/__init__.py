"""The web layer: it parses a request, calls a service (``app.services``), renders the answer.

Grouped by what a reader looks for (docs/architecture.md draws it):

- ``game``: the game's pages and JSON API (the play page, its forms, ``/api/games``) and the
  view of a board they render.
- ``coach``: the solver's help (is it still winnable, a solver hint, the review of a game).
- ``together``: daily deals, challenges and live races (pages, JSON, event streams).
- ``player``: the player's own pages (statistics, settings, privacy, devices, the data file).
- ``middleware``: the cross-cutting concerns, one small pure-ASGI middleware each.
- ``site``: what every page shares (templates, rendering, errors, dependencies, CSRF, static
  files, the installable app).
"""
