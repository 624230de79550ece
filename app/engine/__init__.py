"""The Scorpion rules engine: pure Python, no web framework, no database, no I/O.

Public interface (everything else is internal):

- ``Game``: a game in progress. ``Game.new(variant, deal)``, ``Game.replay(variant, deal,
  actions)``, ``move(from_column, from_index, to_column, from_pile="column",
  to_pile="column")``, ``deal()``, ``undo()``, ``redo()``, ``apply(action)``, ``hints()``,
  ``legal_moves()``, ``stuck``, ``status``, ``public_view()``, ``to_snapshot()`` /
  ``Game.from_snapshot(text)``.
- Moves: ``Move(from_column, from_index, to_column)`` (column to column) and ``PileMove``
  (a ``Move`` plus ``from_pile``, ``to_pile``: ``"column"``/``"reserve"``/``"cell"``, each
  kind numbered from 0); every move has ``.from_pile``/``.to_pile``; ``pile_move(...)``
  builds the right one. ``game.move(*m)`` and ``("move", *m)`` work for both.
- ``PublicView``: what a player may see; the only thing the web layer renders (with
  ``reserves``, ``cells`` and ``runs_needed`` for the family).
- Deals: ``deal_from_number(n, variant=None)``, ``parse_deal(text, variant=None)``,
  ``format_deal(deal)`` (without a variant: one deck of 52 cards).
- Variants: ``ALL_VARIANTS`` (the whole family, RULES.md table order, every one
  served), ``get_variant(name)`` (any of the family),
  ``variant_metadata()`` (``GET /api/variants``' list plus a one-line description).
- Errors: ``EngineError`` (``IllegalMove``, ``StockEmpty``, ``NothingToUndo``,
  ``NothingToRedo``, ``GameFinished``), ``DealError``, ``SnapshotError``; ``PlayerError``,
  the base of ``EngineError`` and of the services' ``ServiceError`` (a message and a code).

Restart is ``Game.new(variant, deal)`` with the game's own deal.
"""

from .cards import Card, code, name, parse_card
from .deals import (
    MAX_DEAL_NUMBER,
    MIN_DEAL_NUMBER,
    Deal,
    check_deal_number,
    deal_from_number,
    format_deal,
    parse_deal,
)
from .errors import (
    DealError,
    EngineError,
    GameFinished,
    IllegalMove,
    NothingToRedo,
    NothingToUndo,
    PlayerError,
    SnapshotError,
    StockEmpty,
)
from .game import PILES, Action, Game, Move, PileMove, PublicView, Status, pile_move
from .variants import (
    ALL_VARIANTS,
    DEFAULT_VARIANT,
    Variant,
    get_variant,
    variant_metadata,
)

__all__ = [
    "ALL_VARIANTS",
    "Action",
    "Card",
    "DEFAULT_VARIANT",
    "Deal",
    "DealError",
    "EngineError",
    "Game",
    "GameFinished",
    "IllegalMove",
    "MAX_DEAL_NUMBER",
    "MIN_DEAL_NUMBER",
    "Move",
    "NothingToRedo",
    "NothingToUndo",
    "PILES",
    "PileMove",
    "PlayerError",
    "PublicView",
    "SnapshotError",
    "Status",
    "StockEmpty",
    "Variant",
    "check_deal_number",
    "code",
    "deal_from_number",
    "format_deal",
    "get_variant",
    "name",
    "parse_card",
    "parse_deal",
    "pile_move",
    "variant_metadata",
]
