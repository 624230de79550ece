"""Typed errors of the engine. Every message is a sentence a player understands."""

from __future__ import annotations


class PlayerError(Exception):
    """An error whose ``message`` (also ``str(err)``) is a sentence for the player; ``code``
    names its kind ("refused": a refusal of no more precise kind). The base of the engine's
    ``EngineError`` and the services' ``ServiceError``."""

    code = "refused"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class EngineError(PlayerError):
    """Base class: an action the rules refuse. ``str(err)`` is the player's message."""


class IllegalMove(EngineError):
    code = "illegal_move"


class StockEmpty(EngineError):
    code = "stock_empty"


class NothingToUndo(EngineError):
    code = "nothing_to_undo"


class NothingToRedo(EngineError):
    code = "nothing_to_redo"


class GameFinished(EngineError):
    code = "game_finished"


class DealError(ValueError):
    """A deal string or deal number that does not describe a deal.

    ``position`` is the 1-based position of the offending card code, when there is one.
    """

    def __init__(self, message: str, position: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.position = position


class SnapshotError(ValueError):
    """A stored snapshot that cannot be read."""
