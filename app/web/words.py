"""Cards and moves in words, for the pages and screen readers: card names, the time, a hint
("the seven of hearts from column 2 onto the eight of hearts in column 5"), and what an action
did (``describe_change``: the move, a revealed card, a removed suit, the win). Built only from
``PublicView``: nothing hidden is ever named."""

from __future__ import annotations

from app.engine import Move, PublicView, name, parse_card

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


SUIT_SYMBOLS = {"S": "\u2660\ufe0e", "H": "\u2665\ufe0e", "D": "\u2666\ufe0e", "C": "\u2663\ufe0e"}


def with_rest(n: int) -> str:
    """ " and the 3 cards on it" for a group of ``n`` cards led by the one picked up."""
    if n <= 1:
        return ""
    return " and the card on it" if n == 2 else f" and the {n - 1} cards on it"


PILE_SHORT = {"column": "", "reserve": "R", "cell": "F"}
PILE_WORDS = {"reserve": "reserve card", "cell": "free cell"}


def moved_code(view: PublicView, move: Move) -> str | None:
    """The card a move picks up (from a column, a reserve or a cell) in ``view``."""
    if move.from_pile == "reserve":
        return view.reserves[move.from_column]
    if move.from_pile == "cell":
        return view.cells[move.from_column]
    return view.columns[move.from_column][move.from_index]


def short_move(view: PublicView, move: Move) -> str:
    code = moved_code(view, move) or "?"
    label = rank_label(code[0]) + SUIT_SYMBOLS.get(code[1], "")
    src = PILE_SHORT[move.from_pile] + str(move.from_column + 1)
    dst = PILE_SHORT[move.to_pile] + str(move.to_column + 1)
    return f"{label} {src}\u2192{dst}"


def _pile_where(move: Move) -> str:
    if move.from_pile == "column":
        return f"column {move.from_column + 1}"
    return f"{PILE_WORDS[move.from_pile]} {move.from_column + 1}"


def describe_move(view: PublicView, move: Move) -> str:
    """A hint in words, e.g. "seven of hearts (column 2) onto the eight of hearts (column 5)"."""
    code = moved_code(view, move)
    what = card_name(code) if code else "card"
    if move.from_pile != "column" or move.to_pile != "column":
        if move.to_pile == "cell":
            return f"the {what} from {_pile_where(move)} into free cell {move.to_column + 1}"
        dst = view.columns[move.to_column]
        if dst and dst[-1]:
            where = f"onto the {card_name(dst[-1])} in column {move.to_column + 1}"
        else:
            where = f"into the empty column {move.to_column + 1}"
        return f"the {what} from {_pile_where(move)} {where}"
    rest = with_rest(len(view.columns[move.from_column]) - move.from_index)
    dst = view.columns[move.to_column]
    if dst:
        top = dst[-1]
        onto = f"onto the {card_name(top)}" if top else "onto the card"
        where = f"{onto} in column {move.to_column + 1}"
    else:
        where = f"into the empty column {move.to_column + 1}"
    return f"the {what}{rest} from column {move.from_column + 1} {where}"


def describe_change(
    before: PublicView | None, after: PublicView, action: str, move: Move | None = None
) -> str:
    """What an action did, in words: the move, reveals, removed suits, the win."""
    parts: list[str] = []
    if (
        action == "move"
        and before is not None
        and move is not None
        and (move.from_pile != "column" or move.to_pile != "column")
    ):
        parts.append("Moved " + describe_move(before, move) + ".")
    elif action == "move" and before is not None and move is not None:
        code = before.columns[move.from_column][move.from_index]
        rest = with_rest(len(before.columns[move.from_column]) - move.from_index)
        parts.append(
            f"Moved the {card_name(code or '')}{rest} from column {move.from_column + 1} "
            f"to column {move.to_column + 1}."
        )
    elif action == "deal":
        n = before.stock if before is not None else 3
        dealt = [c[-1] for c in after.columns[:n] if c and c[-1]]
        names = ", ".join(card_name(x) for x in dealt)
        cols = ", ".join(str(k + 1) for k in range(n - 1)) + f" and {n}"
        parts.append(f"Dealt the stock onto columns {cols}{': ' + names if names else ''}.")
    elif action == "undo":
        parts.append(f"Undone. {after.moves} move{'s' if after.moves != 1 else ''} taken.")
    elif action == "redo":
        parts.append(f"Redone. {after.moves} move{'s' if after.moves != 1 else ''} taken.")
    if before is not None:
        if action != "undo":
            for c, (old, new) in enumerate(zip(before.columns, after.columns, strict=True)):
                if old == new:
                    continue
                old_down, new_down = old.count(None), new.count(None)
                if new_down < old_down and len(new) > new_down and new[new_down]:
                    turned = card_name(new[new_down] or "")
                    parts.append(f"Turned up the {turned} in column {c + 1}.")
        for s in after.completed[len(before.completed) :]:
            parts.append(f"The {SUIT_NAMES[s]} are complete and removed.")
    if after.status == "won":
        if after.runs_needed == 4:
            parts.append("All four suits are complete: you won!")
        else:
            parts.append(f"All {after.runs_needed} runs are complete: you won!")
    return " ".join(p for p in parts if p)
