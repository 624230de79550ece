"""``LeanRoute`` (app.web.lean): a well-formed request takes the short path, and every answer,
good or bad, is exactly what FastAPI's own handler gives.

Two apps with the same endpoints, one through ``LeanRoute`` and one through FastAPI's
``APIRoute``, get the same requests; status, body and headers must match, for good bodies
and for every kind of bad one (not JSON, another content type, a refused field, a missing
body, null, extra keys). The JSON API's action routes must be lean.

``LeanRouter``: two apps, one whose routers are lean and one with FastAPI's, route every
path alike (a match, a wrong method, a missing route, a trailing slash), and a lean router
tries none of its routes for a path outside their heads.
"""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from fastapi import APIRouter, Body, Depends, FastAPI, Path, Request, Response
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from pydantic import BaseModel, ConfigDict, StrictInt

from app.web import api
from app.web.lean import LeanRoute, LeanRouter, lean_plan

CALLS: list[str] = []


class Body_(BaseModel):
    model_config = ConfigDict(strict=True)
    a: StrictInt
    b: StrictInt = 0


class Optional_(BaseModel):
    model_config = ConfigDict(strict=True)
    version: StrictInt | None = None


async def who(request: Request) -> str:
    return request.headers.get("x-who", "nobody")


Who = Annotated[str, Depends(who)]
ItemId = Annotated[str, Path(alias="id")]


def build(route_class: type[APIRoute]) -> FastAPI:
    router = APIRouter(prefix="/api", route_class=route_class)

    @router.post("/items/{id}/sync")
    def sync(item: ItemId, body: Body_, caller: Who) -> Response:
        CALLS.append("sync")
        return Response(f"{item} {body.a} {body.b} {caller}", media_type="text/plain")

    @router.post("/items/{id}/async")
    async def not_sync(item: ItemId, body: Body_, caller: Who) -> Response:
        CALLS.append("async")
        return Response(f"{item} {body.a + body.b} {caller}", media_type="text/plain")

    @router.post("/items/{id}/step")
    async def step(
        request: Request,
        item: ItemId,
        caller: Who,
        body: Annotated[Optional_ | None, Body()] = None,
    ) -> Response:
        version = body.version if body else None
        return Response(f"{request.url.path} {item} {version} {caller}", media_type="text/plain")

    @router.get("/items")
    def with_query(q: str = "") -> dict[str, Any]:  # not the plainest shape: FastAPI's own
        return {"q": q}

    app = FastAPI()
    app.include_router(router)
    app.state.router = router
    return app


LEAN, PLAIN = TestClient(build(LeanRoute)), TestClient(build(APIRoute))
JSON = {"content-type": "application/json"}

REQUESTS: list[tuple[str, bytes | None, dict[str, str]]] = [
    ("/api/items/x1/{kind}", b'{"a": 1, "b": 2}', JSON),
    ("/api/items/x1/{kind}", b'{"a": 1}', JSON),
    ("/api/items/x1/{kind}", b'{"a": 1, "b": 2, "c": 3}', JSON),  # extra keys
    ("/api/items/x1/{kind}", b'{"a": "1"}', JSON),  # strict: no coercion
    ("/api/items/x1/{kind}", b'{"a": true}', JSON),
    ("/api/items/x1/{kind}", b'{"a": 1.0}', JSON),
    ("/api/items/x1/{kind}", b'{"b": 2}', JSON),  # missing field
    ("/api/items/x1/{kind}", b"[1, 2]", JSON),
    ("/api/items/x1/{kind}", b"null", JSON),
    ("/api/items/x1/{kind}", b"{not json", JSON),
    ("/api/items/x1/{kind}", b"", JSON),
    ("/api/items/x1/{kind}", None, {}),
    ("/api/items/x1/{kind}", b'{"a": 1}', {"content-type": "text/plain"}),
    ("/api/items/x1/{kind}", b'{"a": 1}', {"content-type": "application/json; charset=utf-8"}),
    ("/api/items/x1/{kind}", b'{"a": 1}', {"content-type": "application/merge-patch+json"}),
    ("/api/items/x1/{kind}", b'{"a": 1}', {**JSON, "x-who": "ann"}),
    ("/api/items/%C3%A9t%C3%A9/{kind}", b'{"a": 1}', JSON),  # a path parameter, decoded
    ("/api/items/x1/{kind}", b'{"version": 3}', JSON),
    ("/api/items/x1/{kind}", b'{"version": "3"}', JSON),
    ("/api/items/x1/{kind}", b'{"version": null}', JSON),
    ("/api/items/x1/{kind}", b'{"a": 1}', {"content-type": "application/x-www-form-urlencoded"}),
]


@pytest.mark.parametrize("kind", ["sync", "async", "step"])
@pytest.mark.parametrize(("path", "body", "headers"), REQUESTS)
def test_every_answer_is_fastapis_own(
    kind: str, path: str, body: bytes | None, headers: dict[str, str]
) -> None:
    url = path.format(kind=kind)
    lean = LEAN.post(url, content=body, headers=headers)
    plain = PLAIN.post(url, content=body, headers=headers)
    assert (lean.status_code, lean.text) == (plain.status_code, plain.text)
    assert lean.headers == plain.headers


def test_the_endpoint_runs_once_per_request() -> None:
    CALLS.clear()
    LEAN.post("/api/items/x/sync", content=b'{"a": 1}', headers=JSON)
    LEAN.post("/api/items/x/async", content=b'{"a": "bad"}', headers=JSON)  # 422: not run
    LEAN.post("/api/items/x/async", content=b'{"a": 1}', headers={"content-type": "text/x"})
    assert CALLS == ["sync"]


def test_dependency_overrides_apply() -> None:
    app = build(LeanRoute)
    app.dependency_overrides[who] = lambda: "stand-in"
    answer = TestClient(app).post("/api/items/x/sync", content=b'{"a": 1}', headers=JSON)
    assert answer.text == "x 1 0 stand-in"


def test_other_shapes_are_fastapis_own_routes() -> None:
    router = build(LeanRoute).state.router
    routes = {r.path: r for r in router.routes if isinstance(r, LeanRoute)}
    assert lean_plan(routes["/api/items/{id}/sync"]) is not None
    assert lean_plan(routes["/api/items"]) is None  # a query parameter
    assert LEAN.get("/api/items?q=ok").json() == PLAIN.get("/api/items?q=ok").json() == {"q": "ok"}


def test_the_json_apis_actions_are_lean() -> None:
    """The hot path (issue 12): a move, the deal, undo and redo, and reading a game."""
    routes = {
        (r.path, m): r for r in api.router.routes if isinstance(r, APIRoute) for m in r.methods
    }
    for path in ("moves", "deal", "undo", "redo"):
        route = routes[(f"/api/games/{{id}}/{path}", "POST")]
        assert isinstance(route, LeanRoute) and lean_plan(route) is not None, path
    assert lean_plan(routes[("/api/games/{id}", "GET")]) is not None


def routed(router_class: type[APIRouter], root_path: str = "") -> TestClient:
    api_router = router_class(prefix="/api")
    pages_router = router_class()

    @api_router.get("/games/{id}")
    def api_game(id: str) -> dict[str, str]:
        return {"api": id}

    @api_router.post("/session")
    def api_session() -> dict[str, str]:
        return {"session": "new"}

    @pages_router.get("/games/{id}")
    def page(id: str) -> dict[str, str]:
        return {"page": id}

    @pages_router.get("/")
    def home() -> dict[str, str]:
        return {"home": ""}

    app = FastAPI()
    app.include_router(api_router)
    app.include_router(pages_router)
    return TestClient(app, follow_redirects=False, root_path=root_path)


ROUTED = {"lean": routed(LeanRouter), "plain": routed(APIRouter)}
# behind a proxy that serves the site under a path of its own (uvicorn --root-path)
UNDER_ROOT = {"lean": routed(LeanRouter, "/site"), "plain": routed(APIRouter, "/site")}


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/api/games/7"),
        ("GET", "/games/7"),
        ("GET", "/"),
        ("POST", "/api/session"),
        ("GET", "/api/session"),  # 405
        ("POST", "/games/7"),  # 405
        ("GET", "/api/nowhere"),  # 404
        ("GET", "/nowhere/7"),  # 404
        ("GET", "/games/7/"),  # the slash redirect
        ("GET", "/api/games/7/"),
    ],
)
@pytest.mark.parametrize("clients", [ROUTED, UNDER_ROOT], ids=["at the root", "under a root path"])
def test_a_lean_router_routes_as_fastapis_own(
    method: str, path: str, clients: dict[str, TestClient]
) -> None:
    lean = clients["lean"].request(method, path)
    plain = clients["plain"].request(method, path)
    assert (lean.status_code, lean.text, lean.headers.get("location")) == (
        plain.status_code,
        plain.text,
        plain.headers.get("location"),
    )


def test_a_lean_router_turns_away_a_path_outside_its_routes_heads() -> None:
    tried: list[str] = []

    class Counted(APIRoute):
        def matches(self, scope: Any) -> Any:
            tried.append(scope["path"])
            return super().matches(scope)

    router = LeanRouter(prefix="/api", route_class=Counted)

    @router.get("/games/{id}")
    def game(id: str) -> dict[str, str]:
        return {"id": id}

    app = FastAPI()
    app.include_router(router)
    client = TestClient(app)
    assert client.get("/api/games/1").json() == {"id": "1"}
    assert tried, "the route was tried for a path under its head"
    tried.clear()
    assert client.get("/games/1").status_code == 404
    assert tried == []
    assert api.router.heads() and all(h.startswith("/api/") for h in api.router.heads())


def _answers(app: FastAPI, requests: list[tuple[str, str]]) -> list[tuple[Any, ...]]:
    """Status, body and the route template (the access log's) of each request, as a new
    player with a new game (their ids and token masked in the bodies)."""
    import logging

    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    log = logging.getLogger("scorpion.access")
    level = log.level
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    try:
        client = TestClient(app, follow_redirects=False)
        token = client.get("/api/session").json()["csrf_token"]
        game = client.post("/api/games", json={"deal_number": 5}, headers={"x-csrf-token": token})
        gid = game.json()["id"]
        out = []
        for method, path in requests:
            records.clear()
            answer = client.request(
                method,
                path.format(gid=gid),
                headers={"x-csrf-token": token, "hx-request": "true"},
                data={"version": "999"} if method == "POST" else None,
            )
            text = answer.text.replace(gid, "{gid}").replace(token, "{token}")
            out.append((method, path, answer.status_code, text, records[-1].route))
        return out
    finally:
        log.removeHandler(handler)
        log.setLevel(level)


FIRST_REQUESTS = [
    ("GET", "/games/{gid}"),
    ("GET", "/games/nope"),
    ("HEAD", "/games/{gid}"),
    ("GET", "/games/{gid}/"),
    ("POST", "/games/{gid}"),  # 405
    ("POST", "/games/{gid}/move"),  # a stale version: the conflict answer
    ("GET", "/games/{gid}/move"),  # back to the game
    ("POST", "/games/{gid}/undo"),
    ("POST", "/games/{gid}/redo"),
    ("POST", "/games/{gid}/deal"),
    ("POST", "/games/{gid}/restart"),  # not a first route
    ("POST", "/games/{gid}/move/"),
    ("POST", "/games/{gid}/moves"),  # the JSON API's name under the pages' head: 404
    ("POST", "/api/games/{gid}/moves"),
    ("POST", "/api/games/{gid}/deal"),
    ("POST", "/api/games/{gid}/undo"),
    ("POST", "/api/games/{gid}/redo"),
    ("GET", "/api/games/{gid}/undo"),
    ("GET", "/api/games/{gid}"),
    ("POST", "/api/games/{gid}/move"),
    ("GET", "/games"),
    ("GET", "/rules/x"),
]


def test_the_first_routes_answer_as_fastapis_own_routing(app: FastAPI) -> None:
    """``FirstRoutes`` (the player's actions and the play page, matched before FastAPI's
    included routers): the same status, body and route for each request as the same app
    without it, and the first routes are in front of the app's router."""
    from app.main import create_app
    from app.web.lean import FirstRoutes

    assert isinstance(app.router.routes[0], FirstRoutes)
    shapes = app.router.routes[0].shapes
    assert {r.name for rs in shapes.values() for r in rs} == {
        "post_move",
        "post_deal",
        "post_undo",
        "post_redo",
        "play",
        "move",
        "step_action",
    }
    plain = create_app()
    plain.router.routes[:] = [r for r in plain.router.routes if not isinstance(r, FirstRoutes)]
    first = _answers(app, FIRST_REQUESTS)
    assert [a[4] for a in first[:2]] == ["/games/{game_id}"] * 2
    assert first[5][4] == "/games/{game_id}/move" and first[13][4] == "/api/games/{id}/moves"
    assert _answers(plain, FIRST_REQUESTS) == first
