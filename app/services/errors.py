"""Errors the services raise. ``str(err)`` / ``err.message`` is a sentence a player understands.

The web layer maps them: ``NotFound`` -> 404, ``VersionConflict`` -> 409, ``InvalidRequest``
and ``ActionRefused`` -> 422.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from app.engine import PlayerError

if TYPE_CHECKING:
    from .types import Display, GameState


class ServiceError(PlayerError):
    """Base class of the services' errors."""

    code = "error"
    # The game as it stands, when the refusing service had it at hand and was asked for it
    # (``act(..., with_change=True)``): the page shows it without reading it again.
    current: GameState | None = None
    # With ``current``: the player's display settings, read in the same transaction, so that
    # the page a form's refusal answers with needs no read of its own.
    display: Display | None = None


class NotFound(ServiceError):
    """No such game for this player (another player's game is "not found" too)."""

    code = "not_found"

    def __init__(self, message: str = "There is no such game.") -> None:
        super().__init__(message)


class VersionConflict(ServiceError):
    """The expected version is not the game's current version: nothing was changed."""

    code = "version_conflict"

    def __init__(self, current_version: int, expected_version: int) -> None:
        super().__init__(
            f"The game has changed since you last saw it (it is at version {current_version}, "
            f"not {expected_version}): reload it and try again."
        )
        self.current_version = current_version
        self.expected_version = expected_version


class InvalidRequest(ServiceError):
    """Input that does not describe a valid request (unknown variant, bad deal, ...)."""

    code = "invalid"


class ActionRefused(ServiceError):
    """The rules refuse the action (illegal move, empty stock, nothing to undo, game won)."""

    def __init__(self, message: str, code: str = "refused") -> None:
        super().__init__(message)
        self.code = code


class PlayerDeleted(Exception):
    """The requesting player id was deleted for good ("Delete everything"): it is never
    re-created. The web layer answers ``410`` with this message and clears the cookie, so the
    browser's next request starts as a new player. Not a ``ServiceError``: no page catches
    it as an ordinary refusal."""

    def __init__(self) -> None:
        self.message = (
            'This browser\'s player data was deleted ("Delete everything"), so nothing can be '
            "saved for it any more. Reload the page to start afresh as a new player."
        )
        super().__init__(self.message)


class DeviceRemoved(PlayerDeleted):
    """The requesting device was removed from its player (on another device, a moment ago:
    this worker had not heard yet). Answered like ``PlayerDeleted``: ``410``, the cookie
    cleared, so the browser's next request is a new player."""

    def __init__(self) -> None:
        super().__init__()
        self.message = (
            "This device was removed from its player on another device, so it can no longer "
            "change or read that player's data. Reload the page to start afresh as a new player."
        )
        self.args = (self.message,)


class RateLimited(Exception):
    """Too many requests of one scope in the current window (HTTP 429 with Retry-After)."""

    def __init__(
        self, scope: Literal["games", "actions"], limit: int, window_seconds: int, retry_after: int
    ) -> None:
        what = "new games" if scope == "games" else "actions"
        super().__init__(
            f"Too many {what}: at most {limit} every {window_seconds} seconds. "
            f"Please wait {retry_after} seconds and try again."
        )
        self.message = str(self)
        self.scope = scope
        self.limit = limit
        self.window_seconds = window_seconds
        self.retry_after = retry_after
