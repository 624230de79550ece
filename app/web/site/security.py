"""Security headers on every response, and whether a cookie must be marked ``Secure``.

``SECURITY_HEADERS`` are added to every response that did not set its own (by the pure ASGI
``app.web.middleware.security_headers.SecurityHeadersMiddleware``, which neither buffers streaming
responses nor runs the app in another task):

- ``Content-Security-Policy``: everything from this origin only; no inline script, no ``eval``,
  no plugins, no framing (``frame-ancestors 'none'``), forms post only to this origin;
- ``X-Content-Type-Options: nosniff``;
- ``Referrer-Policy: same-origin`` (no referrer ever leaves the site: game URLs stay private);
- ``X-Frame-Options: DENY`` (``frame-ancestors`` for old browsers);
- ``Cross-Origin-Opener-Policy: same-origin`` and ``Permissions-Policy`` denying powerful
  features the game never uses.

``client_address(conn, trusted_proxies)`` is the client's address: the direct peer, or behind a
trusted proxy the right-most ``X-Forwarded-For`` address that is not itself a trusted proxy.
``app.web.middleware.client_address`` puts a keyed hash of it in
``app.services.clients.current_address`` for
the request (the address itself is never stored).

``request_is_https`` tells whether the browser reached us over https, directly or through a
trusted reverse proxy's ``X-Forwarded-Proto``; ``cookie_secure`` applies the ``COOKIE_SECURE``
setting (``auto``/``always``/``never``) to it.
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache

from starlette.requests import HTTPConnection
from starlette.types import Scope

# Inline style *attributes* (style="--n: 3") are allowed: the play page sets CSS custom
# properties on the board with them, and an attribute cannot run code. Scripts and <style>
# elements stay self-only; the htmx config sits in a <meta> element, which CSP does not govern.
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "style-src-attr 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",
        "manifest-src 'self'",  # /manifest.webmanifest
        "worker-src 'self'",  # /sw.js
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)

SECURITY_HEADERS: tuple[tuple[str, str], ...] = (
    ("content-security-policy", CONTENT_SECURITY_POLICY),
    ("x-content-type-options", "nosniff"),
    ("referrer-policy", "same-origin"),
    ("x-frame-options", "DENY"),
    ("cross-origin-opener-policy", "same-origin"),
    ("permissions-policy", "camera=(), microphone=(), geolocation=(), payment=(), usb=()"),
)


@lru_cache(maxsize=32)
def _parse_networks(
    trusted_proxies: str,
) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    networks = []
    for item in trusted_proxies.split(","):
        item = item.strip()
        if not item:
            continue
        networks.append(ipaddress.ip_network(item, strict=False))
    return tuple(networks)


@lru_cache(maxsize=1024)  # a handful of peers and proxies: parsed once each
def _is_trusted_proxy(host: str | None, trusted_proxies: str) -> bool:
    if not host:
        return False
    if trusted_proxies.strip() == "*":
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return any(address in network for network in _parse_networks(trusted_proxies))


def client_address(conn: HTTPConnection, trusted_proxies: str = "127.0.0.1,::1") -> str:
    """The client's address: the direct peer unless it is a trusted proxy; then the right-most
    ``X-Forwarded-For`` address that is not a trusted proxy (a client can prepend anything to
    the header, only what our proxies appended counts). Empty if unknown."""
    peer = conn.client.host if conn.client else ""
    return _client_address(peer, conn.headers.getlist("x-forwarded-for"), trusted_proxies)


def _client_address(peer: str, forwarded_for: list[str], trusted_proxies: str) -> str:
    if not _is_trusted_proxy(peer, trusted_proxies):
        return peer or ""
    forwarded = ",".join(forwarded_for)
    hops = [h.strip() for h in forwarded.split(",") if h.strip()]
    for hop in reversed(hops):
        if not _is_trusted_proxy(hop, trusted_proxies):
            return hop[:64]
    return hops[0][:64] if hops else (peer or "")


def scope_client_address(scope: Scope, forwarded_for: list[str], trusted_proxies: str) -> str:
    """``client_address`` of an ASGI scope (``forwarded_for``: its ``X-Forwarded-For``
    values), for ``app.web.middleware.client_address``."""
    client = scope.get("client")
    return _client_address(client[0] if client else "", forwarded_for, trusted_proxies)


def request_is_https(request: HTTPConnection, trusted_proxies: str = "127.0.0.1,::1") -> bool:
    """True when the browser's request arrived over https.

    Either this server itself was reached over https (or uvicorn's own ``--proxy-headers``
    already rewrote the scheme), or the direct peer is one of ``trusted_proxies`` (comma
    separated addresses or networks, or ``*``) and its ``X-Forwarded-Proto`` says https.
    ``X-Forwarded-Proto`` from anyone else is ignored: a client cannot talk its way into it.
    """
    if request.url.scheme in ("https", "wss"):
        return True
    forwarded = request.headers.get("x-forwarded-proto")
    if not forwarded:
        return False
    client_host = request.client.host if request.client else None
    if not _is_trusted_proxy(client_host, trusted_proxies):
        return False
    # A chain of proxies appends; the first value is what the browser used.
    return forwarded.split(",")[0].strip().lower() == "https"


def cookie_secure(
    request: HTTPConnection, mode: str = "auto", trusted_proxies: str = "127.0.0.1,::1"
) -> bool:
    """Whether a cookie set on this response must be ``Secure`` (``COOKIE_SECURE`` mode)."""
    if mode == "always":
        return True
    if mode == "never":
        return False
    return request_is_https(request, trusted_proxies)
