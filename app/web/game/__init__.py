"""The game's pages and JSON API: the play page and its forms, ``/api/games``, the board's view."""
