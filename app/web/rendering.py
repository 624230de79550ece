"""Rendering the HTML pages: the templates and their globals, ``render``, redirects, the
context builders every page shares, and the error pages. Every page module uses this one.

A request made by htmx (``HX-Request: true``) gets only the template blocks it changes
(jinja2-fragments); any other request gets a ``303`` back to the full page after a successful
action. Every response says ``Vary: HX-Request``.

Only ``PublicView`` is ever rendered: no face-down or stock card identity reaches the browser.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Collection, Mapping, MutableMapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, TypeVar
from urllib.parse import quote

from fastapi import Depends, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import Environment, FileSystemLoader, select_autoescape
from jinja2_fragments import render_block
from jinja2_fragments.fastapi import Jinja2Blocks
from markupsafe import Markup, escape
from pydantic import BaseModel, ValidationError
from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool

from app.db.session import loop_connection, request_session
from app.engine import ALL_VARIANTS, MAX_DEAL_NUMBER, Move
from app.services import Display, GameState, get_display
from app.services.daily import daily_label, is_daily_game
from app.web import board_html, static_files
from app.web.deps import RequestDb, body_pairs, get_csrf_token, get_player_id
from app.web.examples import variant_example
from app.web.inline import run_read
from app.web.view import board_view
from app.web.words import card_name, format_seconds, rank_label, suit_name

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES_DIR = ROOT / "templates"
STATIC_DIR = ROOT / "static"
DISPLAY_KEY = "display"  # the request's ``Display`` in ``scope["state"]``, once read

# How a race entry's status reads on the pages (daily deal, challenges, the live panel).
RACE_STATUS_TEXT = {
    "playing": "playing",
    "won": "finished: won",
    "stuck": "stuck",
    "gave-up": "gave up",
    "rejected": "result rejected",
    "unfinished": "did not finish",
}


class _Environment(Environment):
    """Jinja2's environment, with each template's globals the environment's own dict.

    Jinja2 layers a template's globals over the environment's in a ``ChainMap``, which costs
    it about a microsecond per global (we have some twenty) every time it makes a render's
    context and every time a template runs an ``{% import %}`` (it diffs the two sets of
    names): 25 to 30 us each, several times per page and per htmx answer. No template here has
    globals of its own, so the environment's dict serves as is (and whatever is added to it
    later is seen, as before)."""

    def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
        return super().make_globals(d) if d else self.globals


# Templates change only with a new release (a new process): no file's time is looked up on
# every render. (The loader and autoescaping are Starlette's defaults.)
templates = Jinja2Blocks(
    env=_Environment(
        loader=FileSystemLoader(str(TEMPLATES_DIR)),
        autoescape=select_autoescape(),
        auto_reload=False,
    )
)


# Template strings are written {{ _("...") }} for the translations (issue 33); until a
# catalog is installed they read as written.
if "jinja2.ext.InternationalizationExtension" not in templates.env.extensions:
    templates.env.add_extension("jinja2.ext.i18n")
    templates.env.install_null_translations(newstyle=True)  # type: ignore[attr-defined]


def static_url(path: str) -> str:
    """``/static/<name>.<content hash>.<ext>``: cacheable forever, a new URL when it changes
    (``app/web/static_files.py``)."""
    return static_files.static_url(path)


def _favicon_data_url() -> str:
    """The site icon inline (a data: URL): one request fewer, and none to abort mid-load."""
    svg = (STATIC_DIR / "favicon.svg").read_text().strip()
    return "data:image/svg+xml," + quote(svg, safe=" =:/'\"<>.")


templates.env.globals.update(favicon=_favicon_data_url(), static_url=static_url)
templates.env.globals.update(rank_label=rank_label, suit_name=suit_name, card_name=card_name)
templates.env.globals.update(format_seconds=format_seconds)
# The whole family (home page picker, statistics, rules); ``variants``: those with shared deals.
templates.env.globals.update(family=ALL_VARIANTS, variant_example=variant_example)
templates.env.globals.update(MAX_DEAL_NUMBER=MAX_DEAL_NUMBER, race_status_text=RACE_STATUS_TEXT)
templates.env.globals["together_css"] = "css/together.css"
templates.env.globals["is_daily_game"] = is_daily_game
templates.env.globals["daily_label"] = daily_label


def _markup(part: Callable[..., str]) -> Callable[..., Markup]:
    """A part of ``app/web/board_html.py`` for the templates: its (escaped) HTML as ``Markup``."""
    return lambda *args: Markup(part(*args))


# The parts every htmx answer re-sends, in Python (``app/web/board_html.py``): the page calls
# the same functions.
templates.env.globals.update(
    {name: _markup(getattr(board_html, name)) for name in board_html.PAGE_PARTS}
)

# The card sprite every page carries (partials/sprite.html: the 52 faces and the back, the same
# on every page), rendered once here rather than looped over on every page.
templates.env.globals["sprite"] = Markup(
    templates.env.get_template("partials/sprite.html").render()
)


# -- requests and responses ------------------------------------------------------------------


class PageRequest(RequestDb):
    """What every page route needs: the request, its session (``RequestDb``), the player and
    the CSRF token."""

    __slots__ = ("csrf_token", "player", "request")

    def __init__(self, request: Request, player: str, csrf_token: str) -> None:
        super().__init__(request.scope)
        self.request = request
        self.player = player
        self.csrf_token = csrf_token


async def _page_request(request: Request) -> PageRequest:
    """Async: no thread-pool hop for a dependency that does no I/O. The player and the token
    are read here, not by dependencies of their own: FastAPI spends 10 to 20 us solving each
    one on every request."""
    return PageRequest(request, await get_player_id(request), await get_csrf_token(request))


Page = Annotated[PageRequest, Depends(_page_request)]


M = TypeVar("M", bound=BaseModel)


def form_of(model: type[M]) -> Callable[[Request], Awaitable[M]]:
    """A dependency reading the form fields ``model`` names (all optional strings), as
    FastAPI's ``Form()`` parameters would (a blank field is a missing one, a repeated field
    its last value, the same 422 for a field its model refuses) at a fraction of the cost:
    FastAPI inspects every ``Form()`` parameter's annotation on every request."""

    async def parse(request: Request) -> M:
        form = await form_fields(request)
        values = {}
        for name in model.model_fields:
            value = form.get(name)
            if value is not None and value != "":
                values[name] = value
        try:
            return model.model_validate(values)
        except ValidationError as exc:
            errors = [{**e, "loc": ("body", *e["loc"])} for e in exc.errors()]
            raise RequestValidationError(errors) from None

    return parse


MAX_FORM_FIELDS = 1000  # Starlette's limit for a form


async def form_fields(request: Request) -> Mapping[str, Any]:
    """The request's form fields (a repeated field: its last value). An urlencoded body (what
    every form of the site sends) is read as the CSRF check reads its token, once for both
    (``app.web.deps.urlencoded_pairs``: the standard library's pairs): the same names and
    values as Starlette's parser (python-multipart), its 400 past 1000 fields, at a fraction
    of its cost. Any other body goes through Starlette."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != "application/x-www-form-urlencoded":
        return await request.form()
    pairs = body_pairs(request.scope, await request.body())
    if len(pairs) > MAX_FORM_FIELDS:
        detail = f"Too many fields. Maximum number of fields is {MAX_FORM_FIELDS}."
        raise HTTPException(status_code=400, detail=detail)
    return dict(pairs)


def is_htmx(request: Request) -> bool:
    return (
        request.headers.get("hx-request") == "true"
        and request.headers.get("hx-history-restore-request") != "true"
    )


def int_or_none(value: str | None) -> int | None:
    """A form field's whole number, or None when it is missing, blank, too long or not one."""
    if value is None:
        return None
    value = value.strip()
    if not value or len(value) > 12:
        return None
    try:
        return int(value)
    except ValueError:
        return None


_BASE_URLS: dict[tuple[Any, ...], str] = {}


def base_url(request: Request) -> str:
    """``request.base_url`` without its last ``/``, kept per scheme, server, root path and
    ``Host`` (what it is made of; making it costs more than the rest of a page's context)."""
    scope = request.scope
    host = next((value for name, value in scope["headers"] if name == b"host"), None)
    root = scope.get("app_root_path", scope.get("root_path", ""))
    server = scope.get("server")
    key = (scope.get("scheme", "http"), tuple(server) if server else None, root, host)
    url = _BASE_URLS.get(key)
    if url is None:
        if len(_BASE_URLS) >= 256:
            _BASE_URLS.clear()
        url = _BASE_URLS[key] = str(request.base_url).rstrip("/")
    return url


def render(
    request: Request,
    name: str,
    context: dict[str, Any],
    *,
    status_code: int = 200,
    block: str | None = None,
    blocks: list[str] | None = None,
) -> Response:
    """The template ``name`` (or only its ``block`` / ``blocks``), not cached, ``Vary``-ing
    on ``HX-Request``."""
    if blocks:
        response = templates.TemplateResponse(
            request, name, context, status_code=status_code, block_names=blocks
        )
    elif block:
        response = templates.TemplateResponse(
            request, name, context, status_code=status_code, block_name=block
        )
    else:
        response = templates.TemplateResponse(request, name, context, status_code=status_code)
    response.headers["Vary"] = "HX-Request"
    response.headers["Cache-Control"] = "no-store"
    return response


def _html(content: str) -> Response:
    """An HTML answer built in Python (``app/web/board_html.py``), with ``render``'s headers."""
    return HTMLResponse(content, headers={"Vary": "HX-Request", "Cache-Control": "no-store"})


def render_update(
    request: Request, csrf_token: str, ctx: dict[str, Any], changes: Mapping[str, Any]
) -> Response:
    """The answer to an htmx action on the play page: the parts it changed
    (``board_html.update_html``; the toolbar, the piles and the ending from play.html's
    blocks, when they changed: only then is the layout's context made, ``base_context``).
    ``ctx``: ``board_context(..., only=changes["columns"], layout=False)``."""

    def block(name: str) -> str:
        if "csrf_input" not in ctx:
            ctx.update(base_context(request, csrf_token, "play"))
        return render_block(templates.env, "play.html", name, ctx)

    return _html(board_html.update_html(ctx, changes, block))


def see_other(url: str) -> Response:
    """The ``303`` a non-htmx form post gets back to the full page."""
    response = RedirectResponse(url, status_code=303)
    response.headers["Vary"] = "HX-Request"
    return response


# -- contexts ---------------------------------------------------------------------------------


def base_context(
    request: Request, csrf_token: str, nav: str = "", *, quiet: bool = False
) -> dict[str, Any]:
    """What every page's layout needs: the CSRF field, the player's display preferences
    (``current_display``: the deck's colours, the theme, the card size), the current tab.
    ``quiet``: an error page, which shows the defaults if the preferences cannot be read.
    An htmx request gets parts of a page, never its ``<html>``: nothing is read for it."""
    if is_htmx(request):
        display = known_display(request) or Display()
    else:
        display = current_display(request, quiet=quiet)
    return {
        "csrf_token": csrf_token,
        # (an f-string: Markup's own .format runs string.Formatter in Python, ~3 us a page)
        "csrf_input": Markup(
            f'<input type="hidden" name="csrf_token" value="{escape(csrf_token)}">'
        ),
        "display": display,
        "html_class": html_class(display),
        "nav": nav,
    }


def html_class(display: Display) -> str:
    """The classes of a page's ``<html>`` element for ``display`` (static/css/app.css):
    ``four-colour``, ``large-cards``, ``theme-light`` / ``theme-dark`` (none for ``auto``,
    where ``prefers-color-scheme`` decides)."""
    classes = []
    if display.four_colour:
        classes.append("four-colour")
    if display.large_cards:
        classes.append("large-cards")
    if display.theme != "auto":
        classes.append("theme-" + display.theme)
    return " ".join(classes)


def known_display(request: Request) -> Display | None:
    """The request's display preferences if no read is needed: already read, or the player
    is new (no settings row) or unknown."""
    return _display_known(request.scope.setdefault("state", {}))


def remember_display(request: Request, display: Display) -> None:
    """``display``, read by the route with its other reads, for the request's pages."""
    request.scope.setdefault("state", {})[DISPLAY_KEY] = display


def _display_known(state: MutableMapping[str, Any]) -> Display | None:
    found = state.get(DISPLAY_KEY)
    if isinstance(found, Display):
        return found
    player = state.get("player_id")
    if not isinstance(player, str) or state.get("player_is_new"):
        state[DISPLAY_KEY] = Display()
        return state[DISPLAY_KEY]
    return None


def current_display(request: Request, *, quiet: bool = False) -> Display:
    """The requesting player's ``Display``, read once per request (``services.get_display``).

    In a worker thread (a sync route) the read runs on the request's session. On the event
    loop (an async route or an error handler) it runs on the loop's connection (SQLite);
    with PostgreSQL an async route reads it beforehand (``load_display``), so on the loop
    without it the page shows the defaults rather than wait on the network there.
    ``quiet``: a failed read (the database is down: an error page) gives the defaults."""
    state = request.scope.setdefault("state", {})
    known = _display_known(state)
    if known is not None:
        return known
    player: str = state["player_id"]
    try:
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # a worker thread
            display = get_display(request_session(request.scope), player)
        else:
            conn = loop_connection()
            display = get_display(conn, player) if conn is not None else Display()
    except SQLAlchemyError:
        if not quiet:
            raise
        display = Display()
    state[DISPLAY_KEY] = display
    return display


async def prefetch_display(request: Request) -> None:
    """For a page rendered on the event loop (an error handler): with PostgreSQL, read the
    display preferences in a worker thread first (``current_display`` reads them on the
    loop's own connection with SQLite). A failed read leaves the defaults."""
    state = request.scope.setdefault("state", {})
    if _display_known(state) is None and loop_connection() is None:
        await run_in_threadpool(lambda: current_display(request, quiet=True))


async def load_display(caller: RequestDb, request: Request) -> Display:
    """``current_display`` for an async route: on the loop's connection (SQLite) or in a
    worker thread (PostgreSQL), before the page is rendered."""
    state = request.scope.setdefault("state", {})
    known = _display_known(state)
    if known is not None:
        return known
    player: str = state["player_id"]
    display = await run_read(caller, lambda db: get_display(db, player))
    state[DISPLAY_KEY] = display
    return display


def board_context(
    request: Request,
    csrf_token: str,
    state: GameState,
    *,
    sel: tuple[int, int] | None = None,
    hints: list[Move] | None = None,
    error: str | None = None,
    notice: str | None = None,
    sel_pile: tuple[str, int] | None = None,
    only: Collection[int] | None = None,
    layout: bool = True,
) -> dict[str, Any]:
    """The play page's context: the layout's (``layout``) and the board ``b`` of ``state``
    (``only``: of those columns alone, ``board_view``)."""
    b = board_view(
        game_id=state.id,
        variant=state.variant,
        deal_number=state.deal_number,
        version=state.version,
        view=state.view,
        stuck=state.stuck,
        can_deal=state.can_deal,
        created_at=state.created_at,
        finished_at=state.finished_at,
        csrf_token=csrf_token,
        base_url=base_url(request),
        now=datetime.now(UTC),
        sel=sel,
        hints=hints,
        sel_pile=sel_pile,
        moves=state.moves,
        only=only,
    )
    b.error = error
    b.notice = notice
    b.assisted = state.assisted
    b.moves_made = state.moves_made
    # A shared deal whose number is hidden is the daily deal (the number shows once the day
    # is over): the page names it so, never "custom".
    b.daily = is_daily_game(state)
    ctx = base_context(request, csrf_token, "play") if layout else {}
    ctx["b"] = b
    return ctx


def refusal_message(request: Request, csrf_token: str, message: str) -> Response:
    """A refused action, answered to htmx: 200 and the reason, routed to the message line (a
    browser logs every 4xx as a failed request). The JSON API and the page without htmx
    keep their 422."""
    response = _html(board_html.error_text(message))
    response.headers["HX-Retarget"] = "#message"
    response.headers["HX-Reswap"] = "innerHTML"
    return response


def conflict_page(
    request: Request, csrf_token: str, current: GameState, message: str, *, htmx: bool
) -> Response:
    """409: the game changed in another tab; the board as it stands now (its block for htmx)."""
    ctx = board_context(
        request,
        csrf_token,
        current,
        error="This game changed in another tab or window; here is where it stands now. "
        f"({message})",
    )
    # htmx asked and got its answer, the board as it stands: 200 (a browser logs every 4xx as
    # a failed request). The JSON API and the page without htmx keep their 409.
    if htmx:
        return render(request, "play.html", ctx, block="game")
    return render(request, "play.html", ctx, status_code=409)


# -- error pages ------------------------------------------------------------------------------

ERROR_TITLES = {403: "Not allowed", 404: "Not found", 405: "Not here", 429: "Slow down"}
NO_GAME = "There is no such game here. It may have been deleted, or it belongs to another browser."


def error_page(
    request: Request, csrf_token: str, status: int, title: str, message: str
) -> Response:
    """The error page (its message only, for htmx)."""
    ctx = base_context(request, csrf_token, quiet=True)
    ctx.update(title=title, message=message)
    block = "message_text" if is_htmx(request) else None
    return render(request, "error.html", ctx, status_code=status, block=block)


def not_found(request: Request, csrf_token: str, message: str = NO_GAME) -> Response:
    return error_page(request, csrf_token, 404, "Not found", message)


def render_error(request: Request, status_code: int, detail: str) -> Response:
    """The HTML answer to an error raised outside a page's own handling (``app.web.errors``)."""
    token = request.scope.get("state", {}).get("csrf_token")
    title = ERROR_TITLES.get(status_code, "Something went wrong")
    return error_page(request, token if isinstance(token, str) else "", status_code, title, detail)
