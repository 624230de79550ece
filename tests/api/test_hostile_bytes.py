"""No 5xx from hostile bytes (issue 39, item 7), on SQLite and PostgreSQL.

- A NUL byte in any id, code or token the app reads: every route of the app, walked from
  ``app.routes`` (no hand-kept list), is asked with a NUL in each of its path parameters,
  query parameters, JSON body fields and form fields in turn (the rest valid: the player's
  own game, challenge token, device, today's date...), and the whole site with a NUL in each
  cookie and header the app reads. PostgreSQL refuses NUL in text; each answer must be a 4xx
  or a success, never a 5xx.
- Deeply nested JSON (60,000 ``[``): a ``RecursionError`` is not a ``ValueError``; the game
  routes answer it like any body that is not JSON.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.params import Form

from app.config import get_settings
from app.i18n import LOCALE_COOKIE
from tests.support.api_client import Player, assert_error
from tests.support.deals import WIN_DEAL

pytestmark = pytest.mark.usefixtures("configured")

NUL = "a\x00b"
# Event streams stay open: only their refusals (a NUL in the path) are asked for.
STREAM_SUFFIX = "/events"
# Fields the routes read from a form themselves (not declared as parameters).
FORM_EXTRAS = ("version", "code", "device", "from_column", "from_index", "to_column")
FORM_EXTRAS += ("from_pile", "to_pile", "next", "leave", "confirm")
# The data file's import is issue 39's item 7 of its own (app/services/portability, tested
# there); every other route is walked here.
ELSEWHERE = frozenset({"/api/player/import", "/privacy/import"})
UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# A valid body beside the NUL, so that the NUL is what reaches the services and the database.
VALID_JSON: dict[str, dict[str, Any]] = {
    "/api/games/{id}/moves": {"from_column": 0, "from_index": 6, "to_column": 1},
    "/api/games": {"variant": "scorpion"},
}
VALID_FORM = {"version": "0", "from_column": "0", "from_index": "6", "to_column": "1"}


def routes(app: FastAPI) -> Iterator[tuple[str, str, Any]]:
    """(method, path template, FastAPI's dependant) of every route of the app."""
    seen: set[tuple[str, str]] = set()
    for route in app.routes:
        contexts: Any = getattr(route, "effective_route_contexts", None)
        items = (contexts() if callable(contexts) else contexts) if contexts else [route]
        for item in items:
            dependant = getattr(item, "dependant", None)
            path = getattr(item, "path", None)
            if dependant is None or not path or path in ELSEWHERE:
                continue
            for method in sorted(getattr(item, "methods", None) or ()):
                if method != "HEAD" and (method, path) not in seen:
                    seen.add((method, path))
                    yield method, path, dependant


def _params(dependant: Any, kind: str) -> list[Any]:
    out = list(getattr(dependant, kind))
    for sub in dependant.dependencies:
        out.extend(_params(sub, kind))
    return out


def _json_fields(param: Any) -> list[str]:
    annotation = param.field_info.annotation
    fields = getattr(annotation, "model_fields", None)
    return list(fields) if fields else []


class World:
    """One player with something behind every id a route may name."""

    def __init__(self, app: FastAPI) -> None:
        self.p = Player(app)
        self.game = self.p.new_game(deal=WIN_DEAL)
        self.token = self.p.post(f"/api/games/{self.game['id']}/challenge").json()["token"]
        devices = self.p.get("/api/player/devices").json()
        self.device = devices["devices"][0]["id"] if isinstance(devices, dict) else "first"
        self.code = self.p.post("/api/player/link-code").json().get("code", "ABCD-EFGH")
        self.values = {
            "id": self.game["id"],
            "game_id": self.game["id"],
            "token": self.token,
            "variant": "scorpion",
            "day": datetime.now(UTC).date().isoformat(),
            "number": "10",
            "device": self.device,
        }

    def url(self, path: str, nul_in: str | None = None) -> str:
        for name, value in self.values.items():
            path = path.replace("{" + name + "}", "a%00b" if name == nul_in else value)
        assert "{" not in path, path
        return path

    def send(self, method: str, url: str, **kw: Any) -> Any:
        headers = {**self.p.headers, **kw.pop("headers", {})}
        return self.p.http.request(method, url, headers=headers, follow_redirects=False, **kw)


def _check(answers: list[tuple[str, int, str]]) -> None:
    failed = [f"{status} {what}" for what, status, _ in answers if status >= 500]
    assert not failed, f"{len(failed)} of {len(answers)} answers were 5xx:\n" + "\n".join(failed)


def test_a_nul_in_any_parameter_of_any_route_is_never_a_5xx(app: FastAPI) -> None:
    answers: list[tuple[str, int, str]] = []
    asked = 0
    world: World | None = None
    for method, path, dependant in routes(app):
        stream = path.endswith(STREAM_SUFFIX)
        path_names = [p.name for p in dependant.path_params]
        cases: list[tuple[str, str, dict[str, Any]]] = []
        for name in path_names:
            cases.append((f"path {name}", name, {}))
        if not stream:
            for q in _params(dependant, "query_params"):
                cases.append((f"query {q.alias}", "", {"params": {q.alias: NUL}}))
            for b in _params(dependant, "body_params"):
                if isinstance(b.field_info, Form):
                    cases.append((f"form {b.alias}", "", {"form": b.alias}))
                else:
                    for field in _json_fields(b):
                        cases.append((f"json {field}", "", {"json": field}))
            if method in ("POST", "PUT") and not any(
                not isinstance(b.field_info, Form) for b in _params(dependant, "body_params")
            ):
                declared = {b.alias for b in _params(dependant, "body_params")}
                for field in (f for f in FORM_EXTRAS if f not in declared):
                    cases.append((f"form {field}", "", {"form": field}))
        json_body = any(not isinstance(b.field_info, Form) for b in dependant.body_params)
        for label, nul_in, kw in cases:
            world = world or World(app)
            kw = dict(kw)
            if "form" in kw:
                kw["data"] = {**VALID_FORM, "csrf_token": world.p.token, kw.pop("form"): NUL}
            elif "json" in kw:
                kw["json"] = {**VALID_JSON.get(path, {}), kw.pop("json"): NUL}
            elif nul_in and json_body:
                kw["json"] = VALID_JSON.get(path, {})
            elif nul_in and method in UNSAFE:
                kw["data"] = {**VALID_FORM, "csrf_token": world.p.token}
            r = world.send(method, world.url(path, nul_in or None), **kw)
            asked += 1
            answers.append((f"{method} {path} {label}", r.status_code, r.text[:120]))
            if method in UNSAFE and r.status_code < 400:
                world = None  # (it may have deleted or changed what the next one names)
    assert asked > 60, asked  # the walk found the routes
    _check(answers)


HEADERS = ("User-Agent", "X-CSRF-Token", "X-Request-ID", "Accept-Language", "HX-Request")
HEADERS += ("Origin", "Sec-Fetch-Site", "X-Forwarded-For", "X-Forwarded-Proto", "Content-Type")


def test_a_nul_in_any_cookie_or_header_is_never_a_5xx(app: FastAPI) -> None:
    answers: list[tuple[str, int, str]] = []
    settings = get_settings()
    world: World | None = None
    for method, path, _ in routes(app):
        if path.endswith(STREAM_SUFFIX) or method == "DELETE" or "delete" in path:
            continue
        for where in (*HEADERS, f"cookie {settings.cookie_name}", f"cookie {LOCALE_COOKIE}"):
            world = world or World(app)
            url = world.url(path)
            if where.startswith("cookie "):
                name = where.split()[1]
                kept = world.p.http.cookies.get(name)
                world.p.http.cookies.set(name, NUL)
                r = world.send(method, url)
                world.p.http.cookies.delete(name)
                if kept is not None:
                    world.p.http.cookies.set(name, kept)
            else:
                r = world.send(method, url, headers={where: NUL})
            answers.append((f"{method} {path} {where}", r.status_code, r.text[:120]))
            if method in UNSAFE and r.status_code < 400:
                world = None  # (it may have changed what the next one names)
    _check(answers)


# -- deeply nested JSON -------------------------------------------------------------------------

DEEP = "[" * 60_000


def test_deeply_nested_json_is_a_4xx_on_every_json_route(app: FastAPI) -> None:
    """Every route that reads a JSON body answers 4xx ("not valid JSON") and changes nothing;
    a route without a body ignores it (never a 5xx)."""
    world = World(app)
    before = world.p.get(f"/api/games/{world.game['id']}").json()
    asked = 0
    for method, path, dependant in routes(app):
        if method not in ("POST", "PUT") or not path.startswith("/api/"):
            continue
        headers = {"Content-Type": "application/json"}
        r = world.send(method, world.url(path), content=DEEP, headers=headers)
        assert r.status_code < 500, (method, path, r.status_code, r.text[:200])
        if any(not isinstance(b.field_info, Form) for b in _params(dependant, "body_params")):
            asked += 1
            assert "not valid JSON" in assert_error(r, 422), (method, path)
            if path.startswith("/api/games/{id}"):
                now = world.p.get(f"/api/games/{world.game['id']}").json()
                assert now == before, (method, path)  # nothing changed
    assert asked >= 8, asked


def test_a_nul_id_is_a_plain_404_and_a_nul_field_a_422(app: FastAPI) -> None:
    """What a player or client reads: the same answer on both databases where the NUL is in
    the address; nothing changed."""
    world = World(app)
    r = world.send("GET", "/games/a%00b", headers={"Accept": "text/html"})
    assert r.status_code == 404 and "text/html" in r.headers["content-type"]
    assert_error(world.send("DELETE", "/api/player/devices/a%00b"), 404)
    r = world.send(
        "POST", "/privacy/devices/remove", data={"csrf_token": world.p.token, "device": NUL}
    )
    assert 400 <= r.status_code < 500
    assert world.p.get("/api/player/devices").status_code == 200
    assert world.p.get(f"/api/games/{world.game['id']}").json()["version"] == world.game["version"]
