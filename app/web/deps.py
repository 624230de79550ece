"""Identity and CSRF, shared by the JSON API and the HTML pages.

Identity: a player is an anonymous id (192 random bits) held in a signed (itsdangerous,
``SECRET_KEY``), HttpOnly, SameSite=Lax cookie; Secure when the request came over https
(``COOKIE_SECURE``). Each browser that reaches the player is one of its devices
(``app/services/devices.py``): the first one's cookie carries the player id alone (the device
``first``: the cookies from before devices are such cookies, and a player row made by a
service outside a browser's request gets that device too), a linked device's carries
``<player id>:<device id>``. A cookie whose
device was removed is treated as no cookie (``app.web.front`` asks ``devices.standing``).
``identify`` (in the one ASGI middleware, ``app.web.front``) reads it on every request, or
makes a new id when the request has none (or a forged one),
and the cookie is set on the response, whatever the response is. A cookie's signature and a
player's CSRF token are computed once per process (``lru_cache``), not on every request.
The player's database row is created lazily by the first service that writes, so a
brand-new id works everywhere (empty statistics, default settings). The signature has no
expiry: cookies stay valid across restarts while ``SECRET_KEY`` does.

CSRF: the token is an HMAC of the player id and the device id (``csrf_token_for``: a
device's token is refused with another device's cookie; the first device's is the player's
token from before devices); every POST, PUT, PATCH and
DELETE must carry it in the ``X-CSRF-Token`` header or the ``csrf_token`` form field. Requests
a browser marks as cross-site (``Sec-Fetch-Site: cross-site``) or whose ``Origin`` is not this
site (nor a ``TRUSTED_ORIGINS`` entry) are refused too (``check_unsafe``). A refused request
gets ``403`` ``{"detail": ...}`` before any route runs: nothing changes.

For routes: ``PlayerId`` (the player's id), ``CsrfToken`` (the token to embed in forms),
``CallerDep`` (the player's id and the request's session, in one dependency),
``clear_identity(response)`` (after deleting the player).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Annotated
from urllib.parse import parse_qsl, urlsplit

from fastapi import Depends, Request, Response
from itsdangerous import BadSignature, Signer
from sqlalchemy.orm import Session
from starlette.requests import HTTPConnection, cookie_parser
from starlette.types import Receive, Scope

from app.config import Settings, get_settings
from app.db.session import request_session
from app.services import new_player_id
from app.services.common import FIRST_DEVICE
from app.web.form_body import body_once, multipart_token
from app.web.security import cookie_secure, request_is_https

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
CSRF_HEADER = "x-csrf-token"
CSRF_FIELD = "csrf_token"
MAX_FORM_BYTES = 1_000_000

_SIGNER_SALT = "scorpion.player"


def _signer(settings: Settings) -> Signer:
    return _signer_for(settings.secret_key)


@lru_cache(maxsize=4)
def _signer_for(secret_key: str) -> Signer:  # made once, not on every request
    return Signer(secret_key, salt=_SIGNER_SALT)


def sign_player_id(
    player_id: str, settings: Settings | None = None, device_id: str | None = None
) -> str:
    """The cookie value of (player, device); without a device (or the device ``first``): the
    player id alone."""
    payload = player_id if device_id in (None, FIRST_DEVICE) else f"{player_id}:{device_id}"
    return _signer(settings or get_settings()).sign(payload).decode()


def read_player_cookie(value: str | None, settings: Settings | None = None) -> str | None:
    """The player id in a cookie value, or None if missing or not signed by us."""
    found = read_cookie(value, settings)
    return None if found is None else found[0]


def read_cookie(value: str | None, settings: Settings | None = None) -> tuple[str, str] | None:
    """(player id, device id) of a cookie value, or None if missing or not signed by us."""
    if not value:
        return None
    return _unsigned((settings or get_settings()).secret_key, value)


@lru_cache(maxsize=4096)  # a player's every request carries the same cookie: checked once
def _unsigned(secret_key: str, value: str) -> tuple[str, str] | None:
    try:
        payload = _signer_for(secret_key).unsign(value).decode()
    except (BadSignature, UnicodeDecodeError):
        return None
    player_id, _, device_id = payload.partition(":")
    if not 16 <= len(player_id) <= 64 or len(device_id) > 24:
        return None
    return player_id, device_id or FIRST_DEVICE


def csrf_token_for(
    player_id: str, settings: Settings | None = None, device_id: str | None = None
) -> str:
    """The CSRF token of device ``device_id`` of ``player_id`` (HMAC-SHA256 with
    ``SECRET_KEY``): each device has its own; the first device's (None, ``first``) is the
    player's token from before devices."""
    return _csrf_token((settings or get_settings()).secret_key, player_id, device_id)


@lru_cache(maxsize=4096)
def _csrf_token(secret_key: str, player_id: str, device_id: str | None) -> str:
    message = "csrf:" + player_id
    if device_id not in (None, FIRST_DEVICE):
        message += f":{device_id}"
    return hmac.new(secret_key.encode(), message.encode(), hashlib.sha256).hexdigest()


def token_matches(expected: str, token: str | None) -> bool:
    """Whether ``token`` is ``expected``, in constant time; a non-ASCII token is simply wrong."""
    if not token or not token.isascii():
        return False
    return hmac.compare_digest(expected, token)


def _cookie_header(conn: HTTPConnection, settings: Settings, value: str, max_age: int) -> str:
    parts = [
        f"{settings.cookie_name}={value}",
        "Path=/",
        f"Max-Age={max_age}",
        "HttpOnly",
        "SameSite=Lax",
    ]
    if max_age == 0:
        parts.append("Expires=Thu, 01 Jan 1970 00:00:00 GMT")
    if cookie_secure(conn, settings.cookie_secure, settings.trusted_proxies):
        parts.append("Secure")
    return "; ".join(parts)


def _same_origin(conn: HTTPConnection, origin: str, settings: Settings) -> bool:
    """Whether ``Origin`` is this site: a ``TRUSTED_ORIGINS`` entry, or the request's own host
    reached with the same scheme (``http://site`` does not vouch for ``https://site``)."""
    if origin == "null":
        return False
    if origin.rstrip("/") in settings.trusted_origin_list:
        return True
    host = conn.headers.get("host")
    if not host:
        return False
    try:
        parts = urlsplit(origin)
    except ValueError:
        return False
    scheme = "https" if request_is_https(conn, settings.trusted_proxies) else "http"
    return parts.scheme.lower() == scheme and parts.netloc.lower() == host.lower()


@dataclass(slots=True)
class Identity:
    """The requesting player (``IdentityMiddleware``'s part of ``app.web.front``)."""

    player_id: str
    is_new: bool
    csrf_token: str
    new_cookie: list[tuple[bytes, bytes]]  # the ``Set-Cookie`` of a new player, else empty
    device_id: str = FIRST_DEVICE


def identify(
    scope: Scope, cookie_header: str | None, settings: Settings, *, fresh: bool = False
) -> Identity:
    """Resolve the player and device from the cookie (or make new ids, and their cookie;
    always with ``fresh``: a removed device) and put them in ``scope["state"]``
    (``player_id``, ``device_id``, ``player_is_new``, ``csrf_token``)."""
    value = cookie_parser(cookie_header).get(settings.cookie_name) if cookie_header else None
    found = None if fresh else read_cookie(value, settings)
    is_new = found is None
    if found is None:
        player_id, device_id = new_player_id(), FIRST_DEVICE
    else:
        player_id, device_id = found
    state = scope.setdefault("state", {})
    state["player_id"] = player_id
    state["device_id"] = device_id
    state["player_is_new"] = is_new
    token = state["csrf_token"] = csrf_token_for(player_id, settings, device_id)
    new_cookie: list[tuple[bytes, bytes]] = []
    if is_new:
        header = player_cookie(HTTPConnection(scope), settings, player_id, device_id)
        new_cookie = [(b"set-cookie", header.encode("latin-1"))]
    return Identity(player_id, is_new, token, new_cookie, device_id)


def player_cookie(conn: HTTPConnection, settings: Settings, player_id: str, device_id: str) -> str:
    """The ``Set-Cookie`` value that makes the browser device ``device_id`` of the player."""
    value = sign_player_id(player_id, settings, device_id)
    return _cookie_header(conn, settings, value, settings.cookie_max_age_seconds)


# ``scope["state"]``: (the body, its fields) of an urlencoded form the CSRF check read for its
# token, so that the route's form parser (``app.web.rendering.form_fields``) reads it once.
FORM_PAIRS = "form_pairs"


def urlencoded_pairs(text: str) -> list[tuple[str, str]]:
    """``parse_qsl(text, keep_blank_values=True)``: the same pairs, split by hand when no
    field has an escape (``%`` or ``+``) to decode, as a form of the site's has none."""
    if "%" in text or "+" in text:
        return parse_qsl(text, keep_blank_values=True)
    pairs = []
    for part in text.split("&"):
        if part:
            name, _, value = part.partition("=")
            pairs.append((name, value))
    return pairs


def body_pairs(scope: Scope, body: bytes) -> list[tuple[str, str]]:
    """The fields of ``body``, the urlencoded form of the request of ``scope``: those the CSRF
    check read, when it read this body, else read now."""
    read = scope.get("state", {}).get(FORM_PAIRS)
    if read is not None and read[0] == body:
        return list(read[1])
    return urlencoded_pairs(body.decode("latin-1"))


CSRF_HEADERS = frozenset({b"sec-fetch-site", b"origin", b"x-csrf-token", b"content-type"})


async def check_unsafe(
    scope: Scope,
    receive: Receive,
    identity: Identity,
    settings: Settings,
    headers: Mapping[bytes, bytes],
) -> tuple[str | None, Receive]:
    """CSRF for a POST, PUT, PATCH or DELETE: (the refusal, or None; the ``receive`` that
    replays a form body read for its token). ``headers``: the first value of each of the
    request's ``CSRF_HEADERS`` (at least; read in one pass by ``app.web.front``)."""

    def header(name: bytes) -> str | None:
        value = headers.get(name)
        return None if value is None else value.decode("latin-1")

    if (header(b"sec-fetch-site") or "").lower() == "cross-site":
        return "Requests from other sites are refused.", receive
    origin = header(b"origin")
    if origin is not None and not _same_origin(HTTPConnection(scope), origin, settings):
        return "Requests from other sites are refused.", receive
    token = header(b"x-csrf-token")
    if token is None:
        token, receive = await _form_token(scope, receive, header(b"content-type") or "")
    if not token_matches(identity.csrf_token, token):
        return (
            "This request could not be verified: its security token (CSRF token) is "
            "missing or wrong. Reload the page and try again.",
            receive,
        )
    return None, receive


async def _form_token(
    scope: Scope, receive: Receive, content_type: str
) -> tuple[str | None, Receive]:
    """Read the ``csrf_token`` field of a form body (``content_type``: the request's); the
    body is replayed to the app. A multipart body is read only up to its ``csrf_token`` part
    (``app.web.form_body.multipart_token``): a data file after it streams to the app."""
    kind = content_type.split(";")[0].strip().lower()
    if kind == "multipart/form-data":
        return await multipart_token(receive, content_type, CSRF_FIELD, MAX_FORM_BYTES)
    if kind != "application/x-www-form-urlencoded":
        return None, receive
    chunks: list[bytes] = []
    size = 0
    more = True
    while more:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_FORM_BYTES:
            return None, receive
        chunks.append(chunk)
        more = bool(message.get("more_body", False))
    body = b"".join(chunks)
    pairs = urlencoded_pairs(body.decode("latin-1"))
    token = next((value for name, value in pairs if name == CSRF_FIELD), None)
    scope.setdefault("state", {})[FORM_PAIRS] = (body, pairs)
    return token, body_once(body, receive)


# -- dependencies for routes -------------------------------------------------------------------


# The dependencies are ``async``: they do no I/O, and a plain ``def`` would cost a hop to the
# thread pool each (FastAPI runs sync dependencies there).
async def get_player_id(request: Request) -> str:
    """The requesting player's id (set by ``identify``, ``app.web.front``)."""
    player_id = request.scope.get("state", {}).get("player_id")
    if not isinstance(player_id, str):
        raise RuntimeError("FrontMiddleware is not installed")
    return player_id


async def get_device_id(request: Request) -> str:
    """The requesting browser's device id (set by ``identify``)."""
    device_id = request.scope.get("state", {}).get("device_id")
    if not isinstance(device_id, str):
        raise RuntimeError("FrontMiddleware is not installed")
    return device_id


async def get_csrf_token(request: Request) -> str:
    """The requesting player's CSRF token, to embed in forms (``csrf_token`` field)."""
    token = request.scope.get("state", {}).get("csrf_token")
    if not isinstance(token, str):
        raise RuntimeError("FrontMiddleware is not installed")
    return token


class RequestDb:
    """The request's database session (``request_session``), made on first use: an action or
    a read run on the event loop (``app.web.inline``) needs none."""

    __slots__ = ("_db", "_scope")

    def __init__(self, scope: Scope) -> None:
        self._scope = scope
        self._db: Session | None = None

    @property
    def db(self) -> Session:
        if self._db is None:
            self._db = request_session(self._scope)
        return self._db


class Caller(RequestDb):
    """The requesting player and the request's database session (``RequestDb``)."""

    __slots__ = ("player_id",)

    def __init__(self, scope: Scope, player_id: str) -> None:
        super().__init__(scope)
        self.player_id = player_id


async def get_caller(request: Request) -> Caller:
    """One dependency for the routes that need both the player and a session: FastAPI spends
    10 to 20 us solving each dependency on every request."""
    return Caller(request.scope, await get_player_id(request))


PlayerId = Annotated[str, Depends(get_player_id)]
CsrfToken = Annotated[str, Depends(get_csrf_token)]
DeviceId = Annotated[str, Depends(get_device_id)]
CallerDep = Annotated[Caller, Depends(get_caller)]


def become_device(request: Request, response: Response, player_id: str, device_id: str) -> str:
    """After linking: the browser's cookie now names device ``device_id`` of ``player_id``
    (instead of any new player's cookie the middleware would set). Returns that device's CSRF
    token (for the forms of the page that answers)."""
    state = request.scope.setdefault("state", {})
    state["identity_cleared"] = True
    header = player_cookie(request, get_settings(), player_id, device_id)
    response.headers.append("set-cookie", header)
    return csrf_token_for(player_id, device_id=device_id)


def clear_identity(request: Request, response: Response) -> None:
    """After deleting the player: clear the cookie and ask the browser to forget the site."""
    settings = get_settings()
    request.scope.setdefault("state", {})["identity_cleared"] = True
    response.headers.append("set-cookie", _cookie_header(request, settings, '""', 0))
    response.headers["Clear-Site-Data"] = '"cookies", "storage", "cache"'
