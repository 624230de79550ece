"""The game's HTML pages: home, the play page and its actions, replays, statistics, rules.

Routes parse the request, call one service, render a template (``app.web.site.rendering``).

Every action is a real ``<form method="post">`` carrying ``csrf_token``. A request made by
htmx (``HX-Request: true``) gets only the template blocks it changes (jinja2-fragments); any
other request gets a ``303`` back to the full page after a successful action, or the full page
with the message when the action is refused. Every response says ``Vary: HX-Request``.

Only ``PublicView`` is ever rendered: no face-down or stock card identity reaches the browser.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Depends, Form, Query, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, Field
from sqlalchemy.orm import Session

from app import services
from app.db.session import SessionDep
from app.engine import (
    ALL_VARIANTS,
    DEFAULT_VARIANT,
    MAX_DEAL_NUMBER,
    MIN_DEAL_NUMBER,
    Move,
    pile_move,
)
from app.i18n import N_, gettext
from app.services import GameState, NotFound, ServiceError, VersionConflict
from app.services.race_panel import race_panel_for_game
from app.services.replay import replay_game
from app.web.coach.review_pages import review_context
from app.web.game.messages import translate
from app.web.game.view import kept_prefix, parse_pile_selection, parse_selection
from app.web.game.words import SAID, describe_change, short_change
from app.web.site.deps import CsrfToken, PlayerId
from app.web.site.display import known_display, remember_display
from app.web.site.rendering import (
    SAID_COOKIE,
    Page,
    PageRequest,
    ReplayPlay,
    ReplayStep,
    base_context,
    board_context,
    conflict_page,
    error_page,
    forget_said,
    form_of,
    int_or_none,
    is_htmx,
    not_found,
    refusal_message,
    render,
    render_update,
    replay_context,
    see_other,
    see_other_saying,
)

router = APIRouter(include_in_schema=False)


# -- home -------------------------------------------------------------------------------------


def home_page(
    request: Request,
    db: Session,
    player: str,
    csrf_token: str,
    *,
    error: str | None = None,
    form: dict[str, str] | None = None,
    status_code: int = 200,
) -> Response:
    saved = {g.variant: g for g in services.saved_games(db, player)}
    ctx = base_context(request, csrf_token, "home")
    ctx.update(
        saved=saved,
        error=translate(error) if error else None,
        form=form or {},
        min_deal=MIN_DEAL_NUMBER,
        max_deal=MAX_DEAL_NUMBER,
    )
    return render(request, "home.html", ctx, status_code=status_code)


@router.get("/", response_class=HTMLResponse)
def home(request: Request, db: SessionDep, player: PlayerId, csrf_token: CsrfToken) -> Response:
    return home_page(request, db, player, csrf_token)


@router.post("/games", response_class=HTMLResponse)
def new_game(
    page: Page,
    variant: Annotated[str, Form()] = DEFAULT_VARIANT,
    deal_number: Annotated[str | None, Form()] = None,
    deal: Annotated[str | None, Form()] = None,
) -> Response:
    request, db, player, csrf_token = page.request, page.db, page.player, page.csrf_token
    number: int | None = None
    deal_text = deal.strip() if deal and deal.strip() else None
    if deal_number is not None and deal_number.strip():
        number = int_or_none(deal_number)
        if number is None:
            return home_page(
                request,
                db,
                player,
                csrf_token,
                error=gettext("A deal number is a whole number from {min} to {max}.").format(
                    min=MIN_DEAL_NUMBER, max=MAX_DEAL_NUMBER
                ),
                form={"deal_number": deal_number[:20], "variant": variant},
                status_code=422,
            )
    try:
        state = services.create_game(db, player, variant, deal_number=number, deal=deal_text)
    except ServiceError as exc:
        return home_page(
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
    return see_other_saying(request, f"/games/{state.id}", "new")


@router.get("/deal/{number}", response_class=HTMLResponse)
def deal_link(page: Page, number: str, variant: str = DEFAULT_VARIANT) -> Response:
    request, db, player, csrf_token = page.request, page.db, page.player, page.csrf_token
    n = int_or_none(number)
    if n is None or not MIN_DEAL_NUMBER <= n <= MAX_DEAL_NUMBER:
        return error_page(
            request,
            csrf_token,
            404,
            N_("No such deal"),
            gettext("Deal numbers run from {min} to {max}; {number} is not one.").format(
                min=MIN_DEAL_NUMBER,
                max=MAX_DEAL_NUMBER,
                number=repr(number[:20]),
            ),
        )
    if variant not in ALL_VARIANTS:
        variant = DEFAULT_VARIANT
    saved = {g.variant: g for g in services.saved_games(db, player)}
    ctx = base_context(request, csrf_token, "home")
    ctx.update(number=n, variant=variant, saved=saved)
    return render(request, "deal.html", ctx)


# -- the play page ----------------------------------------------------------------------------


@router.get("/games/{game_id}", response_class=HTMLResponse)
def play(
    page: Page,
    game_id: str,
    select: Annotated[str | None, Query(max_length=8)] = None,
    hint: Annotated[str | None, Query(max_length=4)] = None,
) -> Response:
    """The play page: one read and the board, with what the form that led here did
    (``said``: the restart, a new game, ...) on its message line."""
    request, db, player, csrf_token = page.request, page.db, page.player, page.csrf_token
    htmx = is_htmx(request)
    # The whole page also shows the player's display preferences: read with the game, in
    # the same transaction (an htmx answer changes only the board and needs none).
    display = None if htmx else known_display(request)
    try:
        if htmx or display is not None:
            state = services.get_game(db, player, game_id)
        else:
            state, read = services.get_game_and_display(db, player, game_id)
            remember_display(request, read)
    except NotFound:
        return not_found(request, csrf_token)
    playing = state.status == "playing"
    # A plain hint: the state's legal, useful moves (a read, nothing is written).
    hint_moves = list(state.moves) if hint and playing else None
    sel = parse_selection(select, state.view) if playing else None
    sel_pile = parse_pile_selection(select, state.view) if playing else None
    said = None if htmx else request.cookies.get(SAID_COOKIE)
    # (a hint or a card asked for in the address is the answer to show instead)
    shown = said in SAID and hint_moves is None and sel is None and sel_pile is None
    notice = gettext(SAID[said]) if shown and said is not None else None
    ctx = board_context(
        request, csrf_token, state, sel=sel, hints=hint_moves, sel_pile=sel_pile, notice=notice
    )
    if htmx:
        return render(request, "play.html", ctx, block="game")
    # The live race of a shared deal (a game in no race has no race_id: no query needed).
    ctx["race"] = race_panel_for_game(db, player, state.id) if state.race_id else None
    response = render(request, "play.html", ctx)
    if said is not None:
        forget_said(response, request)
    return response


GameAction = Callable[[Session], GameState]


def _after_action(
    page: PageRequest,
    game_id: str,
    action: str,
    run: GameAction,
    move: Move | None = None,
) -> Response:
    """Run a game action (``run(db)``: ``act`` ``with_change``, one transaction) and answer
    it: the changed blocks for htmx, a 303 otherwise. A refusal carries the game as it stands
    (``exc.current``) and, for a full page, the display settings the refusing transaction
    read (``exc.display``), so no path reads the game again (but a form too broken to reach
    the service)."""
    request, db, player, csrf_token = page.request, page.db, page.player, page.csrf_token
    htmx = is_htmx(request)

    def current(exc: ServiceError) -> GameState:
        if exc.display is not None:
            remember_display(request, exc.display)
        if exc.current is not None:
            return exc.current
        return services.get_game(db, player, game_id)

    try:
        state = run(db)
    except NotFound:
        return not_found(request, csrf_token)
    except VersionConflict as exc:
        return conflict_page(request, csrf_token, current(exc), exc.message, htmx=htmx)
    except ServiceError as exc:
        if htmx:
            return refusal_message(request, csrf_token, exc.message)
        ctx = board_context(request, csrf_token, current(exc), error=exc.message)
        return render(request, "play.html", ctx, status_code=422)
    if not htmx or state.previous is None:
        return see_other(f"/games/{state.id}")
    before = state.previous
    notice = describe_change(before, state.view, action, move)
    short = short_change(before, state.view, action, move)
    # Only what changed: the status, the message, the tools that changed (the page's script
    # copies the new version into their forms), the piles and the columns that differ.
    after = state.view
    tools = (("undo", before.can_undo, after.can_undo), ("redo", before.can_redo, after.can_redo))
    columns = {
        c for c, (x, y) in enumerate(zip(before.columns, after.columns, strict=True)) if x != y
    }
    changes = {
        "tools": "all" if before.status != after.status else {n for n, x, y in tools if x != y},
        "stock": before.stock != after.stock,
        "runs": before.completed != after.completed,
        "piles": (before.reserves, before.cells) != (after.reserves, after.cells),
        "columns": columns,
        "keep": {c: kept_prefix(before.columns[c], after.columns[c]) for c in columns},
    }
    ctx = board_context(
        request,
        csrf_token,
        state,
        notice=notice,
        notice_short=short,
        only=columns,
        layout=False,
    )
    return render_update(request, csrf_token, ctx, changes)


class MoveForm(BaseModel):
    from_column: str | None = None
    from_index: str | None = None
    to_column: str | None = None
    version: str | None = None
    from_pile: Annotated[str | None, Field(max_length=8)] = None
    to_cell: str | None = None


class VersionForm(BaseModel):
    version: str | None = None


@router.post("/games/{game_id}/move", response_class=HTMLResponse)
def move(
    page: Page, game_id: str, form: Annotated[MoveForm, Depends(form_of(MoveForm))]
) -> Response:
    """A move: ``from_column``/``from_index`` (with ``from_pile`` "reserve" or "cell": that
    pile's number, index 0) to the column ``to_column`` or the free cell ``to_cell``."""
    player = page.player
    from_pile, to_cell, version = form.from_pile, form.to_cell, form.version
    a, i = int_or_none(form.from_column), int_or_none(form.from_index)
    b = int_or_none(form.to_column)
    fp = from_pile if from_pile in ("reserve", "cell") else "column"
    tp = "column"
    if to_cell is not None and to_cell.strip():
        b, tp = int_or_none(to_cell), "cell"
    if fp != "column" and a is not None:
        i = 0
    expected = int_or_none(version)
    htmx = is_htmx(page.request)  # (a refusal's full page shows the display settings)
    if a is None or i is None or b is None:
        message = (
            N_("Choose a face-up card first, then the column it goes to.")
            if b is not None
            else N_("Choose the column the card goes to.")
        )

        def refuse(db: Session) -> GameState:
            raise services.InvalidRequest(message)

        return _after_action(page, game_id, "move", refuse)
    return _after_action(
        page,
        game_id,
        "move",
        lambda db: services.act(
            db,
            player,
            game_id,
            ("move", a, i, b, fp, tp),
            expected,
            with_change=True,
            with_display=not htmx,
        ),
        pile_move(fp, a, i, tp, b),
    )


@router.post("/games/{game_id}/deal", response_class=HTMLResponse)
@router.post("/games/{game_id}/undo", response_class=HTMLResponse)
@router.post("/games/{game_id}/redo", response_class=HTMLResponse)
def step_action(
    page: Page, game_id: str, form: Annotated[VersionForm, Depends(form_of(VersionForm))]
) -> Response:
    """The deal, undo or redo (the last part of the path names it)."""
    player = page.player
    kind = page.request.url.path.rsplit("/", 1)[-1]
    expected = int_or_none(form.version)

    htmx = is_htmx(page.request)  # (a refusal's full page shows the display settings)

    def step(db: Session) -> GameState:
        return services.act(
            db, player, game_id, (kind,), expected, with_change=True, with_display=not htmx
        )

    return _after_action(page, game_id, kind, step)


@router.get("/games/{game_id}/move")
@router.get("/games/{game_id}/deal")
@router.get("/games/{game_id}/undo")
@router.get("/games/{game_id}/redo")
@router.get("/games/{game_id}/winnable")
@router.get("/games/{game_id}/solver-hint")
def back_to_the_game(request: Request, game_id: str) -> Response:
    """A card picks itself up with a relative link (``?select=3-5``: an htmx answer re-sends
    whole columns, so a card's markup is kept short). A board shown at an action's address
    (a refusal or the solver's answer without JavaScript) resolves it here: back to the game,
    the query kept."""
    query = request.url.query
    return see_other(f"/games/{quote(game_id, safe='')}" + (f"?{query}" if query else ""))


@router.post("/games/{game_id}/restart", response_class=HTMLResponse)
def restart(page: Page, game_id: str) -> Response:
    request, db, player, csrf_token = page.request, page.db, page.player, page.csrf_token
    try:
        state = services.restart(db, player, game_id)
    except NotFound:
        return not_found(request, csrf_token)
    return see_other_saying(request, f"/games/{state.id}", "restart")


@router.get("/games/{game_id}/replay", response_class=HTMLResponse)
def replay(
    page: Page,
    game_id: str,
    step: ReplayStep = 0,
    play: ReplayPlay = 0,
) -> Response:
    request, db, player, csrf_token = page.request, page.db, page.player, page.csrf_token
    try:
        rep = replay_game(db, player, game_id)
    except NotFound:
        return not_found(request, csrf_token)
    except ServiceError as exc:
        return error_page(request, csrf_token, 422, N_("No replay yet"), exc.message)
    ctx = replay_context(
        request,
        csrf_token,
        rep.game,
        rep.frames,
        rep.actions,
        step=step,
        play=play,
        base=f"/games/{game_id}/replay",
        way_from=None,
    )
    if is_htmx(request):
        return render(request, "replay.html", ctx, block="replay")
    finished = rep.game.status == "won" or rep.game.abandoned
    ctx.update(review_context(db, player, game_id, finished=finished, step=ctx["step"]))
    return render(request, "replay.html", ctx)


# -- rules ------------------------------------------------------------------------------------


@router.get("/rules", response_class=HTMLResponse)
def rules(request: Request, csrf_token: CsrfToken) -> Response:
    ctx = base_context(request, csrf_token, "rules")
    return render(request, "rules.html", ctx)
