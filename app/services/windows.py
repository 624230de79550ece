"""Fixed-window counters, shared by the per-player rate limits (``rate_limits``,
``app.services.ratelimit``) and the per-address limits (``address_counters``,
``app.services.clients``).

A counter row is keyed by (key, scope) and holds ``window_start`` (Unix seconds, a multiple of
the window length) and ``count``. One atomic ``INSERT ... ON CONFLICT DO UPDATE ... RETURNING``
(SQLite 3.35+ and PostgreSQL alike) opens a new window or adds one to the current one, so two
workers can never both read a count and write back the same value. A newer window restarts
the count at one; the current one (or an older one, from a worker whose clock is a little
behind) adds one.
"""

from __future__ import annotations

import math

from sqlalchemy import TextClause, text


def window_upsert(table: str, key: str, source: str) -> TextClause:
    """The counting statement of ``table`` (key column ``key``), built once at import: the
    new row comes from ``source`` (``VALUES (...)`` or a ``SELECT``); it returns
    ``(count, window_start)``, or no row when ``source`` gave none."""
    return text(
        f"""
        INSERT INTO {table} ({key}, scope, window_start, count)
        {source}
        ON CONFLICT ({key}, scope) DO UPDATE SET
            count = CASE WHEN excluded.window_start > {table}.window_start
                         THEN 1 ELSE {table}.count + 1 END,
            window_start = CASE WHEN excluded.window_start > {table}.window_start
                                THEN excluded.window_start ELSE {table}.window_start END
        RETURNING count, window_start
        """
    )


def window_start(now: float, length: int) -> int:
    """The start of the window of ``length`` seconds that ``now`` falls in."""
    return int(now // length) * length


def retry_after(started: int, length: int, now: float) -> int:
    """Whole seconds (at least one) until the window that began at ``started`` ends."""
    return max(1, math.ceil(started + length - now))
