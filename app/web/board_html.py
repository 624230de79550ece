"""The play page's parts that every htmx answer re-sends, written as Python functions.

An htmx move answer (``update_html``) carries the moves, the clock, the game's version, the
message line, the board's hidden fields and the columns the move changed; the page
(``templates/play.html``) calls the same functions, so each part's markup lives here once.
They are Python rather than Jinja for speed (issue 12: a move within 1.5x of a bare FastAPI
endpoint): a Jinja expression costs about a microsecond, an answer had some sixty of them,
and a column a move changed re-rendered through a macro cost tens of microseconds more. The
rest of the page (the toolbar, the piles, the ending) stays in the template; an answer renders
those blocks only when they change.

Everything here is built from ``BoardView`` (``app/web/view.py``), which holds only what
``PublicView`` shows: a face-down card is drawn as a back and nothing else. Every value that is
not a number the view made is escaped.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from app.i18n import current_locale, gettext, ngettext
from app.web.view import BoardView, ColumnView
from app.web.view import html_escape as escape
from app.web.words import card_name, suit_name

# The parts templates/play.html calls (``app.web.templating`` hands them to it as ``Markup``).
PAGE_PARTS: tuple[str, ...] = (
    "column_html",
    "stock_button",
    "moves_count",
    "game_head",
    "runs_list",
)
PAGE_PARTS += ("undo_button", "redo_button", "message_text", "board_fields")

# Rendered columns and cards by everything their markup depends on (emptied when full): a move
# changes one to three of a board's columns, and of those only the last card or two.
_COLUMNS: dict[tuple[Any, ...], str] = {}
_CARDS: dict[tuple[Any, ...], str] = {}

_DOWNS: dict[str, tuple[str, str]] = {}


def _downs() -> tuple[str, str]:
    """A face-down card's markup, and the same at a column's open end, in the request's
    language (by locale)."""
    locale = current_locale.get()
    pair = _DOWNS.get(locale)
    if pair is None:
        label = escape(gettext("face-down card"))
        down = (
            f'\n<i class="card down" role=img aria-label="{label}">'
            '<svg role=none><use href="#back"/></svg></i>'
        )
        pair = _DOWNS[locale] = (down, down.replace("card down", "card down top", 1))
    return pair


def card_html(c: int, i: int, code: str, selected: bool, hint_src: bool, last: bool) -> str:
    """The face-up card ``code`` at index ``i`` of column ``c`` (``last``: its open end): its
    picture (a symbol of partials/sprite.html), its name, the link that picks it up without
    JavaScript (``?select=<column>-<index>``, read by static/js/board.js too) and its place and
    code as the JSON API numbers them (``data-col``: the column, from 0; ``data-idx``: the index
    from the column's deepest card, 0; ``data-card``: "7H"). A face-down card has none of them."""
    flags = (" top" if last else "") + (" sel" if selected else "")
    if hint_src:
        flags += " hint-src"
    picked = gettext(", picked up") if selected else ""
    name, code = escape(card_name(code)), escape(code)
    return (
        f'\n<a class="card {code[1]}{flags}" href="?select={c}-{i}" data-col={c} data-idx={i} '
        f'data-card={code} aria-label="{name}{picked}"><svg role=none><use href="#c-{code}"/>'
        "</svg></a>"
    )


def kept_prefix(before: Sequence[str | None], after: Sequence[str | None]) -> int:
    """How many of a changed column's deepest cards an htmx answer need not re-send: those the
    page already shows as they stay (the same card, face up or down, at the same place, and the
    open end neither before nor after). The answer's column says so (``data-keep``) and
    static/js/board.js puts the page's own copies of them back in front of the cards sent, so
    a deal or a move onto a long column re-sends its last card or two, not the whole column
    (issue 12: an answer stays under 8 KB)."""
    n = min(len(before), len(after)) - 1
    k = 0
    while k < n and before[k] == after[k]:
        k += 1
    return k


def _cards(col: ColumnView, start: int = 0) -> str:
    """A column's cards from index ``start``: the backs of its face-down ones (all alike),
    then each face-up one kept rendered by card, place and flags (a move changes the last
    card or two)."""
    c, sel, hints = col.index, col.sel, col.hint_src
    last = len(col.codes) - 1
    down, down_top = _downs()
    locale = current_locale.get()
    out = []
    for i, code in enumerate(col.codes):
        if i < start:
            continue
        if code is None:
            out.append(down_top if i == last else down)
            continue
        key = (c, i, code, i == sel, i in hints, i == last, locale)
        html = _CARDS.get(key)
        if html is None:
            if len(_CARDS) >= 8192:
                _CARDS.clear()
            html = _CARDS[key] = card_html(c, i, code, i == sel, i in hints, i == last)
        out.append(html)
    return "".join(out)


def _column(col: ColumnView, b: BoardView, keep: int = 0) -> str:
    n = col.index
    src = " src" if b.sel and b.sel[0] == n else ""
    # (a card drawn with a flag, picked up or a hint's, is always sent)
    keep = min((keep, *col.hint_src, *(() if col.sel is None else (col.sel,))))
    kept = f" data-keep={keep}" if keep > 0 else ""
    out = [
        f'<div class="col{" hint-dst" if col.hint_dst else ""}{src}" id="col-{n}" data-col="{n}"'
        f'{kept} role="group" aria-label="{escape(col.label)}" '
        f'style="--n:{col.offsets};--d:{col.down};--u:{col.up}">'
    ]
    if not col.codes:
        if b.empty_any:
            label = gettext("Column {n}: empty, accepts any card").format(n=n + 1)
            shown = gettext("Any card")
        else:
            label = gettext("Column {n}: empty, accepts only a King").format(n=n + 1)
            shown = gettext("K only")
        out.append(
            f'\n  <button class="slot" type="submit" name="to_column" value="{n}" data-col="{n}" '
            f'aria-label="{escape(label)}">\n    <span aria-hidden="true">'
            f"{escape(shown)}</span></button>"
        )
    else:
        out.append(_cards(col, keep))
    if (b.sel and b.sel[0] != n) or b.sel_pile:
        here = escape(gettext("Move here"))
        where = escape(gettext(" (column {n})").format(n=n + 1))
        out.append(
            f'\n  <button class="drop" type="submit" name="to_column" value="{n}">{here}'
            f'<span class="sr">{where}</span></button>'
        )
    out.append("\n</div>")
    return "".join(out)


def column_html(col: ColumnView, b: BoardView, keep: int = 0) -> str:
    """One tableau column: its face-down cards as backs, its face-up cards, an empty column's
    drop slot, and a "Move here" button while a card is picked up elsewhere. Rendered once per
    distinct column (``col.key`` and the board's selection). ``keep``: an htmx answer's
    column leaves out its ``keep`` deepest cards, which the page shows already
    (``kept_prefix``)."""
    key = (b.empty_any, b.sel, bool(b.sel_pile), col.key, keep)
    html = _COLUMNS.get(key)
    if html is None:
        if len(_COLUMNS) >= 2048:
            _COLUMNS.clear()
        html = _COLUMNS[key] = _column(col, b, keep)
    return html


def stock_button(b: BoardView) -> str:
    """The stock: its button deals (disabled when it cannot), with the cards left."""
    if b.stock:
        title = gettext("Deal the stock: one card onto each of the first {n} columns (D)").format(
            n=b.stock
        )
        pile = '<svg aria-hidden="true"><use href="#back"/></svg>'
        label = escape(gettext("Deal {n}")).replace("{n}", f'<span class="n">{b.stock}</span>')
    else:
        if b.has_stock:
            title = gettext("The stock is empty")
        else:
            title = gettext("{title} has no stock").format(title=b.variant_title)
        pile = '<span class="slot-empty"></span>'
        label = escape(gettext("Stock empty") if b.has_stock else gettext("No stock"))
    classes = ("" if b.stock else " empty") + (" hint-src" if b.hint_deal else "")
    return (
        f'<button class="stock{classes}" id="deal-btn" type="submit"'
        f'{"" if b.can_deal else " disabled"} aria-keyshortcuts="D" title="{escape(title)}">'
        f'<span class="pile">{pile}</span><span class="lbl">{label}</span></button>'
    )


def moves_count(b: BoardView) -> str:
    """Moves made: every move and deal, undone ones included (what rankings count)."""
    return f'<dd id="moves">{b.moves_made if b.moves_made is not None else b.moves}</dd>'


def game_head(b: BoardView) -> str:
    """The game's version and status (read by static/js/board.js) and its clock."""
    return (
        f'<dd id="game-head" data-version="{b.version}" data-status="{escape(b.status)}">'
        f'<time id="clock" data-elapsed="{b.elapsed}" data-running="{"false" if b.won else "true"}"'
        f' datetime="PT{b.elapsed}S">{escape(b.elapsed_text)}</time></dd>'
    )


def runs_list(b: BoardView) -> str:
    """The completed runs: a slot per run the game needs, each filled with its suit's mark."""
    slots = []
    for s in b.completed_slots:
        if s:
            suit = escape(s)
            done = escape(gettext("{suit} completed").format(suit=suit_name(s)))
            slots.append(
                f'<li class="fslot done {suit}"><svg class="mini" viewBox="0 0 100 100" '
                f'aria-hidden="true" focusable="false"><use href="#s-{suit}"/></svg>'
                f'<span class="sr">{done}</span></li>'
            )
        else:
            slots.append('<li class="fslot"></li>')
    label = gettext("Completed runs: {n} of {total}").format(
        n=len(b.completed), total=b.runs_needed
    )
    return (
        f'<ol class="foundation runs-{b.runs_needed}" id="foundation" '
        f'aria-label="{escape(label)}">'
        f"{''.join(slots)}</ol>"
    )


def undo_button(b: BoardView) -> str:
    return _history_button(
        "undo-btn", b.can_undo, "Z Control+Z", gettext("Undo (Z)"), gettext("Undo"), "↶"
    )


def redo_button(b: BoardView) -> str:
    return _history_button("redo-btn", b.can_redo, "Y", gettext("Redo (Y)"), gettext("Redo"), "↷")


def _history_button(
    button_id: str, enabled: bool, keys: str, title: str, label: str, arrow: str
) -> str:
    """The undo or the redo button (disabled when there is nothing to undo or redo)."""
    return (
        f'<button type="submit" id="{button_id}"{"" if enabled else " disabled"} '
        f'aria-keyshortcuts="{keys}" title="{escape(title)}">'
        f'<span aria-hidden="true">{arrow}</span> {escape(label)}</button>'
    )


def error_text(message: str) -> str:
    """A refusal or an error on the message line."""
    return f'<span class="error">{escape(message)}</span>'


def message_text(b: BoardView) -> str:
    """The message line's content, painted and announced (issue 41): an error, the last
    action in words, the hints, or what is picked up."""
    if b.error:
        return error_text(b.error)
    if b.notice and b.notice_short:
        # (a move's report: one short line painted, its full words read out)
        return (
            f'<span class="notice"><span aria-hidden="true">{escape(b.notice_short)}</span>'
            f'<span class="sr">{escape(b.notice)}</span></span>'
        )
    if b.notice:
        return f'<span class="notice">{escape(b.notice)}</span>'
    if b.hints is not None:
        return _hints_text(b)
    if b.selected_label:
        return f'<span class="say">{escape(b.selected_label)}</span>'
    return ""


def _hints_text(b: BoardView) -> str:
    hints = b.hints or []
    if hints:
        n = len(hints)
        # TRANSLATORS: what ends a hint read out in a list of them, and the last one.
        between, last = escape(gettext(";")), escape(gettext("."))
        items = "".join(
            f'<span class="hint-item" data-move="{escape(h.move)}"><span aria-hidden="true">'
            f'{escape(h.short)}</span><span class="sr">{escape(h.long)}'
            f"{last if k == n - 1 else between}</span></span>"
            for k, h in enumerate(hints)
        )
        if b.can_deal:
            head = ngettext(
                "%(n)d useful move, and the deal:", "%(n)d useful moves, and the deal:", n
            )
        else:
            head = ngettext("%(n)d useful move:", "%(n)d useful moves:", n)
        return f'<span class="hints">{escape(head % {"n": n})} {items}</span>'
    if b.can_deal:
        text = ngettext(
            "No move is left on the board. Deal the stock (%(n)d card) to go on.",
            "No move is left on the board. Deal the stock (%(n)d cards) to go on.",
            b.stock,
        )
        return f'<span class="hints">{escape(text % {"n": b.stock})}</span>'
    undo_label = escape(gettext("Undo"))
    undo = (
        f'<button type="button" class="inline" data-click="undo-btn">{undo_label}</button> '
        if b.can_undo
        else ""
    )
    text = gettext("No move is left and the stock is empty: restart this deal or start a new game.")
    restart = escape(gettext("Restart"))
    return (
        f'<span class="hints">{escape(text)} {undo}<button type="button" class="inline" '
        f'data-click="restart-btn">{restart}</button></span>'
    )


def board_fields(b: BoardView) -> str:
    """The board form's hidden fields: the version, the picked-up card, and the one-tap
    targets (``data-targets``: where each face-up card may go now)."""
    out = [
        f'<span id="board-fields" hidden data-targets="{escape(b.targets)}">'
        f'<input type="hidden" name="version" value="{b.version}">'
    ]
    if b.sel or b.sel_pile:
        column = b.sel[0] if b.sel else b.sel_pile[1] if b.sel_pile else 0
        index = b.sel[1] if b.sel else 0
        out.append(
            f'<input type="hidden" name="from_column" value="{column}">'
            f'<input type="hidden" name="from_index" value="{index}">'
        )
    if b.sel_pile:
        out.append(f'<input type="hidden" name="from_pile" value="{escape(b.sel_pile[0])}">')
    out.append("</span>")
    return "".join(out)


def _partial(target: str, html: str, swap: str = "") -> str:
    return f'<hx-partial hx-target="{target}"{swap}>{html}</hx-partial>\n'


def update_html(
    ctx: Mapping[str, Any], changes: Mapping[str, Any], block: Callable[[str], str]
) -> str:
    """The answer to an htmx action: only what it changed, each part swapped into its place
    (outerMorph, the page's default swap, unless told otherwise). ``changes``: ``tools``
    ("all" when the status changed, else the names of the tools that did), ``stock``, ``runs``
    and ``piles`` (True when changed) and ``columns`` (the indexes of the changed ones);
    ``block(name)`` renders one of play.html's blocks (the toolbar, the piles, the ending)."""
    b: BoardView = ctx["b"]
    tools = changes["tools"]
    out = []
    if tools == "all" or changes["stock"]:
        out.append(_partial("#deal-btn", stock_button(b)))
    out.append(_partial("#moves", moves_count(b)))
    out.append(_partial("#game-head", game_head(b)))
    if tools == "all" or changes["runs"]:
        out.append(_partial("#foundation", runs_list(b)))
    if tools == "all":
        out.append(_partial("#toolbar", block("toolbar")))
    else:
        if "undo" in tools:
            out.append(_partial("#undo-btn", undo_button(b)))
        if "redo" in tools:
            out.append(_partial("#redo-btn", redo_button(b)))
    out.append(_partial("#message", message_text(b), ' hx-swap="innerHTML"'))
    out.append(_partial("#board-fields", board_fields(b)))
    if changes["piles"]:
        out.append(_partial("#piles", block("piles")))
    keep = changes.get("keep", {})
    for col in b.columns:
        if col.index in changes["columns"]:
            html = column_html(col, b, keep.get(col.index, 0))
            out.append(_partial(f"#col-{col.index}", html))
    ending = block("ending") if b.won or b.stuck else '<div id="ending"></div>'
    out.append(_partial("#ending", ending))
    return "".join(out)
