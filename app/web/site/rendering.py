"""Rendering the HTML pages: ``render``, redirects, the form parsing, the context builders
every page shares, and the error pages. Every page module uses this one. The templates and
their globals: ``app.web.site.templating``; the display preferences: ``app.web.site.display``.

A request made by htmx (``HX-Request: true``) gets only the template blocks it changes
(jinja2-fragments); any other request gets a ``303`` back to the full page after a successful
action. Every response says ``Vary: HX-Request``.

Only ``PublicView`` is ever rendered: no face-down or stock card identity reaches the browser.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Mapping
from datetime import UTC, datetime
from typing import Annotated, Any, TypeVar
from urllib.parse import urlsplit

from fastapi import Depends, HTTPException, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2_fragments import render_block
from pydantic import BaseModel, ValidationError
from sqlalchemy.exc import SQLAlchemyError

from app import i18n
from app.config import get_settings
from app.db.session import request_session
from app.engine import Action, Move, PublicView, pile_move
from app.i18n import N_, gettext
from app.services import Display, GameState
from app.services.daily import is_daily_game
from app.services.players import stored_locale
from app.web.game.messages import translate
from app.web.game.view import board_view
from app.web.game.words import describe_change
from app.web.site.deps import RequestDb, body_pairs, get_csrf_token, get_player_id
from app.web.site.display import current_display, html_class, known_display
from app.web.site.security import cookie_secure
from app.web.site.templating import templates

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
    (``app.web.site.deps.urlencoded_pairs``: the standard library's pairs): the same names and
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
        set_locale_cookie(request, response, remember)
    return response


def set_locale_cookie(request: Request, response: Response, choice: str) -> None:
    """This device's copy of the player's language (``PlayerSettings.locale``; ``auto``:
    follow the browser), read by ``LanguageMiddleware`` on every request. ``Secure`` where the
    player cookie is (``COOKIE_SECURE``)."""
    settings = get_settings()
    response.set_cookie(
        i18n.LOCALE_COOKIE,
        choice,
        max_age=400 * 24 * 3600,
        httponly=True,
        samesite="lax",
        secure=cookie_secure(request, settings.cookie_secure, settings.trusted_proxies),
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
    """An HTML answer rendered from a template's block, with ``render``'s headers."""
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
    """The answer to an htmx action on the play page: the parts it changed (play.html's
    ``update`` block; the toolbar, the piles and the ending only when they changed: only then
    is the layout's context made, ``base_context``). ``ctx``: ``board_context(...,
    only=changes["columns"], layout=False)``."""
    b = ctx["b"]
    if changes["tools"] == "all" or changes["piles"] or b.won or b.stuck:
        ctx.update(base_context(request, csrf_token, "play"))
    ctx["changes"] = changes
    return _html(render_block(templates.env, "play.html", "update", ctx))


SAID_COOKIE = "scorpion_said"


def see_other(url: str) -> Response:
    """The ``303`` a non-htmx form post gets back to the full page."""
    response = RedirectResponse(url, status_code=303)
    response.headers["Vary"] = VARY
    return response


def see_other_saying(request: Request, url: str, said: str) -> Response:
    """``see_other``, with what the action did (``said``: a key of
    ``app.web.game.words.SAID``) for that page to show once on its message line (issue 41:
    every answer is seen): a cookie of that page's path alone (``Secure`` where the player
    cookie is), which the page's next full render reads and clears (``forget_said``), so the
    address stays the page's own and a reload does not say it again."""
    response = see_other(url)
    settings = get_settings()
    response.set_cookie(
        SAID_COOKIE,
        said,
        max_age=60,
        path=urlsplit(url).path,
        httponly=True,
        samesite="lax",
        secure=cookie_secure(request, settings.cookie_secure, settings.trusted_proxies),
    )
    return response


def forget_said(response: Response, request: Request) -> None:
    """Clear the ``said`` cookie a page has shown (``see_other``)."""
    response.delete_cookie(SAID_COOKIE, path=request.url.path, httponly=True, samesite="lax")


# -- contexts ---------------------------------------------------------------------------------

_csrf_input = templates.env.get_template("partials/csrf.html").module.csrf_input  # type: ignore[attr-defined]


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
        "csrf_input": _csrf_input(csrf_token),
        "display": display,
        "html_class": html_class(display),
        "nav": nav,
    }


def board_context(
    request: Request,
    csrf_token: str,
    state: GameState,
    *,
    sel: tuple[int, int] | None = None,
    hints: list[Move] | None = None,
    error: str | None = None,
    notice: str | None = None,
    notice_short: str | None = None,
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
        started_at=state.started_at,
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
    b.notice_short = notice_short
    b.assisted = state.assisted
    b.moves_made = state.moves_made
    # A shared deal whose number is hidden is the daily deal (the number shows once the day
    # is over): the page names it so, never "custom".
    b.daily = is_daily_game(state)
    ctx = base_context(request, csrf_token, "play") if layout else {}
    ctx["b"] = b
    return ctx


# The query of a replayed step (``replay.html``'s links): which step, and whether it plays on.
ReplayStep = Annotated[int, Query(ge=0, le=100_000)]
ReplayPlay = Annotated[int, Query(ge=0, le=1)]


def replay_context(
    request: Request,
    csrf_token: str,
    state: GameState,
    frames: list[PublicView],
    actions: list[Action],
    *,
    step: int,
    play: int,
    base: str,
    way_from: int | None,
) -> dict[str, Any]:
    """The context of ``replay.html`` at ``step`` (at most the last) of ``frames``, a board
    of ``state`` shown position by position (``frames[k]`` after ``actions[k - 1]``): a
    game's replay or the review's way to win. ``base``: the address the steps link to."""
    last = len(frames) - 1
    step = min(step, last)
    view = frames[step]
    b = board_view(
        game_id=state.id,
        variant=state.variant,
        deal_number=state.deal_number,
        version=state.version,
        view=view,
        stuck=False,
        can_deal=view.stock > 0,
        started_at=state.started_at,
        finished_at=state.finished_at,
        csrf_token=csrf_token,
        base_url=base_url(request),
    )
    what = ""
    if step > 0:
        action = actions[step - 1]
        moved = None
        if action[0] == "move":
            piles = (str(action[4]), str(action[5])) if len(action) == 6 else ("column", "column")
            moved = pile_move(piles[0], int(action[1]), int(action[2]), piles[1], int(action[3]))
        what = describe_change(frames[step - 1], view, action[0], moved)
    ctx = base_context(request, csrf_token, "play")
    ctx.update(b=b, step=step, last=last, playing=bool(play) and step < last, what=what)
    ctx.update(base=base, way_from=way_from)
    return ctx


def refusal_message(request: Request, csrf_token: str, message: str) -> Response:
    """A refused action, answered to htmx: 200 and the reason, routed to the message line (a
    browser logs every 4xx as a failed request). The JSON API and the page without htmx
    keep their 422."""
    message = translate(message)
    response = _html(render_block(templates.env, "error.html", "message_text", message=message))
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
    in the request's language (``app.web.game.messages.translate``)."""
    ctx = base_context(request, csrf_token, quiet=True)
    ctx.update(title=translate(title), message=translate(message))
    block = "message_text" if is_htmx(request) else None
    return render(request, "error.html", ctx, status_code=status, block=block)


def not_found(request: Request, csrf_token: str, message: str = NO_GAME) -> Response:
    return error_page(request, csrf_token, 404, N_("Not found"), message)


def render_error(request: Request, status_code: int, detail: str) -> Response:
    """The HTML answer to an error raised outside a page's own handling
    (``app.web.site.errors``)."""
    token = request.scope.get("state", {}).get("csrf_token")
    title = ERROR_TITLES.get(status_code, N_("Something went wrong"))
    return error_page(request, token if isinstance(token, str) else "", status_code, title, detail)
