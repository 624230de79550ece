"""An oversized body against a real ``uvicorn`` server (issue 34): an ordinary HTTP client that
sends the whole body before it reads the answer (httpx here, as requests and curl do) gets a
readable ``413`` with the JSON ``{"detail": ...}``, not a reset connection, with or without a
``Content-Length`` (chunked), on a JSON route and on a form (page) route; nothing changes; and
the server goes on serving. ``MAX_BODY_BYTES`` is the default (64 KiB); the bodies are 8 MB."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx2
import pytest

from tests.support.live import LivePlayer
from tests.support.server import LiveServer, fresh_server

SIZE = 8 * 1024 * 1024


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with fresh_server(tmp_path_factory.mktemp("body-limit"), {"RATE_LIMITS": "off"}) as live:
        yield live


def chunks(head: bytes, tail: bytes) -> Iterator[bytes]:
    """``head``, 8 MB of padding and ``tail``, in 64 KiB chunks (no length: chunked)."""
    yield head
    for _ in range(SIZE // 65536):
        yield b"x" * 65536
    yield tail


def send(player: LivePlayer, path: str, content: Any, headers: dict[str, str]) -> httpx2.Response:
    with player.client() as client:
        return client.post(path, content=content, headers={"X-CSRF-Token": player.token, **headers})


def assert_413(r: httpx2.Response) -> None:
    assert r.status_code == 413, r.text[:300]
    assert r.headers["content-type"].startswith("application/json")
    detail = r.json()["detail"]
    assert "too large" in detail and "Nothing was changed" in detail, detail


JSON = {"Content-Type": "application/json"}
FORM = {"Content-Type": "application/x-www-form-urlencoded"}


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_an_8_mb_json_move_is_a_readable_413(server: LiveServer, chunked: bool) -> None:
    player = LivePlayer(server.url)
    game = player.new_game(77)
    head = b'{"from_column": 0, "from_index": 6, "to_column": 1, "padding": "'
    body: Any = chunks(head, b'"}') if chunked else head + b"x" * SIZE + b'"}'
    r = send(player, f"/api/games/{game['id']}/moves", body, JSON)
    assert_413(r)
    assert player.get(f"/api/games/{game['id']}").json() == game  # nothing changed
    assert player.new_game(78)["version"] == 1  # and the server goes on


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_an_8_mb_form_post_is_a_readable_413(server: LiveServer, chunked: bool) -> None:
    player = LivePlayer(server.url)
    game = player.new_game(79)
    head = f"csrf_token={player.token}&version=1&filler=".encode()
    body: Any = chunks(head, b"") if chunked else head + b"y" * SIZE
    r = send(player, f"/games/{game['id']}/deal", body, FORM)
    assert_413(r)
    assert player.get(f"/api/games/{game['id']}").json() == game


def raw_post(
    server: LiveServer, player: LivePlayer, path: str, body: bytes, kind: str, *, chunked: bool
) -> tuple[int, dict[str, str], bytes]:
    """The plainest client: it writes the whole request (``sendall``, which fails if the server
    resets the connection under it), then reads the answer to the end. (status, headers,
    body)."""
    parts = urlsplit(server.url)
    cookie = "; ".join(f"{k}={v}" for k, v in player.cookies.items())
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nContent-Type: {kind}\r\n"
        f"X-CSRF-Token: {player.token}\r\nCookie: {cookie}\r\n"
    )
    if chunked:
        step = 65536
        pieces = [
            b"%x\r\n%s\r\n" % (len(body[i : i + step]), body[i : i + step])
            for i in range(0, len(body), step)
        ]
        payload = (
            (head + "Transfer-Encoding: chunked\r\n\r\n").encode() + b"".join(pieces) + b"0\r\n\r\n"
        )
    else:
        payload = (head + f"Content-Length: {len(body)}\r\n\r\n").encode() + body
    with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 80), 30) as s:
        s.sendall(payload)  # a reset connection raises here: the client never sees the 413
        answer = b""
        while True:
            got = s.recv(65536)
            if not got:
                break
            answer += got
    top, _, rest = answer.partition(b"\r\n\r\n")
    lines = top.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), {k.lower(): v for k, v in headers.items()}, rest


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
@pytest.mark.parametrize("route", ["json", "form"])
def test_a_client_that_writes_the_whole_body_first_reads_the_413(
    server: LiveServer, chunked: bool, route: str
) -> None:
    player = LivePlayer(server.url)
    game = player.new_game(80)
    if route == "json":
        path, kind = f"/api/games/{game['id']}/moves", "application/json"
        body = b'{"from_column": 0, "from_index": 6, "to_column": 1, "x": "' + b"x" * SIZE + b'"}'
    else:
        path, kind = f"/games/{game['id']}/deal", "application/x-www-form-urlencoded"
        body = f"csrf_token={player.token}&version=1&filler=".encode() + b"y" * SIZE
    status, headers, text = raw_post(server, player, path, body, kind, chunked=chunked)
    assert status == 413, text[:300]
    assert headers["content-type"].startswith("application/json")
    detail = json.loads(text)["detail"]
    assert "too large" in detail and "Nothing was changed" in detail, detail
    assert player.get(f"/api/games/{game['id']}").json() == game


def test_a_client_that_waits_for_100_continue_sends_no_body(server: LiveServer) -> None:
    """A client that asks first (``Expect: 100-continue``, as curl does for a large body) is
    told ``413`` at once, before it sends a byte of the body."""
    player = LivePlayer(server.url)
    parts = urlsplit(server.url)
    with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 80), 10) as s:
        s.sendall(
            (
                f"POST /api/games HTTP/1.1\r\nHost: {parts.netloc}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {SIZE}\r\n"
                f"X-CSRF-Token: {player.token}\r\nCookie: "
                + "; ".join(f"{k}={v}" for k, v in player.cookies.items())
                + "\r\nExpect: 100-continue\r\n\r\n"
            ).encode()
        )
        answer = b""
        while b"\r\n\r\n" not in answer:
            got = s.recv(65536)
            if not got:
                break
            answer += got
    status = answer.split(b"\r\n", 1)[0]
    assert status.startswith(b"HTTP/1.1 413"), answer[:200]


def test_the_log_shows_no_error(server: LiveServer, tmp_path: Path) -> None:
    """After the oversized bodies above, the server's log holds no traceback."""
    player = LivePlayer(server.url)
    assert player.get("/api/session").status_code == 200
    log = server.log_path.read_text() if server.log_path else ""
    assert "Traceback" not in log, log[-2000:]
