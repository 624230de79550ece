"""The HTML pages: routes parse the request, call one service, render a template.

Every action is a real ``<form method="post">`` carrying ``csrf_token``. A request made by
htmx (``HX-Request: true``) gets only the template blocks it changes (jinja2-fragments); any
other request gets a ``303`` back to the full page after a successful action, or the full page
with the message when the action is refused. Every response says ``Vary: HX-Request``.

Only ``PublicView`` is ever rendered: no face-down or stock card identity reaches the browser.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2_fragments.fastapi import Jinja2Blocks
from markupsafe import Markup

from app import services
from app.config import get_settings
from app.db.session import SessionDep
from app.engine import MAX_DEAL_NUMBER, MIN_DEAL_NUMBER, VARIANTS, Move, PublicView
from app.services import GameState, NotFound, ServiceError, VersionConflict
from app.services.profiles import get_profile
from app.services.replay import replay_game
from app.web import charts, static_files
from app.web.deps import CsrfToken, PlayerId, clear_identity
from app.web.view import (
    board_view,
    card_name,
    describe_change,
    format_seconds,
    parse_selection,
    rank_label,
    suit_name,
)

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES_DIR = ROOT / "templates"
STATIC_DIR = ROOT / "static"
CARDS_COOKIE = "scorpion_cards"

router = APIRouter(include_in_schema=False)
templates = Jinja2Blocks(directory=str(TEMPLATES_DIR))


def static_url(path: str) -> str:
    """``/static/<name>.<content hash>.<ext>``: cacheable forever, a new URL when it changes."""
    return static_files.static_url(path)


def _favicon_data_url() -> str:
    """The site icon inline (a data: URL): one request fewer, and none to abort mid-load."""
    svg = (STATIC_DIR / "favicon.svg").read_text().strip()
    return "data:image/svg+xml," + quote(svg, safe=" =:/'\"<>.")


templates.env.globals.update(
    favicon=_favicon_data_url(),
    static_url=static_url,
    rank_label=rank_label,
    suit_name=suit_name,
    card_name=card_name,
    format_seconds=format_seconds,
    variants=VARIANTS,
    MAX_DEAL_NUMBER=MAX_DEAL_NUMBER,
)


# -- helpers ----------------------------------------------------------------------------------


def is_htmx(request: Request) -> bool:
    return (
        request.headers.get("hx-request") == "true"
        and request.headers.get("hx-history-restore-request") != "true"
    )


def _base_context(request: Request, csrf_token: str, nav: str = "") -> dict[str, Any]:
    return {
        "csrf_token": csrf_token,
        "csrf_input": Markup('<input type="hidden" name="csrf_token" value="{}">').format(
            csrf_token
        ),
        "four_colour": request.cookies.get(CARDS_COOKIE) == "4",
        "nav": nav,
    }


def render(
    request: Request,
    name: str,
    context: dict[str, Any],
    *,
    status_code: int = 200,
    block: str | None = None,
    blocks: list[str] | None = None,
) -> Response:
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


def see_other(url: str) -> Response:
    response = RedirectResponse(url, status_code=303)
    response.headers["Vary"] = "HX-Request"
    return response


def _int_or_none(value: str | None) -> int | None:
    if value is None:
        return None
    value = value.strip()
    if not value or len(value) > 12:
        return None
    try:
        return int(value)
    except ValueError:
        return None


def _base_url(request: Request) -> str:
    return str(request.base_url).rstrip("/")


def _board_context(
    request: Request,
    csrf_token: str,
    state: GameState,
    *,
    sel: tuple[int, int] | None = None,
    hints: list[Move] | None = None,
    error: str | None = None,
    notice: str | None = None,
) -> dict[str, Any]:
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
        base_url=_base_url(request),
        now=datetime.now(UTC),
        sel=sel,
        hints=hints,
    )
    b.error = error
    b.notice = notice
    ctx = _base_context(request, csrf_token, "play")
    ctx["b"] = b
    return ctx


def _error_page(
    request: Request, csrf_token: str, status: int, title: str, message: str
) -> Response:
    ctx = _base_context(request, csrf_token)
    ctx.update(title=title, message=message)
    if is_htmx(request):
        return render(request, "error.html", ctx, status_code=status, block="message_text")
    return render(request, "error.html", ctx, status_code=status)


def _not_found(request: Request, csrf_token: str, message: str | None = None) -> Response:
    return _error_page(
        request,
        csrf_token,
        404,
        "Not found",
        message
        or "There is no such game here. It may have been deleted, or it belongs to "
        "another browser.",
    )


ERROR_TITLES = {403: "Not allowed", 404: "Not found", 405: "Not here", 429: "Slow down"}


def render_error(request: Request, status_code: int, detail: str) -> Response:
    """The HTML answer to an error outside the API (used by ``app.web.errors``)."""
    token = request.scope.get("state", {}).get("csrf_token")
    title = ERROR_TITLES.get(status_code, "Something went wrong")
    return _error_page(request, token if isinstance(token, str) else "", status_code, title, detail)


# -- home -------------------------------------------------------------------------------------


def _home(
    request: Request,
    db: SessionDep,
    player: str,
    csrf_token: str,
    *,
    error: str | None = None,
    form: dict[str, str] | None = None,
    status_code: int = 200,
) -> Response:
    saved = {g.variant: g for g in services.saved_games(db, player)}
    ctx = _base_context(request, csrf_token, "home")
    ctx.update(
        saved=saved,
        error=error,
        form=form or {},
        min_deal=MIN_DEAL_NUMBER,
        max_deal=MAX_DEAL_NUMBER,
    )
    return render(request, "home.html", ctx, status_code=status_code)


@router.get("/", response_class=HTMLResponse)
def home(request: Request, db: SessionDep, player: PlayerId, csrf_token: CsrfToken) -> Response:
    return _home(request, db, player, csrf_token)


@router.post("/games", response_class=HTMLResponse)
def new_game(
    request: Request,
    db: SessionDep,
    player: PlayerId,
    csrf_token: CsrfToken,
    variant: Annotated[str, Form()] = "scorpion",
    deal_number: Annotated[str | None, Form()] = None,
    deal: Annotated[str | None, Form()] = None,
) -> Response:
    number: int | None = None
    deal_text = deal.strip() if deal and deal.strip() else None
    if deal_number is not None and deal_number.strip():
        number = _int_or_none(deal_number)
        if number is None:
            return _home(
                request,
                db,
                player,
                csrf_token,
                error=f"A deal number is a whole number from {MIN_DEAL_NUMBER} to "
                f"{MAX_DEAL_NUMBER}.",
                form={"deal_number": deal_number[:20], "variant": variant},
                status_code=422,
            )
    try:
        state = services.create_game(db, player, variant, deal_number=number, deal=deal_text)
    except ServiceError as exc:
        return _home(
            request,
            db,
            player,
            csrf_token,
            error=exc.message,
            form={
                "deal_number": (deal_number or "")[:20],
                "deal": (deal or "")[:400],
                "variant": variant,
            },
            status_code=422,
        )
    return see_other(f"/games/{state.id}")


@router.get("/deal/{number}", response_class=HTMLResponse)
def deal_link(
    request: Request,
    number: str,
    db: SessionDep,
    player: PlayerId,
    csrf_token: CsrfToken,
    variant: str = "scorpion",
) -> Response:
    n = _int_or_none(number)
    if n is None or not MIN_DEAL_NUMBER <= n <= MAX_DEAL_NUMBER:
        return _error_page(
            request,
            csrf_token,
            404,
            "No such deal",
            f"Deal numbers run from {MIN_DEAL_NUMBER} to {MAX_DEAL_NUMBER}; "
            f"{number[:20]!r} is not one.",
        )
    if variant not in VARIANTS:
        variant = "scorpion"
    saved = {g.variant: g for g in services.saved_games(db, player)}
    ctx = _base_context(request, csrf_token, "home")
    ctx.update(number=n, variant=variant, saved=saved)
    return render(request, "deal.html", ctx)


# -- the play page ----------------------------------------------------------------------------


@router.get("/games/{game_id}", response_class=HTMLResponse)
def play(
    request: Request,
    game_id: str,
    db: SessionDep,
    player: PlayerId,
    csrf_token: CsrfToken,
    select: Annotated[str | None, Query(max_length=8)] = None,
    hint: Annotated[str | None, Query(max_length=4)] = None,
) -> Response:
    try:
        state = services.get_game(db, player, game_id)
        hint_moves: list[Move] | None = None
        if hint and state.status == "playing":
            hint_moves = services.hints(db, player, game_id).moves
    except NotFound:
        return _not_found(request, csrf_token)
    sel = parse_selection(select, state.view) if state.status == "playing" else None
    ctx = _board_context(request, csrf_token, state, sel=sel, hints=hint_moves)
    if is_htmx(request):
        return render(request, "play.html", ctx, block="game")
    from app.web.play_together import race_panel_for_game  # (it imports this module)

    # The live race of a shared deal (a game in no race has no race_id: no query needed).
    ctx["race"] = race_panel_for_game(db, player, state.id) if state.race_id else None
    return render(request, "play.html", ctx)


def _after_action(
    request: Request,
    db: SessionDep,
    player: str,
    csrf_token: str,
    game_id: str,
    action: str,
    run: Any,
    move: Move | None = None,
) -> Response:
    """Run a game action and answer it: the changed blocks for htmx, a 303 otherwise."""
    before: PublicView | None = None
    try:
        before = services.get_game(db, player, game_id).view
        state = run()
    except NotFound:
        return _not_found(request, csrf_token)
    except VersionConflict as exc:
        current = services.get_game(db, player, game_id)
        ctx = _board_context(
            request,
            csrf_token,
            current,
            error="This game changed in another tab or window; here is where it stands now. "
            f"({exc.message})",
        )
        if is_htmx(request):
            return render(request, "play.html", ctx, status_code=409, block="game")
        return render(request, "play.html", ctx, status_code=409)
    except ServiceError as exc:
        if is_htmx(request):
            ctx = _base_context(request, csrf_token, "play")
            ctx["b"] = {"error": exc.message}
            return render(request, "play.html", ctx, status_code=422, block="message_text")
        current = services.get_game(db, player, game_id)
        ctx = _board_context(request, csrf_token, current, error=exc.message)
        return render(request, "play.html", ctx, status_code=422)
    if not is_htmx(request):
        return see_other(f"/games/{state.id}")
    notice = describe_change(before, state.view, action, move)
    ctx = _board_context(request, csrf_token, state, notice=notice)
    # Only what changed: the status and tools, the message, and the columns that differ.
    ctx["changed"] = {
        c
        for c, (old, new) in enumerate(zip(before.columns, state.view.columns, strict=True))
        if old != new
    }
    return render(request, "play.html", ctx, block="update")


@router.post("/games/{game_id}/move", response_class=HTMLResponse)
def move(
    request: Request,
    game_id: str,
    db: SessionDep,
    player: PlayerId,
    csrf_token: CsrfToken,
    from_column: Annotated[str | None, Form()] = None,
    from_index: Annotated[str | None, Form()] = None,
    to_column: Annotated[str | None, Form()] = None,
    version: Annotated[str | None, Form()] = None,
) -> Response:
    a, i, b = _int_or_none(from_column), _int_or_none(from_index), _int_or_none(to_column)
    expected = _int_or_none(version)
    if a is None or i is None or b is None:
        message = (
            "Choose a face-up card first, then the column it goes to."
            if b is not None
            else "Choose the column the card goes to."
        )

        def refuse() -> GameState:
            raise services.InvalidRequest(message)

        return _after_action(request, db, player, csrf_token, game_id, "move", refuse)
    return _after_action(
        request,
        db,
        player,
        csrf_token,
        game_id,
        "move",
        lambda: services.move(db, player, game_id, a, i, b, expected),
        Move(a, i, b),
    )


def _simple_action(kind: str) -> Any:
    fn = {"deal": services.deal, "undo": services.undo, "redo": services.redo}[kind]

    def endpoint(
        request: Request,
        game_id: str,
        db: SessionDep,
        player: PlayerId,
        csrf_token: CsrfToken,
        version: Annotated[str | None, Form()] = None,
    ) -> Response:
        expected = _int_or_none(version)
        return _after_action(
            request,
            db,
            player,
            csrf_token,
            game_id,
            kind,
            lambda: fn(db, player, game_id, expected),
        )

    endpoint.__name__ = f"{kind}_action"
    return endpoint


for _kind in ("deal", "undo", "redo"):
    router.add_api_route(
        f"/games/{{game_id}}/{_kind}",
        _simple_action(_kind),
        methods=["POST"],
        response_class=HTMLResponse,
    )


@router.post("/games/{game_id}/restart", response_class=HTMLResponse)
def restart(
    request: Request, game_id: str, db: SessionDep, player: PlayerId, csrf_token: CsrfToken
) -> Response:
    try:
        state = services.restart(db, player, game_id)
    except NotFound:
        return _not_found(request, csrf_token)
    return see_other(f"/games/{state.id}")


@router.get("/games/{game_id}/replay", response_class=HTMLResponse)
def replay(
    request: Request,
    game_id: str,
    db: SessionDep,
    player: PlayerId,
    csrf_token: CsrfToken,
    step: Annotated[int, Query(ge=0, le=100_000)] = 0,
    play: Annotated[int, Query(ge=0, le=1)] = 0,
) -> Response:
    try:
        rep = replay_game(db, player, game_id)
    except NotFound:
        return _not_found(request, csrf_token)
    except ServiceError as exc:
        return _error_page(request, csrf_token, 422, "No replay yet", exc.message)
    last = len(rep.frames) - 1
    step = min(step, last)
    view = rep.frames[step]
    b = board_view(
        game_id=rep.game.id,
        variant=rep.game.variant,
        deal_number=rep.game.deal_number,
        version=rep.game.version,
        view=view,
        stuck=False,
        can_deal=view.stock > 0,
        created_at=rep.game.created_at,
        finished_at=rep.game.finished_at,
        csrf_token=csrf_token,
        base_url=_base_url(request),
    )
    what = ""
    if step > 0:
        action = rep.actions[step - 1]
        moved = (
            Move(int(action[1]), int(action[2]), int(action[3])) if action[0] == "move" else None
        )
        what = describe_change(rep.frames[step - 1], view, action[0], moved)
    ctx = _base_context(request, csrf_token, "play")
    ctx.update(b=b, step=step, last=last, playing=bool(play) and step < last, what=what)
    if is_htmx(request):
        return render(request, "replay.html", ctx, block="replay")
    return render(request, "replay.html", ctx)


# -- statistics -------------------------------------------------------------------------------


@router.get("/stats", response_class=HTMLResponse)
def stats(request: Request, db: SessionDep, player: PlayerId, csrf_token: CsrfToken) -> Response:
    data = services.get_stats(db, player)
    ctx = _base_context(request, csrf_token, "stats")
    totals = charts.totals(data)
    ctx.update(
        data=data,
        totals=totals,
        chart=charts.starts_wins_chart(data.per_day, days=30, today=datetime.now(UTC).date()),
        prefs=services.get_settings(db, player),
    )
    return render(request, "stats.html", ctx)


# -- privacy and settings ---------------------------------------------------------------------

DONE_MESSAGES = {
    "settings": "Your settings are saved.",
    "profile": "Your name and leaderboard setting are saved.",
    "games": "Your saved games are deleted.",
    "results": "Your results and statistics are deleted.",
    "all": "Everything about you is deleted and your cookie is cleared. "
    "If you play again, you start as a new player.",
}


@router.get("/privacy", response_class=HTMLResponse)
def privacy(
    request: Request,
    db: SessionDep,
    player: PlayerId,
    csrf_token: CsrfToken,
    done: Annotated[str | None, Query(max_length=12)] = None,
) -> Response:
    ctx = _base_context(request, csrf_token, "privacy")
    ctx.update(
        prefs=services.get_settings(db, player),
        profile=get_profile(db, player),  # display name and leaderboards (play_together)
        done=DONE_MESSAGES.get(done or ""),
        cookie_name=get_settings().cookie_name,
        cards_cookie=CARDS_COOKIE,
    )
    return render(request, "privacy.html", ctx)


@router.post("/settings", response_class=HTMLResponse)
def save_settings(
    request: Request,
    db: SessionDep,
    player: PlayerId,
    save_games: Annotated[str | None, Form()] = None,
    record_stats: Annotated[str | None, Form()] = None,
    four_colour: Annotated[str | None, Form()] = None,
) -> Response:
    services.update_settings(
        db, player, save_games=save_games == "on", record_stats=record_stats == "on"
    )
    response = see_other("/privacy?done=settings")
    if four_colour == "on":
        response.set_cookie(
            CARDS_COOKIE, "4", max_age=400 * 24 * 3600, httponly=True, samesite="lax"
        )
    else:
        response.delete_cookie(CARDS_COOKIE)
    return response


@router.post("/privacy/delete-games", response_class=HTMLResponse)
def delete_games(request: Request, db: SessionDep, player: PlayerId) -> Response:
    services.delete_games(db, player)
    return see_other("/privacy?done=games")


@router.post("/privacy/delete-results", response_class=HTMLResponse)
def delete_results(request: Request, db: SessionDep, player: PlayerId) -> Response:
    services.delete_results(db, player)
    return see_other("/privacy?done=results")


@router.post("/privacy/delete-everything", response_class=HTMLResponse)
def delete_everything(request: Request, db: SessionDep, player: PlayerId) -> Response:
    services.delete_player(db, player)
    response = see_other("/privacy?done=all")
    clear_identity(request, response)
    response.delete_cookie(CARDS_COOKIE)
    return response


# -- rules ------------------------------------------------------------------------------------


@router.get("/rules", response_class=HTMLResponse)
def rules(request: Request, csrf_token: CsrfToken) -> Response:
    ctx = _base_context(request, csrf_token, "rules")
    return render(request, "rules.html", ctx)
