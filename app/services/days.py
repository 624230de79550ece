"""The daily deal's calendar and key: the UTC day (``clock``, ``today``) and the daily secret.

Small and free of the other services, so that the daily deal (``daily``) and races
(``race``: no ranked attempt after its day, the attempt record's keyed hash) share them without
importing each other. Tests replace ``clock`` to move between days.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable
from datetime import UTC, date, datetime

from app.config import Settings, get_settings

# The clock of the daily deal (UTC).
clock: Callable[[], datetime] = lambda: datetime.now(UTC)  # noqa: E731


def today() -> date:
    return clock().astimezone(UTC).date()


def daily_secret(settings: Settings | None = None) -> bytes:
    """``DAILY_SECRET``, or (unset) a key derived from ``SECRET_KEY`` for this purpose only."""
    settings = settings or get_settings()
    if settings.daily_secret:
        return settings.daily_secret.encode()
    return hmac.new(settings.secret_key.encode(), b"daily-deal", hashlib.sha256).digest()
