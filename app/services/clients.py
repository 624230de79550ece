"""Limits per client address: new players per minute, new ranked entries per shared deal.

The web layer (``app.web.front``) puts a keyed hash of the
request's client address in ``current_address`` for the request; the address itself is never
stored. An IPv6 client is keyed by its /64 (``client_network``): one subscriber usually holds a
whole /64, so counting its single addresses would let it take a fresh one for every request.
An IPv4-mapped IPv6 address is its IPv4 address. The counters live in ``address_counters``
(one atomic UPSERT per count, shared by every worker); ``prune`` drops those of past days.
With ``RATE_LIMITS=off``, or outside a request (scripts, tests of services), nothing is
counted.

- ``count_new_player(db)``: called by the services that create a player row, inside their
  write transaction; past ``NEW_PLAYERS_PER_MINUTE`` it raises ``TooManyNewPlayers`` (a
  ``RateLimited``: 429 with ``Retry-After``), and the transaction (player row and count) is
  rolled back: nothing changes.
- ``may_rank(db, race_id)``: whether this address may still make a ranked entry on the race
  (``RANKED_ENTRIES_PER_ADDRESS``); counts the entry when it may.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import time
from contextvars import ContextVar
from functools import lru_cache

from sqlalchemy import text
from sqlalchemy.orm import Session

from app.config import Settings, get_settings

from .errors import RateLimited
from .windows import retry_after, window_start, window_upsert

current_address: ContextVar[str | None] = ContextVar("scorpion_client_address", default=None)

PLAYERS_WINDOW_SECONDS = 60


def address_key(address: str, settings: Settings | None = None) -> str:
    """The keyed hash (HMAC-SHA256 with ``SECRET_KEY``) a client address is kept as."""
    return keyed_address((settings or get_settings()).secret_key, address)


def client_network(address: str) -> str:
    """What a client address is counted as: an IPv4 address itself (also written as an
    IPv4-mapped IPv6 address), an IPv6 address its /64; anything else (``unknown``, a name)
    as it is."""
    try:
        parsed = ipaddress.ip_address(address.strip().split("%", 1)[0])
    except ValueError:
        return address
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.IPv6Network((parsed, 64), strict=False))
    return str(parsed)


@lru_cache(maxsize=4096)  # computed once per address and process, not on every request
def keyed_address(secret_key: str, address: str) -> str:
    """``address_key`` of ``address`` (its ``client_network``) with the key ``secret_key``."""
    message = b"client:" + client_network(address).encode()
    return hmac.new(secret_key.encode(), message, hashlib.sha256).hexdigest()[:64]


class TooManyNewPlayers(RateLimited):
    """Too many new players from one address in a minute (HTTP 429 with Retry-After)."""

    def __init__(self, limit: int, retry_after: int) -> None:
        super().__init__("games", limit, PLAYERS_WINDOW_SECONDS, retry_after)
        self.message = (
            f"Too many new players from your address: at most {limit} a minute. "
            f"Please wait {retry_after} seconds and try again (or keep your cookie)."
        )
        self.args = (self.message,)


_UPSERT = window_upsert(
    "address_counters", "address_key", "VALUES (:key, :scope, :window_start, 1)"
)


def _bump(db: Session, key: str, scope: str, window_start: int) -> tuple[int, int]:
    row = (
        db.connection()
        .execute(_UPSERT, {"key": key, "scope": scope, "window_start": window_start})
        .one()
    )
    return int(row[0]), int(row[1])


def _active(settings: Settings) -> str | None:
    if not settings.rate_limits_enabled:
        return None
    return current_address.get()


def count_new_player(db: Session, *, settings: Settings | None = None) -> None:
    """Count a new player made by this request's address (inside the caller's write
    transaction); ``TooManyNewPlayers`` past the limit."""
    settings = settings or get_settings()
    key = _active(settings)
    if key is None:
        return
    now = time.time()
    count, started = _bump(db, key, "players", window_start(now, PLAYERS_WINDOW_SECONDS))
    limit = settings.new_players_per_minute
    if count > limit:
        raise TooManyNewPlayers(limit, retry_after(started, PLAYERS_WINDOW_SECONDS, now))


def may_rank(
    db: Session, race_id: str, *, since: int = 0, settings: Settings | None = None
) -> bool:
    """Whether this request's address may make one more ranked entry on ``race_id`` (and
    count it if so). Inside the caller's write transaction. ``since``: the Unix time the race
    began (a daily deal's day; 0 for a challenge), which lets ``prune`` drop the counter."""
    settings = settings or get_settings()
    key = _active(settings)
    if key is None:
        return True
    count, _ = _bump(db, key, f"ranked:{race_id}", since)
    return count <= settings.ranked_entries_per_address


KEEP_SECONDS = 2 * 24 * 3600


def prune(db: Session, now: float | None = None) -> None:
    """Drop counters whose window ended over two days ago (new-player minutes, and the
    ranked-entry counts of past days' daily deals). Inside the caller's write transaction;
    the daily deal calls it once per variant and day."""
    cut = int((time.time() if now is None else now) - KEEP_SECONDS)
    db.execute(
        text("DELETE FROM address_counters WHERE window_start > 0 AND window_start < :cut"),
        {"cut": cut},
    )
