"""What the HTML pages show of a game, built only from ``PublicView`` (never from the engine).

``board_view`` turns a service ``GameState`` into plain data for ``templates/play.html``;
``describe_change`` compares two public views and says, in words a screen reader can read
out, what an action did (the move, a revealed card, a removed suit, the win).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from markupsafe import Markup

from app.engine import VARIANTS, Move, PublicView, get_variant, name, parse_card

SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
RANK_LABELS = {"T": "10"}


def rank_label(rank: str) -> str:
    return RANK_LABELS.get(rank, rank)


def suit_name(suit: str) -> str:
    return SUIT_NAMES[suit]


def card_name(code: str) -> str:
    """``"7H"`` -> ``"seven of hearts"`` (only ever called with a face-up card)."""
    return name(parse_card(code))


def format_seconds(seconds: int) -> str:
    seconds = max(0, int(seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


@dataclass(frozen=True, slots=True)
class CardView:
    index: int
    code: str | None  # None: face-down, nothing else is known here
    name: str
    selected: bool = False
    hint_src: bool = False


@dataclass(frozen=True, slots=True)
class ColumnView:
    index: int
    cards: list[CardView]
    label: str
    offsets: int  # fan steps the column needs (for CSS to fit it to the screen)
    hint_dst: bool = False


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
    hidden: Markup
    sel: tuple[int, int] | None = None
    selected_label: str | None = None
    hints: list[HintView] | None = None
    hint_deal: bool = False
    error: str | None = None
    notice: str | None = None
    assisted: bool = False  # the solver was asked about this game (docs/rules.md, Assistance)
    moves_made: int | None = None  # every move and deal performed, undone ones included
    # Where each face-up card may go now, for one-tap moves: "col.idx:to,to col.idx:to".
    targets: str = ""
    # A shared deal whose number stays hidden while its day runs: today's daily deal.
    daily: bool = False


def encode_targets(moves: Iterable[Move]) -> str:
    """The legal moves as the page's one-tap targets: ``"col.idx:to,to"`` items separated by
    spaces, one per card that can move (column to column moves; the engine's moves name
    only face-up cards, so nothing hidden is told)."""
    out: dict[tuple[int, int], list[int]] = {}
    for m in moves:
        if getattr(m, "from_pile", "column") != "column" or getattr(m, "to_pile", "column") != (
            "column"
        ):
            continue
        out.setdefault((m.from_column, m.from_index), []).append(m.to_column)
    return " ".join(
        f"{c}.{i}:{','.join(str(t) for t in sorted(ts))}" for (c, i), ts in sorted(out.items())
    )


def elapsed_seconds(created_at: datetime, finished_at: datetime | None, now: datetime) -> int:
    def aware(t: datetime) -> datetime:
        return t if t.tzinfo else t.replace(tzinfo=UTC)

    end = aware(finished_at) if finished_at else aware(now)
    return max(0, int((end - aware(created_at)).total_seconds()))


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


SUIT_SYMBOLS = {"S": "\u2660\ufe0e", "H": "\u2665\ufe0e", "D": "\u2666\ufe0e", "C": "\u2663\ufe0e"}


def with_rest(n: int) -> str:
    """ " and the 3 cards on it" for a group of ``n`` cards led by the one picked up."""
    if n <= 1:
        return ""
    return " and the card on it" if n == 2 else f" and the {n - 1} cards on it"


@dataclass(frozen=True, slots=True)
class HintView:
    short: str  # "7♦ 5→2": what the eye reads
    long: str  # the same in words, for screen readers
    move: str = ""  # "col.idx.to": the move itself, for the page to draw and play it


def short_move(view: PublicView, move: Move) -> str:
    code = view.columns[move.from_column][move.from_index] or "?"
    label = rank_label(code[0]) + SUIT_SYMBOLS.get(code[1], "")
    return f"{label} {move.from_column + 1}\u2192{move.to_column + 1}"


def describe_move(view: PublicView, move: Move) -> str:
    """A hint in words, e.g. "seven of hearts (column 2) onto the eight of hearts (column 5)"."""
    code = view.columns[move.from_column][move.from_index]
    what = card_name(code) if code else "card"
    rest = with_rest(len(view.columns[move.from_column]) - move.from_index)
    dst = view.columns[move.to_column]
    if dst:
        top = dst[-1]
        onto = f"onto the {card_name(top)}" if top else "onto the card"
        where = f"{onto} in column {move.to_column + 1}"
    else:
        where = f"into the empty column {move.to_column + 1}"
    return f"the {what}{rest} from column {move.from_column + 1} {where}"


def board_view(
    *,
    game_id: str,
    variant: str,
    deal_number: int | None,
    version: int,
    view: PublicView,
    stuck: bool,
    can_deal: bool,
    created_at: datetime,
    finished_at: datetime | None,
    csrf_token: str,
    base_url: str,
    now: datetime | None = None,
    sel: tuple[int, int] | None = None,
    hints: list[Move] | None = None,
    moves: Iterable[Move] = (),
) -> BoardView:
    v = get_variant(variant) if variant in VARIANTS else None
    hint_src = {(m.from_column, m.from_index) for m in hints or []}
    hint_dst = {m.to_column for m in hints or []}
    columns: list[ColumnView] = []
    for c, col in enumerate(view.columns):
        cards = []
        for i, code in enumerate(col):
            if code is None:
                cards.append(CardView(index=i, code=None, name="face-down card"))
            else:
                cards.append(
                    CardView(
                        index=i,
                        code=code,
                        name=card_name(code),
                        selected=sel == (c, i),
                        hint_src=(c, i) in hint_src,
                    )
                )
        down = sum(1 for code in col if code is None)
        if col:
            top = col[-1]
            label = (
                f"Column {c + 1}: {len(col)} card{'s' if len(col) != 1 else ''}"
                + (f", {down} face down" if down else "")
                + (f", {card_name(top)} on top" if top else "")
            )
        else:
            label = f"Column {c + 1}: empty"
        columns.append(
            ColumnView(
                index=c,
                cards=cards,
                label=label,
                offsets=max(1, len(col) - 1),
                hint_dst=c in hint_dst,
            )
        )
    elapsed = elapsed_seconds(created_at, finished_at, now or datetime.now(UTC))
    selected_label = None
    if sel is not None:
        code = view.columns[sel[0]][sel[1]]
        rest = with_rest(len(view.columns[sel[0]]) - sel[1]).replace(" and ", " with ", 1)
        selected_label = (
            f"Picked up the {card_name(code or '')}{rest}: now choose the column it goes to."
        )
    hidden = Markup(
        '<input type="hidden" name="csrf_token" value="{}">'
        '<input type="hidden" name="version" value="{}">'
    ).format(csrf_token, version)
    completed = list(view.completed)
    return BoardView(
        id=game_id,
        variant=variant,
        variant_title=v.title if v else variant,
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
        completed_slots=[*completed, *[None] * (4 - len(completed))],
        columns=columns,
        tallest=max((len(c) for c in view.columns), default=0),
        elapsed=elapsed,
        elapsed_text=format_seconds(elapsed),
        hidden=hidden,
        sel=sel,
        selected_label=selected_label,
        hints=[
            HintView(
                short_move(view, m),
                describe_move(view, m),
                f"{m.from_column}.{m.from_index}.{m.to_column}",
            )
            for m in hints
        ]
        if hints is not None
        else None,
        hint_deal=hints is not None and can_deal,
        targets=encode_targets(moves),
    )


def describe_change(
    before: PublicView | None, after: PublicView, action: str, move: Move | None = None
) -> str:
    """What an action did, in words: the move, reveals, removed suits, the win."""
    parts: list[str] = []
    if action == "move" and before is not None and move is not None:
        code = before.columns[move.from_column][move.from_index]
        rest = with_rest(len(before.columns[move.from_column]) - move.from_index)
        parts.append(
            f"Moved the {card_name(code or '')}{rest} from column {move.from_column + 1} "
            f"to column {move.to_column + 1}."
        )
    elif action == "deal":
        dealt = [c[-1] for c in after.columns[:3] if c and c[-1]]
        names = ", ".join(card_name(x) for x in dealt)
        parts.append(f"Dealt the stock onto columns 1, 2 and 3{': ' + names if names else ''}.")
    elif action == "undo":
        parts.append(f"Undone. {after.moves} move{'s' if after.moves != 1 else ''} taken.")
    elif action == "redo":
        parts.append(f"Redone. {after.moves} move{'s' if after.moves != 1 else ''} taken.")
    if before is not None:
        if action != "undo":
            for c, (old, new) in enumerate(zip(before.columns, after.columns, strict=True)):
                old_down = sum(1 for x in old if x is None)
                new_down = sum(1 for x in new if x is None)
                if new_down < old_down and len(new) > new_down and new[new_down]:
                    turned = card_name(new[new_down] or "")
                    parts.append(f"Turned up the {turned} in column {c + 1}.")
        for s in after.completed[len(before.completed) :]:
            parts.append(f"The {SUIT_NAMES[s]} are complete and removed.")
    if after.status == "won":
        parts.append("All four suits are complete: you won!")
    return " ".join(p for p in parts if p)
