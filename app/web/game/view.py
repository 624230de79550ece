"""What the HTML pages show of a game, built only from ``PublicView`` (never from the engine).

``board_view`` turns a service ``GameState`` into plain data for ``templates/play.html``; the
words for cards and moves are in ``app.web.game.words``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache

from app.engine import ALL_VARIANTS, Move, PublicView, get_variant
from app.i18n import current_locale, gettext, ngettext
from app.services import clock_seconds
from app.web.game.words import (
    card_name,
    describe_move,
    format_seconds,
    pile_word,
    short_move,
    with_rest_held,
)


@dataclass(frozen=True, slots=True)
class CardView:
    index: int
    code: str | None  # None: face-down, nothing else is known here
    name: str
    selected: bool = False
    hint_src: bool = False


@dataclass(frozen=True, slots=True)
class PileView:
    """A reserve card or a free cell beside the tableau (face up, or an empty cell)."""

    kind: str  # "reserve" | "cell"
    index: int
    code: str | None  # None: an empty slot
    name: str
    label: str
    selected: bool = False
    hint_src: bool = False
    hint_dst: bool = False

    @property
    def select_key(self) -> str:
        return ("r" if self.kind == "reserve" else "f") + str(self.index)


@dataclass(frozen=True, slots=True)
class ColumnView:
    index: int
    codes: tuple[str | None, ...]  # its cards from the bottom up (None: face down)
    label: str
    offsets: int  # fan steps the column needs (for CSS to fit it to the screen)
    hint_dst: bool = False
    down: int = 0  # face-down cards (for CSS)
    up: int = 1  # face-up cards above the deepest one, at least 1 (for CSS)
    sel: int | None = None  # the index of its picked-up card
    hint_src: frozenset[int] = frozenset()  # the indexes of its cards a hint moves
    # What the column was made of (``_column``'s arguments): a cheap key for the rendered
    # column kept by templates/partials/board.html (``{% cache %}``).
    key: tuple[object, ...] = ()

    def kept(self, keep: int) -> int:
        """How many of its deepest cards an htmx answer leaves to the page, of the ``keep``
        that stay (``kept_prefix``): a card drawn with a flag, picked up or a hint's, is
        always sent."""
        if not keep:
            return 0
        return min((keep, *self.hint_src, *(() if self.sel is None else (self.sel,))))

    @property
    def cards(self) -> list[CardView]:
        """Its cards as views (the replay's template; the play page's column,
        templates/partials/board.html, reads ``codes`` and the flags)."""
        sel, hints = self.sel, self.hint_src
        locale = current_locale.get()
        return [
            _card(i, code, code is not None and sel == i, code is not None and i in hints, locale)
            for i, code in enumerate(self.codes)
        ]


@dataclass(slots=True)
class BoardView:
    id: str
    variant: str
    variant_title: str
    empty_any: bool
    deal_number: int | None
    share_url: str | None
    version: int
    status: str
    won: bool
    stuck: bool
    moves: int
    stock: int
    can_deal: bool
    can_undo: bool
    can_redo: bool
    completed: list[str]
    completed_slots: list[str | None]
    columns: list[ColumnView]
    tallest: int
    elapsed: int
    elapsed_text: str
    csrf_token: str  # (a form's hidden fields: partials/board.html, hidden)
    # The game's clock runs from its first move or solver question (issue 41): False for a
    # dealt layout nobody touched, whose clock stands at 0 and which no confirmation guards.
    started: bool = True
    sel: tuple[int, int] | None = None
    selected_label: str | None = None
    # The family: reserve cards and free cells beside the tableau; a picked-up pile card.
    reserves: list[PileView] | None = None
    cells: list[PileView] | None = None
    sel_pile: tuple[str, int] | None = None
    runs_needed: int = 4
    ncols: int = 7
    decks: int = 1
    has_stock: bool = True  # False: the variant deals no stock at all
    hints: list[HintView] | None = None
    hint_deal: bool = False
    error: str | None = None
    notice: str | None = None
    notice_short: str | None = None  # the notice in one short line for the eye (issue 41)
    assisted: bool = False  # the solver was asked about this game (docs/rules.md, Assistance)
    moves_made: int | None = None  # every move and deal performed, undone ones included
    # Where each face-up card may go now, for one-tap moves: "col.idx:to,to col.idx:to".
    targets: str = ""
    # A shared deal whose number stays hidden while its day runs: today's daily deal.
    daily: bool = False


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


def move_key(m: Move) -> str:
    """The page's name of the card a move picks up: ``col.idx``, or ``rK`` / ``fK`` for the
    card of reserve K or free cell K."""
    if m.from_pile == "reserve":
        return f"r{m.from_column}"
    if m.from_pile == "cell":
        return f"f{m.from_column}"
    return f"{m.from_column}.{m.from_index}"


def move_dest(m: Move) -> str:
    """The page's name of a move's destination: a column number, or ``fK`` for free cell K."""
    return f"f{m.to_column}" if m.to_pile == "cell" else str(m.to_column)


def move_code(m: Move) -> str:
    """A move for the page's hint: ``"c.i.t"``; ``"r0.0.t"`` / ``"f1.0.t"`` from a reserve or
    a cell; ``"c.i.fK"`` into free cell K."""
    frm = move_key(m)
    return f"{frm}.{move_dest(m)}" if "." in frm else f"{frm}.0.{move_dest(m)}"


def encode_targets(moves: Iterable[Move]) -> str:
    """The legal moves as the page's one-tap targets: ``"key:to,to"`` items separated by
    spaces, one per card that can move (``move_key``, ``move_dest``: reserve and cell cards
    and free cells too). The engine's moves name only face-up cards, so nothing hidden is
    told."""
    out: dict[str, list[str]] = {}
    for m in moves:
        out.setdefault(move_key(m), []).append(move_dest(m))

    def order(t: str) -> tuple[int, int]:
        return (1, int(t[1:])) if t.startswith("f") else (0, int(t))

    items = []
    for k in sorted(out):
        ts = out[k]
        items.append(f"{k}:{ts[0] if len(ts) == 1 else ','.join(sorted(set(ts), key=order))}")
    return " ".join(items)


def elapsed_seconds(
    started_at: datetime | None, finished_at: datetime | None, now: datetime
) -> int:
    """The game's clock (``app.services.clock_seconds``): 0 before its first move."""
    return clock_seconds(started_at, finished_at, now)


def parse_pile_selection(text: str | None, view: PublicView) -> tuple[str, int] | None:
    """``"r0"`` -> ("reserve", 0), ``"f1"`` -> ("cell", 1) if that slot holds a card."""
    if not text or len(text) != 2 or text[0] not in "rf" or not text[1].isdigit():
        return None
    kind, k = ("reserve" if text[0] == "r" else "cell"), int(text[1])
    slots = view.reserves if kind == "reserve" else view.cells
    if not 0 <= k < len(slots) or slots[k] is None:
        return None
    return kind, k


def parse_selection(text: str | None, view: PublicView) -> tuple[int, int] | None:
    """``"3-4"`` -> (3, 4) if that card is face up in the view; otherwise None."""
    if not text:
        return None
    parts = text.split("-")
    if len(parts) != 2 or not all(p.isdigit() and len(p) <= 2 for p in parts):
        return None
    c, i = int(parts[0]), int(parts[1])
    if not 0 <= c < len(view.columns) or not 0 <= i < len(view.columns[c]):
        return None
    if view.columns[c][i] is None:
        return None
    return c, i


@dataclass(frozen=True, slots=True)
class HintView:
    short: str  # "7♦ 5→2": what the eye reads
    long: str  # the same in words, for screen readers
    move: str = ""  # "col.idx.to": the move itself, for the page to draw and play it


_NONE: frozenset[int] = frozenset()


@lru_cache(maxsize=4096)
def _card(i: int, code: str | None, selected: bool, hint_src: bool, locale: str) -> CardView:
    """The card at index ``i`` of a column (``code`` None: face down), named in ``locale``
    (the request's). Shared, never changed."""
    if code is None:
        return CardView(index=i, code=None, name=gettext("face-down card"))
    return CardView(index=i, code=code, name=card_name(code), selected=selected, hint_src=hint_src)


@lru_cache(maxsize=4096)  # a move changes one to three columns: the others are found here
def _column(
    c: int,
    col: tuple[str | None, ...],
    sel: int | None,
    hint_src: frozenset[int],
    dst: bool,
    locale: str,
) -> ColumnView:
    """Column ``c`` (its cards ``col``; ``sel``: the index of its selected card; ``hint_src``:
    the indexes of its cards a hint moves; ``dst``: a hint's target), its label in
    ``locale`` (the request's). Shared, never changed."""
    down = col.count(None)
    if col:
        top = col[-1]
        label = ngettext("Column %(c)d: %(n)d card", "Column %(c)d: %(n)d cards", len(col)) % {
            "c": c + 1,
            "n": len(col),
        }
        if down:
            label += gettext(", {n} face down").format(n=down)
        if top:
            label += gettext(", {card} on top").format(card=card_name(top))
    else:
        label = gettext("Column {n}: empty").format(n=c + 1)
    return ColumnView(
        index=c,
        codes=col,
        label=label,
        offsets=max(1, len(col) - 1),
        hint_dst=dst,
        down=down,
        up=max(len(col) - 1 - down, 1),
        sel=sel,
        hint_src=hint_src,
        key=(c, col, sel, hint_src, dst, locale),
    )


def board_view(
    *,
    game_id: str,
    variant: str,
    deal_number: int | None,
    version: int,
    view: PublicView,
    stuck: bool,
    can_deal: bool,
    started_at: datetime | None,
    finished_at: datetime | None,
    csrf_token: str,
    base_url: str,
    now: datetime | None = None,
    sel: tuple[int, int] | None = None,
    hints: list[Move] | None = None,
    sel_pile: tuple[str, int] | None = None,
    moves: Iterable[Move] = (),
    only: Collection[int] | None = None,
) -> BoardView:
    """The board of ``view``; ``only``: the indexes of the only columns it needs (an htmx
    action's answer sends just the columns the action changed), else all."""
    v = get_variant(variant) if variant in ALL_VARIANTS else None
    hint_src: set[tuple[int, int]] = set()
    hint_dst: set[int] = set()
    pile_src: set[tuple[str, int]] = set()
    cell_dst: set[int] = set()
    for m in hints or ():
        if m.from_pile == "column":
            hint_src.add((m.from_column, m.from_index))
        else:
            pile_src.add((m.from_pile, m.from_column))
        if m.to_pile == "column":
            hint_dst.add(m.to_column)
        elif m.to_pile == "cell":
            cell_dst.add(m.to_column)

    def piles(kind: str, codes: list[str | None]) -> list[PileView]:
        if not codes:
            return []
        word = gettext("Reserve card") if kind == "reserve" else gettext("Free cell")
        empty = gettext("empty")
        out = []
        for k, code in enumerate(codes):
            name = card_name(code) if code else empty
            label = gettext("{pile} {n}: {card}").format(pile=word, n=k + 1, card=name)
            out.append(
                PileView(
                    kind=kind,
                    index=k,
                    code=code,
                    name=name,
                    label=label,
                    selected=sel_pile == (kind, k),
                    hint_src=(kind, k) in pile_src,
                    hint_dst=kind == "cell" and k in cell_dst,
                )
            )
        return out

    locale = current_locale.get()
    columns = [
        _column(
            c,
            tuple(col),
            sel[1] if sel is not None and sel[0] == c else None,
            frozenset(i for (k, i) in hint_src if k == c) if hint_src else _NONE,
            c in hint_dst,
            locale,
        )
        for c, col in enumerate(view.columns)
        if only is None or c in only
    ]
    elapsed = elapsed_seconds(started_at, finished_at, now or datetime.now(UTC))
    selected_label = None
    if sel_pile is not None:
        slots = view.reserves if sel_pile[0] == "reserve" else view.cells
        code = slots[sel_pile[1]]
        selected_label = gettext(
            "Picked up the {card} from {pile} {n}: now choose the column it goes to."
        ).format(card=card_name(code or ""), pile=pile_word(sel_pile[0]), n=sel_pile[1] + 1)
    elif sel is not None:
        code = view.columns[sel[0]][sel[1]]
        rest = with_rest_held(len(view.columns[sel[0]]) - sel[1])
        selected_label = gettext(
            "Picked up the {card}{rest}: now choose the column it goes to."
        ).format(card=card_name(code or ""), rest=rest)
    completed = list(view.completed)
    return BoardView(
        id=game_id,
        variant=variant,
        variant_title=gettext(v.title) if v else variant,
        empty_any=bool(v and v.empty_accepts_any),
        deal_number=deal_number,
        share_url=f"{base_url.rstrip('/')}/deal/{deal_number}" if deal_number else None,
        version=version,
        status=view.status,
        won=view.status == "won",
        stuck=stuck and view.status != "won",
        moves=view.moves,
        stock=view.stock,
        can_deal=can_deal,
        can_undo=view.can_undo,
        can_redo=view.can_redo,
        completed=completed,
        completed_slots=[*completed, *[None] * (view.runs_needed - len(completed))],
        columns=columns,
        tallest=max(map(len, view.columns), default=0),
        elapsed=elapsed,
        elapsed_text=format_seconds(elapsed),
        csrf_token=csrf_token,
        started=started_at is not None,
        sel=sel,
        selected_label=selected_label,
        hints=[
            HintView(
                short_move(view, m),
                describe_move(view, m),
                move_code(m),
            )
            for m in hints
        ]
        if hints is not None
        else None,
        hint_deal=hints is not None and can_deal,
        reserves=piles("reserve", view.reserves),
        cells=piles("cell", view.cells),
        sel_pile=sel_pile,
        runs_needed=view.runs_needed,
        ncols=len(view.columns),
        decks=v.decks if v else 1,
        has_stock=bool(v.stock) if v else True,
        targets=encode_targets(moves),
    )
