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
from jinja2 import Environment, FileSystemLoader, pass_context, select_autoescape
from jinja2_fragments import render_block
from jinja2_fragments.fastapi import Jinja2Blocks
from markupsafe import Markup, escape
from pydantic import BaseModel, ValidationError
from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool

from app import i18n
from app.db.session import loop_connection, request_session
from app.engine import ALL_VARIANTS, MAX_DEAL_NUMBER, Move
from app.i18n import N_, gettext
from app.services import Display, GameState, get_display
from app.services.daily import daily_day_of, is_daily_game, today
from app.services.players import stored_locale
from app.web import board_html, static_files
from app.web.deps import RequestDb, body_pairs, get_csrf_token, get_player_id
from app.web.examples import variant_example
from app.web.inline import run_read
from app.web.js_text import js_text
from app.web.messages import translate
from app.web.view import board_view
from app.web.words import card_name, format_seconds, rank_label, suit_name

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES_DIR = ROOT / "templates"
STATIC_DIR = ROOT / "static"
DISPLAY_KEY = "display"  # the request's ``Display`` in ``scope["state"]``, once read

# How a race entry's status reads on the pages (daily deal, challenges, the live panel).
# (marked for the catalog; the templates show them through ``race_status_text``, translated)
RACE_STATUS_TEXT = {
    "playing": N_("playing"),
    "won": N_("finished: won"),
    "stuck": N_("stuck"),
    "gave-up": N_("gave up"),
    "rejected": N_("result rejected"),
    "unfinished": N_("did not finish"),
}


class _StatusText:
    """``RACE_STATUS_TEXT`` in the request's language (``race_status_text.get(status, status)``
    in the templates)."""

    def get(self, status: str, default: str = "") -> str:
        text = RACE_STATUS_TEXT.get(status)
        return gettext(text) if text is not None else default


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
        extensions=["jinja2.ext.i18n", "jinja2.ext.do"],
    )
)
# Translations (``app.i18n``): ``_()``, ``gettext``, ``ngettext``... read the request's locale
# (a context variable) on every call, so the one shared environment speaks each request's
# language; installed once, never per request. Newstyle: ``_("%(n)s moves", n=3)``, escaped
# arguments (a literal ``%`` is written ``%%``). ``{% trans %}`` blocks are trimmed, as
# babel.cfg extracts them.
templates.env.policies["ext.i18n.trimmed"] = True
templates.env.install_gettext_callables(  # type: ignore[attr-defined]
    i18n.gettext,
    i18n.ngettext,
    newstyle=True,
    pgettext=i18n.pgettext,
    npgettext=i18n.npgettext,
)
# ...then Jinja's newstyle wrappers replaced by the same behaviour at a fraction of the cost
# (theirs: ~10 us a call through Context.call, some sixty calls a page): the translation as
# Markup (every template autoescapes), ``%`` applied with the (escaped) arguments, the
# translated text of a message without arguments kept per locale.
_TRANSLATED: dict[tuple[str, str], Markup] = {}


def _jinja_gettext(__string: str, **variables: Any) -> Markup:
    if variables:
        return Markup(i18n.gettext(__string)) % variables
    key = (i18n.current_locale.get(), __string)
    text = _TRANSLATED.get(key)
    if text is None:
        if len(_TRANSLATED) >= 8192:
            _TRANSLATED.clear()
        text = _TRANSLATED[key] = Markup(i18n.gettext(__string)) % {}
    return text


def _jinja_ngettext(__singular: str, __plural: str, __num: int, **variables: Any) -> Markup:
    variables.setdefault("num", __num)
    return Markup(i18n.ngettext(__singular, __plural, __num)) % variables


def _jinja_pgettext(__context: str, __string: str, **variables: Any) -> Markup:
    return Markup(i18n.pgettext(__context, __string)) % variables


def _jinja_npgettext(
    __context: str, __singular: str, __plural: str, __num: int, **variables: Any
) -> Markup:
    variables.setdefault("num", __num)
    return Markup(i18n.npgettext(__context, __singular, __plural, __num)) % variables


templates.env.globals.update(
    _=_jinja_gettext,
    gettext=_jinja_gettext,
    ngettext=_jinja_ngettext,
    pgettext=_jinja_pgettext,
    npgettext=_jinja_npgettext,
)


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
templates.env.globals.update(MAX_DEAL_NUMBER=MAX_DEAL_NUMBER, race_status_text=_StatusText())
# Numbers, percentages, dates and times as the request's language writes them. (Each takes
# the context, so that Jinja never folds a constant's filter at compile time, in whatever
# language was current then.)


def _per_request(f: Callable[..., str]) -> Callable[..., str]:
    @pass_context
    def apply(context: Any, value: Any, *args: Any) -> str:
        return f(value, *args)

    return apply


templates.env.filters.update(
    # ``|t``: a text that is not written in the template (a variant's title, a caption) in
    # the request's language, escaped like any value (``_()`` would mark it safe).
    t=_per_request(i18n.gettext),
    number=_per_request(i18n.format_number),
    percent=_per_request(i18n.format_percentage),
    day=_per_request(i18n.format_day),
    when=_per_request(i18n.format_when),
    duration=_per_request(i18n.format_duration),
)
templates.env.globals.update(
    js_text=js_text,
    translate=translate,
    current_locale=i18n.current_locale.get,
    locale_names=i18n.LOCALE_NAMES,
    locales=i18n.LOCALES,
)
templates.env.globals["together_css"] = "css/together.css"
templates.env.globals["is_daily_game"] = is_daily_game


def daily_label(state: GameState) -> str:
    """How the pages name a daily game: "Today's daily deal" or "The daily deal of <day>",
    in the request's language ("" for any other game)."""
    day = daily_day_of(state)
    if day is None:
        return ""
    if day == today():
        return gettext("Today's daily deal")
    return gettext("The daily deal of {day}").format(day=i18n.format_day(day, "full"))


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
    on ``HX-Request`` and ``Accept-Language``, in the request's language."""
    # (not on the play page: its read stays the one read on the loop's connection, issue 12;
    # any other full page brings a device without the language cookie the stored choice)
    remember = None if (blocks or block or name == "play.html") else _stored_choice(request)
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
    response.headers["Vary"] = VARY
    response.headers["Cache-Control"] = "no-store"
    response.headers["Content-Language"] = i18n.current_locale.get()
    if remember is not None:
        set_locale_cookie(response, remember)
    return response


def set_locale_cookie(response: Response, choice: str) -> None:
    """This device's copy of the player's language (``PlayerSettings.locale``; ``auto``:
    follow the browser), read by the front middleware on every request."""
    response.set_cookie(
        i18n.LOCALE_COOKIE, choice, max_age=400 * 24 * 3600, httponly=True, samesite="lax"
    )


def _stored_choice(request: Request) -> str | None:
    """A device without the language cookie (a browser that joined its player, one that lost
    its cookies) reads the player's stored choice once, on a full page: the page is in that
    language and the answer sets the cookie (returned: the choice, or ``auto``). None when
    the cookie is there already, the player is new or the page answers an action."""
    state = request.scope.get("state") or {}
    player = state.get("player_id")
    if state.get("locale_cookie") is not None or state.get("player_is_new", True) or not player:
        return None
    if request.method not in ("GET", "HEAD"):
        return None  # (a page answering an action: its one transaction only, no extra read)
    try:
        choice = i18n.normalize(stored_locale(request_session(request.scope), player))
    except SQLAlchemyError:
        return None
    i18n.current_locale.set(i18n.choose(choice, state.get("accept_language")))
    state["locale_cookie"] = choice or i18n.AUTO
    return choice or i18n.AUTO


# Every page depends on htmx's header (a block or the page) and on the language it is in.
VARY = "HX-Request, Accept-Language"


def _html(content: str) -> Response:
    """An HTML answer built in Python (``app/web/board_html.py``), with ``render``'s headers."""
    return HTMLResponse(
        content,
        headers={
            "Vary": VARY,
            "Cache-Control": "no-store",
            "Content-Language": i18n.current_locale.get(),
        },
    )


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
    response.headers["Vary"] = VARY
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
    b.error = translate(error) if error else None  # (an engine's or a service's English)
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
    response = _html(board_html.error_text(translate(message)))
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
        error=gettext(
            "This game changed in another tab or window; here is where it stands now. ({message})"
        ).format(message=translate(message)),
    )
    # htmx asked and got its answer, the board as it stands: 200 (a browser logs every 4xx as
    # a failed request). The JSON API and the page without htmx keep their 409.
    if htmx:
        return render(request, "play.html", ctx, block="game")
    return render(request, "play.html", ctx, status_code=409)


# -- error pages ------------------------------------------------------------------------------

ERROR_TITLES = {
    403: N_("Not allowed"),
    404: N_("Not found"),
    405: N_("Not here"),
    429: N_("Slow down"),
}
NO_GAME = N_(
    "There is no such game here. It may have been deleted, or it belongs to another browser."
)


def error_page(
    request: Request, csrf_token: str, status: int, title: str, message: str
) -> Response:
    """The error page (its message only, for htmx). ``title`` and ``message``: English, shown
    in the request's language (``app.web.messages.translate``)."""
    ctx = base_context(request, csrf_token, quiet=True)
    ctx.update(title=translate(title), message=translate(message))
    block = "message_text" if is_htmx(request) else None
    return render(request, "error.html", ctx, status_code=status, block=block)


def not_found(request: Request, csrf_token: str, message: str = NO_GAME) -> Response:
    return error_page(request, csrf_token, 404, N_("Not found"), message)


def render_error(request: Request, status_code: int, detail: str) -> Response:
    """The HTML answer to an error raised outside a page's own handling (``app.web.errors``)."""
    token = request.scope.get("state", {}).get("csrf_token")
    title = ERROR_TITLES.get(status_code, N_("Something went wrong"))
    return error_page(request, token if isinstance(token, str) else "", status_code, title, detail)
