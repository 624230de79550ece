"""A request body read in part before the app reads it, and given back to the app whole.

The CSRF check (``app.web.site.deps``) reads a form's ``csrf_token``: of a multipart form (the
privacy page's data file, up to ``MAX_IMPORT_BYTES``) only up to the end of that field
(``multipart_token``, with python-multipart's streaming parser, as Starlette's form parser
uses it), so that a large file after it is never held here; what was read is replayed to the
app (``body_once``), then the rest of the body as it arrives.
"""

from __future__ import annotations

from typing import Any

from python_multipart.exceptions import MultipartParseError
from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.types import Message, Receive


def body_once(body: bytes, then: Receive, *, more_body: bool = False) -> Receive:
    """A ``receive`` that gives ``body`` once, then defers to ``then``: the whole body, or
    with ``more_body`` its first part (the rest comes from ``then``)."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": more_body}
        return await then()

    return receive


class _NamedPart:
    """python-multipart's callbacks that keep the value of the part named ``wanted``."""

    def __init__(self, wanted: str) -> None:
        self.wanted = wanted.encode()
        self.header = b""
        self.value = b""
        self.name: bytes | None = None
        self.token: str | None = None
        self.done = False

    def callbacks(self) -> dict[str, Any]:
        def on_header_field(data: bytes, start: int, end: int) -> None:
            self.header += data[start:end]

        def on_header_value(data: bytes, start: int, end: int) -> None:
            if self.header.lower() == b"content-disposition":
                self.value += data[start:end]

        def on_header_end() -> None:
            if self.header.lower() == b"content-disposition":
                _, options = parse_options_header(self.value)
                self.name = options.get(b"name")
            self.header = self.value = b""

        def on_headers_finished() -> None:
            self.value = b""

        def on_part_data(data: bytes, start: int, end: int) -> None:
            if self.name == self.wanted:
                self.value += data[start:end]
                if len(self.value) > 1024:
                    self.name = None  # not a token: too long

        def on_part_end() -> None:
            if self.name == self.wanted and self.token is None:
                self.token = self.value.decode("latin-1")
                self.done = True
            self.name = None
            self.value = b""

        return {
            "on_header_field": on_header_field,
            "on_header_value": on_header_value,
            "on_header_end": on_header_end,
            "on_headers_finished": on_headers_finished,
            "on_part_data": on_part_data,
            "on_part_end": on_part_end,
        }


async def multipart_token(
    receive: Receive, content_type: str, field: str, max_bytes: int
) -> tuple[str | None, Receive]:
    """The value of the text field ``field`` of a multipart form body, read chunk by chunk up
    to the end of that part (at most ``max_bytes`` before it); the chunks read are replayed to
    the app, then the rest of the body from ``receive``. Not found: ``None``."""
    _, options = parse_options_header(content_type)
    boundary = options.get(b"boundary")
    if not boundary:
        return None, receive
    part = _NamedPart(field)
    parser = MultipartParser(boundary, part.callbacks())  # type: ignore[arg-type]
    chunks: list[bytes] = []
    size = 0
    more = True
    try:
        while more and not part.done:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunk = message.get("body", b"")
            chunks.append(chunk)
            more = bool(message.get("more_body", False))
            size += len(chunk)
            if size > max_bytes and not part.done:
                parser.write(chunk[: max(0, max_bytes - size + len(chunk))])
                break
            parser.write(chunk)
    except MultipartParseError:
        return None, receive
    return part.token, body_once(b"".join(chunks), receive, more_body=more)
