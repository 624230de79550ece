"""HTML pages for the solver (issue 5): the play page's "Is this still winnable?" and
"Solver hint" buttons, "New winnable deal" on the home page, and the odds on the rules page.

Both play-page buttons are real ``<form method="post">`` with ``csrf_token`` and the game's
``version``. An htmx request gets the ``game`` block of ``play.html`` with the answer in the
message line (and the hinted move highlighted like a normal hint); a plain form post gets a
``303`` to ``/games/{id}/solver?r=<signed answer>``, which shows the same page while the game is
still at the version analysed (the answer is signed with ``SECRET_KEY``, so a link cannot make
the page claim an answer the solver did not give). An answer ("win" or "loss") marks the game
assisted; "could not tell in time" does not. A second question while the first is being
answered (429) and a full solver queue (503) show the play page with the reason in the
message line and a ``Retry-After`` header: nothing was asked and the game is unchanged.

Template globals registered here: ``winnable_catalog(variant)`` (how many catalogued winnable
deals a variant has) and ``solver_odds()`` (rows of the published odds, ``load_odds()``).
"""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, Response
from itsdangerous import BadSignature, URLSafeSerializer
from starlette.concurrency import run_in_threadpool

from app import services
from app.config import get_settings
from app.db.session import SessionDep
from app.engine import DEFAULT_VARIANT, PILES, Move, pile_move
from app.engine.solver import winnable_deals
from app.i18n import N_, gettext
from app.odds_display import odds_rows
from app.services import NotFound, ServiceError, VersionConflict
from app.services.analysis import AnalysisResult, SolverBusy, SolverHint, analyse_game
from app.services.ratelimit import RateLimited
from app.web.game.pages import home_page
from app.web.game.words import describe_move, short_move
from app.web.site.display import current_display
from app.web.site.rendering import (
    Page,
    board_context,
    conflict_page,
    int_or_none,
    is_htmx,
    not_found,
    refusal_message,
    render,
    see_other,
)
from app.web.site.templating import templates

router = APIRouter(include_in_schema=False)

ASSISTED_NOTE = N_("This game is now marked as assisted in your statistics.")
NOT_ASSISTED_NOTE = N_("No answer, no help: the game is not marked as assisted.")


# -- template globals --------------------------------------------------------------------------


def winnable_catalog(variant: str) -> int:
    """How many deals of ``variant`` the shipped catalog proves winnable (0: no catalog)."""
    try:
        return len(winnable_deals(variant))
    except (KeyError, OSError, ValueError):
        return 0


def solver_odds() -> list[dict[str, Any]]:
    """The published odds, one row of display text per variant (whatever ``odds.json`` holds
    now, read at every request)."""
    return odds_rows()


templates.env.globals.update(winnable_catalog=winnable_catalog, solver_odds=solver_odds)


# -- "New winnable deal" -----------------------------------------------------------------------


@router.post("/games/winnable", response_class=HTMLResponse)
def new_winnable_game(
    page: Page,
    variant: Annotated[str, Form(max_length=40)] = DEFAULT_VARIANT,
    difficulty: Annotated[str, Form(max_length=10)] = "",
) -> Response:
    """Start a game on a deal the solver proved winnable (from the shipped catalog), of the
    chosen difficulty (easy, medium or hard; empty: any)."""
    request, db, player, csrf_token = page.request, page.db, page.player, page.csrf_token
    try:
        state = services.create_game(
            db, player, variant, winnable=True, difficulty=difficulty or None
        )
    except ServiceError as exc:
        return home_page(request, db, player, csrf_token, error=exc.message, status_code=422)
    return see_other(f"/games/{state.id}")


# -- the play page's solver buttons ------------------------------------------------------------


def _serializer() -> URLSafeSerializer:
    return URLSafeSerializer(get_settings().secret_key, salt="scorpion.solver-answer")


def _hint_code(hint: SolverHint | None) -> list[int | str] | str | None:
    if hint is None:
        return None
    if hint == "deal":
        return "deal"
    if hint.from_pile != "column" or hint.to_pile != "column":
        return [hint.from_column, hint.from_index, hint.to_column, hint.from_pile, hint.to_pile]
    return [hint.from_column, hint.from_index, hint.to_column]


def _hint_from_code(value: Any) -> SolverHint | None:
    if value == "deal":
        return "deal"
    if isinstance(value, list) and len(value) == 3 and all(isinstance(x, int) for x in value):
        return Move(value[0], value[1], value[2])
    if (
        isinstance(value, list)
        and len(value) == 5
        and all(isinstance(x, int) for x in value[:3])
        and value[3] in PILES
        and value[4] in PILES
    ):
        return pile_move(value[3], value[0], value[1], value[4], value[2])
    return None


def _answer_text(kind: str, verdict: str, hint_text: str | None) -> str:
    budget = f"{get_settings().analysis_budget_seconds:g}"
    if kind == "hint":
        if verdict == "win" and hint_text:
            text = gettext("Solver hint: {hint}. This keeps the game winnable.").format(
                hint=hint_text
            )
        elif verdict == "loss":
            text = gettext(
                "No solver hint: this game is no longer winnable, no sequence of moves wins "
                "from here."
            )
        else:
            text = gettext(
                "No solver hint: the solver could not tell in time ({budget} s) whether "
                "this game can still be won."
            ).format(budget=budget)
    elif verdict == "win":
        text = gettext("Still winnable: the solver found a way to win from here.")
    elif verdict == "loss":
        text = gettext("No longer winnable: no sequence of moves wins from here.")
    else:
        text = gettext(
            "Could not tell in time: the solver did not finish within {budget} s. "
            "The game may or may not still be winnable."
        ).format(budget=budget)
    note = NOT_ASSISTED_NOTE if verdict == "unknown" else ASSISTED_NOTE
    return f"{text} {gettext(note)}"


def _answer_short(kind: str, verdict: str, hint: str | None) -> str:
    """The solver's answer in one short line for the eye (issue 41: painted above the board
    without covering it); ``_answer_text`` says it in full words for screen readers."""
    if kind == "hint":
        if verdict == "win" and hint:
            text = gettext("Solver hint: {hint}, still winnable").format(hint=hint)
        elif verdict == "loss":
            text = gettext("No solver hint: no longer winnable")
        else:
            text = gettext("No solver hint: no answer in time")
    elif verdict == "win":
        text = gettext("Still winnable")
    elif verdict == "loss":
        text = gettext("No longer winnable")
    else:
        text = gettext("No answer in time")
    note = gettext("not assisted") if verdict == "unknown" else gettext("now assisted")
    return f"{text} · {note}"


def _answer_page(
    request: Request,
    csrf_token: str,
    state: services.GameState,
    kind: str,
    verdict: str,
    hint: SolverHint | None,
    *,
    fragment: bool,
) -> Response:
    move = hint if isinstance(hint, Move) else None
    hint_text: str | None = None
    if move is not None:
        # TRANSLATORS: the solver's hint, e.g. "move the seven of hearts from column 2 onto
        # the eight of hearts in column 5" (in "Solver hint: {hint}. ...").
        hint_text = gettext("move {move}").format(move=describe_move(state.view, move))
    elif hint == "deal":
        # TRANSLATORS: the solver's hint (in "Solver hint: {hint}. ...").
        hint_text = gettext("deal the stock")
    # TRANSLATORS: the solver's hint in short (in "Solver hint: {hint}, still winnable").
    short = short_move(state.view, move) if move is not None else gettext("deal")
    ctx = board_context(
        request,
        csrf_token,
        state,
        hints=[move] if move is not None else None,
        notice=_answer_text(kind, verdict, hint_text),
        notice_short=_answer_short(kind, verdict, short if hint is not None else None),
    )
    b = ctx["b"]
    b.hints = None  # the highlight stays; the message line holds the solver's answer
    b.hint_deal = hint == "deal"
    # The answer marks the game assisted (after its state was read): the status says so now.
    b.assisted = b.assisted or verdict in ("win", "loss")
    if fragment:
        return render(request, "play.html", ctx, block="game")
    return render(request, "play.html", ctx)


async def _ask(
    request: Request,
    db: SessionDep,
    player: str,
    csrf_token: str,
    game_id: str,
    version: str | None,
    kind: str,
) -> Response:
    expected = int_or_none(version)
    htmx = is_htmx(request)
    try:
        result: AnalysisResult = await analyse_game(
            db, player, game_id, hint=kind == "hint", expected_version=expected
        )
    except NotFound:
        return not_found(request, csrf_token)
    except VersionConflict as exc:
        current = await run_in_threadpool(services.get_game, db, player, game_id)
        if not htmx:
            await run_in_threadpool(current_display, request)
        return conflict_page(request, csrf_token, current, exc.message, htmx=htmx)
    except (ServiceError, RateLimited, SolverBusy) as exc:
        if htmx and isinstance(exc, ServiceError):
            return refusal_message(request, csrf_token, exc.message)
        status, headers = 422, {}
        if isinstance(exc, RateLimited | SolverBusy):
            status = 503 if isinstance(exc, SolverBusy) else 429
            headers = {"Retry-After": str(exc.retry_after)}
        try:
            current = await run_in_threadpool(services.get_game, db, player, game_id)
        except NotFound:
            return not_found(request, csrf_token)
        if not htmx:
            await run_in_threadpool(current_display, request)
        ctx = board_context(request, csrf_token, current, error=exc.message)
        if htmx:
            response = render(request, "play.html", ctx, status_code=status, block="message_text")
        else:
            response = render(request, "play.html", ctx, status_code=status)
        response.headers.update(headers)
        return response
    if htmx:
        return _answer_page(
            request, csrf_token, result.state, kind, result.verdict, result.hint, fragment=True
        )
    token = _serializer().dumps(
        {
            "g": game_id,
            "v": result.version,
            "k": kind,
            "r": result.verdict,
            "h": _hint_code(result.hint),
        }
    )
    return see_other(f"/games/{game_id}/solver?r={token}")


@router.post("/games/{game_id}/winnable", response_class=HTMLResponse)
@router.post("/games/{game_id}/solver-hint", response_class=HTMLResponse)
async def ask_solver(
    page: Page, game_id: str, version: Annotated[str | None, Form()] = None
) -> Response:
    """ "Is this still winnable?" (``/winnable``): the solver's verdict on the current
    position; "Solver hint" (``/solver-hint``): a move that keeps the game winnable (when
    the solver finds one)."""
    request, db, player, csrf_token = page.request, page.db, page.player, page.csrf_token
    kind = "verdict" if request.url.path.endswith("/winnable") else "hint"
    return await _ask(request, db, player, csrf_token, game_id, version, kind)


@router.get("/games/{game_id}/solver", response_class=HTMLResponse)
def solver_answer(
    page: Page,
    game_id: str,
    r: Annotated[str, Query(max_length=400)] = "",
    select: Annotated[str | None, Query(max_length=8)] = None,
) -> Response:
    """The page a plain (non-htmx) solver question lands on: the game with the answer, while
    the game is still where it was when asked; otherwise simply the game (a card picked up
    on this page, ``?select=``, stays picked up there)."""
    request, db, player, csrf_token = page.request, page.db, page.player, page.csrf_token
    try:
        state = services.get_game(db, player, game_id)
    except NotFound:
        return not_found(request, csrf_token)
    try:
        data = _serializer().loads(r)
    except BadSignature:
        data = None
    if (
        not isinstance(data, dict)
        or data.get("g") != game_id
        or data.get("v") != state.version
        or data.get("r") not in ("win", "loss", "unknown")
        or data.get("k") not in ("verdict", "hint")
        or state.status != "playing"
    ):
        picked = f"?select={quote(select, safe='')}" if select else ""
        return see_other(f"/games/{quote(game_id, safe='')}{picked}")
    return _answer_page(
        request,
        csrf_token,
        state,
        str(data["k"]),
        str(data["r"]),
        _hint_from_code(data.get("h")),
        fragment=False,
    )
