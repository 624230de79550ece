"""Keep challenge link tokens out of uvicorn's access log.

A challenge's link token (``/challenge/<token>``, ``/api/challenges/<token>/...``) is the only
key to it: whoever has the link can join. Uvicorn's access log (``uvicorn.access``) prints each
request's path, so ``install()`` adds a filter that prints such paths with the route's
template instead (``/challenge/{token}``). The filter is added to the logger when the
application is made, after uvicorn has configured logging, in every worker process.
"""

from __future__ import annotations

import logging
import re

ACCESS_LOGGER = "uvicorn.access"
_TOKEN_PATH = re.compile(r"(/(?:api/)?challenges?/)[^/?#\s]+")


def redact(path: str) -> str:
    """``path`` with any challenge token replaced by ``{token}`` (its query string dropped)."""
    if "challenge" not in path:
        return path
    bare = path.split("?", 1)[0]
    return _TOKEN_PATH.sub(r"\1{token}", bare)


class ChallengeTokenFilter(logging.Filter):
    """Rewrites the path argument of uvicorn's access log records (never drops a record)."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) >= 3 and isinstance(args[2], str):
            record.args = (*args[:2], redact(args[2]), *args[3:])
        elif isinstance(record.msg, str) and "challenge" in record.msg:
            record.msg = _TOKEN_PATH.sub(r"\1{token}", record.msg)
        return True


def install() -> None:
    logger = logging.getLogger(ACCESS_LOGGER)
    if not any(isinstance(f, ChallengeTokenFilter) for f in logger.filters):
        logger.addFilter(ChallengeTokenFilter())
