"""Security headers on every response (pages, API, errors, static files), pages that work
under that Content-Security-Policy (no inline script or style element, no inline event
handler), and the player cookie marked ``Secure`` when the browser came over https."""

from __future__ import annotations

import re
from pathlib import Path

import httpx2
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.requests import HTTPConnection

from app.web.site.security import CONTENT_SECURITY_POLICY, cookie_secure, request_is_https
from tests.support.postgres import migrate_in_process
from tests.support.server import LiveServer, sqlite_database

HTML = {"Accept": "text/html"}


def _assert_security_headers(response: httpx2.Response) -> None:
    h = response.headers
    csp = h.get("content-security-policy", "")
    directives = {d.split()[0]: d.split()[1:] for d in csp.split("; ") if d}
    assert directives["default-src"] == ["'self'"], csp
    assert directives["script-src"] == ["'self'"], csp  # no inline script, no eval
    assert directives["style-src"] == ["'self'"], csp
    assert directives["frame-ancestors"] == ["'none'"], csp
    assert directives["object-src"] == ["'none'"], csp
    assert directives["form-action"] == ["'self'"], csp
    assert all(
        src in ("'self'", "'none'", "data:", "'unsafe-inline'")
        for v in directives.values()
        for src in v
    ), csp  # nothing but this origin
    assert "'unsafe-inline'" not in directives["script-src"]
    assert h.get("x-content-type-options") == "nosniff"
    assert h.get("referrer-policy") == "same-origin"
    assert h.get("x-frame-options") == "DENY"


@pytest.fixture()
def client(app: FastAPI) -> TestClient:
    return TestClient(app)


def test_headers_on_pages_api_errors_and_static(client: TestClient) -> None:
    session = client.get("/api/session")
    token = session.json()["csrf_token"]
    game = client.post(
        "/api/games",
        json={"variant": "scorpion", "deal_number": 31},
        headers={"X-CSRF-Token": token},
    )
    assert game.status_code == 201
    gid = game.json()["id"]
    responses = {
        "api session": session,
        "api create": game,
        "api game": client.get(f"/api/games/{gid}"),
        "api 404": client.get("/api/games/nope"),
        "api 422": client.post(
            "/api/games", json={"variant": "spider"}, headers={"X-CSRF-Token": token}
        ),
        "csrf 403": client.post("/api/games", json={"variant": "scorpion"}),
        "openapi": client.get("/openapi.json"),
        "home page": client.get("/", headers=HTML),
        "play page": client.get(f"/games/{gid}", headers=HTML),
        "rules page": client.get("/rules", headers=HTML),
        "stats page": client.get("/stats", headers=HTML),
        "privacy page": client.get("/privacy", headers=HTML),
        "page 404": client.get("/no/such/page", headers=HTML),
        "static": client.get("/static/vendor/htmx-4.0.1.min.js"),
    }
    expected = {"api 404": 404, "api 422": 422, "csrf 403": 403, "page 404": 404, "api create": 201}
    for name, response in responses.items():
        assert response.status_code == expected.get(name, 200), (name, response.status_code)
        _assert_security_headers(response)


def test_pages_need_nothing_the_policy_forbids(client: TestClient) -> None:
    """Every page keeps to the CSP: scripts only from files of this origin, no <style>
    element, no inline event handler, no javascript: URL, no resource from elsewhere."""
    token = client.get("/api/session").json()["csrf_token"]
    gid = client.post(
        "/api/games",
        json={"variant": "scorpion", "deal_number": 32},
        headers={"X-CSRF-Token": token},
    ).json()["id"]
    for path in ("/", f"/games/{gid}", "/rules", "/stats", "/privacy"):
        page = client.get(path, headers=HTML)
        assert page.status_code == 200, path
        body = page.text
        for tag in re.findall(r"<script\b[^>]*>", body, flags=re.I):
            assert re.search(r"\ssrc=\"/", tag), (path, tag)  # a file of ours, not inline
        for content in re.findall(r"<script\b[^>]*>(.*?)</script>", body, flags=re.I | re.S):
            assert not content.strip(), (path, content[:80])
        assert not re.search(r"<style\b", body, flags=re.I), path
        assert not re.search(r"\son[a-z]+\s*=", body, flags=re.I), path
        assert "javascript:" not in body.lower(), path
        # Resources and form targets: this origin only (plain links may point anywhere).
        assert not re.search(r"\s(src|action)=\"(https?:)?//", body, flags=re.I), path
        for link in re.findall(r"<link\b[^>]*>", body, flags=re.I):
            assert not re.search(r"href=\"(https?:)?//", link), (path, link)
    assert "frame-ancestors 'none'" in CONTENT_SECURITY_POLICY


def _set_cookie(response: httpx2.Response) -> str:
    cookies = [v for k, v in response.headers.multi_items() if k == "set-cookie"]
    assert cookies, "a new visitor gets the player cookie"
    return cookies[0]


def test_cookie_secure_over_https_only(app: FastAPI) -> None:
    plain = TestClient(app, base_url="http://testserver").get("/api/session")
    assert "Secure" not in _set_cookie(plain)
    assert "HttpOnly" in _set_cookie(plain)
    secure = TestClient(app, base_url="https://testserver").get("/api/session")
    assert "Secure" in _set_cookie(secure).split("; ")
    # X-Forwarded-Proto from a client that is not a trusted proxy is ignored.
    spoofed = TestClient(app).get("/api/session", headers={"X-Forwarded-Proto": "https"})
    assert "Secure" not in _set_cookie(spoofed)


def _conn(client_host: str, scheme: str = "http", forwarded: str | None = None) -> HTTPConnection:
    headers = [(b"host", b"scorpion.example")]
    if forwarded is not None:
        headers.append((b"x-forwarded-proto", forwarded.encode()))
    return HTTPConnection(
        {
            "type": "http",
            "scheme": scheme,
            "server": ("scorpion.example", 80),
            "client": (client_host, 5555),
            "path": "/",
            "query_string": b"",
            "headers": headers,
        }
    )


def test_https_detection_behind_trusted_proxies() -> None:
    assert request_is_https(_conn("203.0.113.9", scheme="https"))
    assert not request_is_https(_conn("203.0.113.9"))
    assert request_is_https(_conn("127.0.0.1", forwarded="https"))
    assert request_is_https(_conn("::1", forwarded="https, http"))
    assert not request_is_https(_conn("127.0.0.1", forwarded="http"))
    assert not request_is_https(_conn("203.0.113.9", forwarded="https"))  # not a proxy of ours
    assert request_is_https(_conn("10.1.2.3", forwarded="https"), "10.0.0.0/8")
    assert not request_is_https(_conn("10.1.2.3", forwarded="https"), "192.168.0.0/16")
    assert request_is_https(_conn("198.51.100.1", forwarded="https"), "*")
    assert cookie_secure(_conn("203.0.113.9"), "always")
    assert not cookie_secure(_conn("203.0.113.9", scheme="https"), "never")
    assert cookie_secure(_conn("203.0.113.9", scheme="https"), "auto")


def test_live_server_behind_a_tls_proxy_sets_secure_cookie(tmp_path: Path) -> None:
    """uvicorn on loopback with a TLS-terminating proxy in front (X-Forwarded-Proto)."""
    url = sqlite_database(tmp_path)
    migrate_in_process(url)
    with LiveServer(url, workers=2, env={"RATE_LIMITS": "off"}, log_path=tmp_path / "u.log") as s:
        proxied = httpx2.get(s.url + "/api/session", headers={"X-Forwarded-Proto": "https"})
        assert "Secure" in _set_cookie(proxied).split("; ")
        _assert_security_headers(proxied)
        direct = httpx2.get(s.url + "/api/session")
        assert "Secure" not in _set_cookie(direct).split("; ")
        page = httpx2.get(s.url + "/", headers=HTML)
        assert page.status_code == 200
        _assert_security_headers(page)
