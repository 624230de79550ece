"""The Scorpion rules engine: pure Python, no web framework, no database, no I/O.

Public interface (everything else is internal):

- ``Game``: a game in progress. ``Game.new(variant, deal)``, ``Game.replay(variant, deal,
  actions)``, ``move(from_column, from_index, to_column)``, ``deal()``, ``undo()``, ``redo()``,
  ``apply(action)``, ``hints()``, ``legal_moves()``, ``stuck``, ``status``,
  ``public_view()``, ``to_snapshot()`` / ``Game.from_snapshot(text)``.
- ``PublicView``: what a player may see; the only thing the web layer renders.
- Deals: ``deal_from_number(n)``, ``parse_deal(text)``, ``format_deal(deal)``.
- Variants: ``VARIANTS``, ``get_variant(name)``.
- Errors: ``EngineError`` (``IllegalMove``, ``StockEmpty``, ``NothingToUndo``,
  ``NothingToRedo``, ``GameFinished``), ``DealError``, ``SnapshotError``.

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
    SnapshotError,
    StockEmpty,
)
from .game import Action, Game, Move, PublicView, Status
from .variants import DEFAULT_VARIANT, VARIANTS, Variant, get_variant

__all__ = [
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
    "PublicView",
    "SnapshotError",
    "Status",
    "StockEmpty",
    "VARIANTS",
    "Variant",
    "check_deal_number",
    "code",
    "deal_from_number",
    "format_deal",
    "get_variant",
    "name",
    "parse_card",
    "parse_deal",
]
