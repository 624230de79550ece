"""A whole JSON ``{"detail": ...}`` answer sent without the app (by the middlewares'
refusals: the body limit, CSRF)."""

from __future__ import annotations

import json

from starlette.types import Message


def json_detail_reply(
    status: int, detail: str, extra_headers: list[tuple[bytes, bytes]] | None = None
) -> tuple[Message, Message]:
    """The two messages of a ``{"detail": detail}`` answer that is never cached."""
    body = json.dumps({"detail": detail}).encode()
    start: Message = {
        "type": "http.response.start",
        "status": status,
        "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"cache-control", b"no-store"),
            *(extra_headers or ()),
        ],
    }
    return start, {"type": "http.response.body", "body": body}
