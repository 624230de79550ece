"""``LeanRoute``: FastAPI's request handling, minus its generic machinery, for the simplest
routes of the JSON API and the play page (issue 12, "the stack's floor": a player's action is
the site's hot path).

FastAPI solves every request's parameters generically: it walks a dependency graph, builds an
``EndpointContext``, sniffs the body's content type with ``email.message`` and collects error
lists, tens of microseconds a request here. A ``LeanRoute`` whose endpoint has the plainest
shape gets, for a well-formed request, the same values by the shortest path:

- path parameters declared as plain ``str`` (taken as they are, as FastAPI does);
- dependencies that are ``async`` functions of the request alone (``app.web.deps``);
- at most one JSON body parameter (a model, or ``Model | None = None``), validated by the
  route's own field (``ModelField.validate``, exactly FastAPI's validation);
- the ``Request`` itself;
- an endpoint that returns a ``Response`` (a sync one runs in the thread pool, as FastAPI
  runs it; FastAPI does nothing more with a returned ``Response``).

Anything else about a request (no or another content type, a body that is not JSON, a body
the model refuses, dependency overrides in force) goes to FastAPI's own handler, which reads
the same cached body: every error is FastAPI's, word for word. A route of any other shape is
an ordinary ``APIRoute``. The OpenAPI document is the route's, unchanged.

``LeanRouter``: an ``APIRouter`` that turns away, with one string test, a path none of its
routes can match (FastAPI tries every route of every included router in turn, ~1.6 us each:
the play page's actions came after the JSON API's fourteen routes).

``FirstRoutes``: the busiest routes (a player's actions and the play page), tried by the app's
own router before any included router. FastAPI matches an included router's route through its
own scan of that router's routes, twice a request (once to match, once to handle); a route of
the app's own router is matched once, by its pattern. The answer is the same: only routes
that FastAPI tries first of all the routes their path could match are given.

Used by the routers of the JSON API (``app.web.api``) and of the play page
(``app.web.pages``). A router that adds dependencies of its own
to included routes (``include_router(dependencies=...)``) must not include lean routes: the
lean path sees only the endpoint's own parameters.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, get_type_hints

from fastapi import APIRouter, FastAPI, Request, Response
from fastapi.routing import APIRoute
from starlette.concurrency import run_in_threadpool
from starlette.routing import BaseRoute, Match
from starlette.types import Receive, Scope, Send

Handler = Callable[[Request], Coroutine[Any, Any, Response]]
_NOT_LEAN = object()  # the request takes FastAPI's own path


@dataclass(frozen=True, slots=True)
class _Plan:
    """How a lean route's values are found (see the module notes)."""

    path: tuple[tuple[str, str], ...]  # (argument, path parameter)
    dependencies: tuple[tuple[str, Callable[[Request], Coroutine[Any, Any, Any]]], ...]
    body: Any  # the body's ModelField, or None
    body_required: bool
    request_name: str | None

    async def values(self, request: Request) -> dict[str, Any] | object:
        path_params = request.path_params
        values: dict[str, Any] = {name: path_params[alias] for name, alias in self.path}
        if self.request_name is not None:
            values[self.request_name] = request
        body = self.body
        if body is not None:
            raw = await request.body()
            if raw:
                if request.headers.get("content-type") != "application/json":
                    return _NOT_LEAN
                try:
                    data = json.loads(raw)
                except (ValueError, RecursionError):  # (RecursionError: nested too deeply)
                    return _NOT_LEAN
                value, errors = body.validate(data, {}, loc=("body",))
                if errors:
                    return _NOT_LEAN
                values[body.name] = value
            elif self.body_required:
                return _NOT_LEAN
            else:
                values[body.name] = None
        solved: dict[Any, Any] = {}  # a dependency named twice runs once, as in FastAPI
        for name, call in self.dependencies:
            if call not in solved:
                solved[call] = await call(request)
            values[name] = solved[call]
        return values


def lean_plan(route: APIRoute) -> _Plan | None:
    """The lean plan of ``route``, or None when its shape is not the plainest."""
    d = route.dependant
    endpoint = route.endpoint
    try:
        returns = get_type_hints(endpoint).get("return")
    except (NameError, TypeError):  # an annotation that does not resolve: FastAPI's own path
        return None
    if (
        d.query_params
        or d.header_params
        or d.cookie_params
        or d.websocket_param_name
        or d.http_connection_param_name
        or d.response_param_name
        or d.background_tasks_param_name
        or d.security_scopes_param_name
        or len(d.body_params) > 1
        or returns is not Response
    ):
        return None
    path: list[tuple[str, str]] = []
    for field in d.path_params:
        if field.field_info.annotation is not str or field.field_info.metadata:
            return None
        path.append((field.name, field.alias))
    dependencies = []
    for sub in d.dependencies:
        call = sub.call
        if (
            sub.name is None
            or call is None
            or not _is_async(call)
            or sub.dependencies
            or sub.request_param_name is None
            or sub.path_params
            or sub.query_params
            or sub.header_params
            or sub.cookie_params
            or sub.body_params
        ):
            return None
        dependencies.append((sub.name, call))
    body = d.body_params[0] if d.body_params else None
    if body is not None and (getattr(body.field_info, "embed", False) or body.alias != body.name):
        return None
    return _Plan(
        path=tuple(path),
        dependencies=tuple(dependencies),
        body=body,
        body_required=bool(body is not None and body.field_info.is_required()),
        request_name=d.request_param_name,
    )


def _is_async(call: Callable[..., Any]) -> bool:
    return inspect.iscoroutinefunction(call)


class LeanRoute(APIRoute):
    """See the module notes."""

    def get_route_handler(self) -> Handler:
        full = super().get_route_handler()
        plan = lean_plan(self)
        if plan is None:
            return full
        endpoint = self.endpoint
        is_async = _is_async(endpoint)

        async def handler(request: Request) -> Response:
            app = request.scope.get("app")
            if app is not None and getattr(app, "dependency_overrides", None):
                return await full(request)  # (tests' overrides: FastAPI applies them)
            values = await plan.values(request)
            if values is _NOT_LEAN:
                return await full(request)
            assert isinstance(values, dict)
            if is_async:
                response = await endpoint(**values)
            else:
                response = await run_in_threadpool(endpoint, **values)
            if not isinstance(response, Response):
                raise TypeError(f"{endpoint.__name__} must return a Response")
            return response

        return handler


def try_first(router: APIRouter, *names: str) -> None:
    """Put the routes named ``names`` first in ``router``: FastAPI tries a router's routes in
    order, a few microseconds each (and twice: the app's router, then this one's), so the
    busiest go first. ``/openapi.json`` lists its paths in this order too."""
    router.routes.sort(key=lambda route: getattr(route, "name", "") not in names)


class LeanRouter(APIRouter):
    """An ``APIRouter`` that answers "no match" at once for a path outside every route's
    literal head (its path up to the first ``{``): a route's pattern cannot match such a path,
    so FastAPI's answer would be the same, after trying each route. Include it without a
    prefix of its own (``include_router(router)``): the heads are its routes' own paths."""

    _heads: tuple[str, ...] = ("",)
    _heads_of = -1  # the number of routes the heads were taken from

    def heads(self) -> tuple[str, ...]:
        if self._heads_of != len(self.routes):
            self._heads = tuple(
                sorted({getattr(route, "path", "").split("{", 1)[0] for route in self.routes})
            )
            self._heads_of = len(self.routes)
        return self._heads

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        # (under a root path, FastAPI's own matching: the route's path is the path's rest)
        if not scope.get("root_path") and not scope["path"].startswith(self.heads()):
            return Match.NONE, {}
        return super().matches(scope)


class FirstRoutes(BaseRoute):
    """``routes`` (of included routers, without prefixes of the inclusion's own), tried by
    ``app``'s own router before everything else (``first_routes``), by their pattern alone.

    Only routes FastAPI itself tries before any other route that could match their paths may
    be given (the first of their routers, ``try_first``, in the first routers included, or in
    routers whose paths no earlier route can match): then a request goes where FastAPI's own
    scan sends it. A path none of them matches with its method goes on to FastAPI's own
    routing (a wrong method, a trailing slash, a route of another router), and so does every
    request while dependency overrides are in force (FastAPI applies them to the included
    router's copy of a route) or under a root path."""

    def __init__(self, app: FastAPI, routes: Sequence[APIRoute]) -> None:
        self.fastapi_app = app
        # (method, number of path segments, the last one when literal, else "")
        self.shapes: dict[tuple[str, int, str], list[APIRoute]] = {}
        for route in routes:
            parts = route.path.split("/")
            last = "" if "{" in parts[-1] else parts[-1]
            for method in sorted(route.methods or ()):
                self.shapes.setdefault((method, len(parts), last), []).append(route)

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if (
            scope["type"] != "http"
            or scope.get("root_path")
            or self.fastapi_app.dependency_overrides
        ):
            return Match.NONE, {}
        path: str = scope["path"]
        method: str = scope["method"]
        size = path.count("/") + 1
        shapes = self.shapes
        for key in ((method, size, path.rsplit("/", 1)[-1]), (method, size, "")):
            for route in shapes.get(key, ()):
                match, child_scope = route.matches(scope)  # (sets child_scope["route"])
                if match is Match.FULL:
                    return match, child_scope
        return Match.NONE, {}

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        await scope["route"].handle(scope, receive, send)


def first_routes(app: FastAPI, *groups: tuple[APIRouter, Sequence[str]]) -> None:
    """Put a ``FirstRoutes`` of each (router, names)'s routes named so first in ``app``'s own
    router (after the routers are included; each router's named routes ``try_first``)."""
    routes = [
        route
        for router, names in groups
        for route in router.routes
        if isinstance(route, APIRoute) and route.name in names
    ]
    app.router.routes.insert(0, FirstRoutes(app, routes))
