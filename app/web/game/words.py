"""Cards and moves in words, for the pages and screen readers: card names, the time, a hint
("the seven of hearts from column 2 onto the eight of hearts in column 5"), and what an action
did (``describe_change``: the move, a revealed card, a removed suit, the win). Built only from
``PublicView``: nothing hidden is ever named. Every word is in the request's language
(``app.i18n``: ``card_name("7H")`` is "seven of hearts" or "红心7")."""

from __future__ import annotations

from functools import lru_cache

from app.engine import Move, PublicView
from app.i18n import N_, current_locale, gettext, ngettext, pgettext
from app.i18n import format_duration as format_seconds

__all__ = ["format_seconds"]

SUIT_NAMES = {"S": N_("spades"), "H": N_("hearts"), "D": N_("diamonds"), "C": N_("clubs")}
RANK_LABELS = {"T": "10"}
RANK_WORDS = {
    "A": N_("ace"),
    "2": N_("two"),
    "3": N_("three"),
    "4": N_("four"),
    "5": N_("five"),
    "6": N_("six"),
    "7": N_("seven"),
    "8": N_("eight"),
    "9": N_("nine"),
    "T": N_("ten"),
    "J": N_("jack"),
    "Q": N_("queen"),
    "K": N_("king"),
}


def rank_label(rank: str) -> str:
    return RANK_LABELS.get(rank, rank)


def suit_name(suit: str) -> str:
    return gettext(SUIT_NAMES[suit])


@lru_cache(maxsize=256)
def _card_name(code: str, locale: str) -> str:
    # TRANSLATORS: a card's name, e.g. "seven of hearts"; {rank} and {suit} are translated.
    return gettext("{rank} of {suit}").format(
        rank=gettext(RANK_WORDS[code[0]]), suit=gettext(SUIT_NAMES[code[1]])
    )


def card_name(code: str) -> str:
    """``"7H"`` -> ``"seven of hearts"`` (only ever called with a face-up card)."""
    return _card_name(code, current_locale.get())


SUIT_SYMBOLS = {"S": "\u2660\ufe0e", "H": "\u2665\ufe0e", "D": "\u2666\ufe0e", "C": "\u2663\ufe0e"}


def with_rest(n: int) -> str:
    """ " and the 3 cards on it" for a group of ``n`` cards led by the one picked up."""
    if n <= 1:
        return ""
    return ngettext(" and the card on it", " and the %(n)d cards on it", n - 1) % {"n": n - 1}


def with_rest_held(n: int) -> str:
    """ " with the 3 cards on it": what comes along with a picked-up card."""
    if n <= 1:
        return ""
    return ngettext(" with the card on it", " with the %(n)d cards on it", n - 1) % {"n": n - 1}


def pile_short(kind: str) -> str:
    """A pile in a hint's short form ("R1": reserve card 1, "F2": free cell 2; a column is
    its number alone)."""
    if kind == "reserve":
        return pgettext("a hint's short name of a reserve card", "R")
    if kind == "cell":
        return pgettext("a hint's short name of a free cell", "F")
    return ""


PILE_WORDS = {"reserve": N_("reserve card"), "cell": N_("free cell")}

# What the play page says when a form's 303 brought the player to it (``see_other_saying``, issue
# 41: every action's answer is seen): the restart, a new game, the daily deal, a challenge.
SAID = {
    "restart": N_("Restarted: the deal is back at its opening layout."),
    "new": N_("New game: a fresh deal is laid out."),
    "daily": N_("Today's daily deal: every player gets these same cards today."),
    "again": N_("This deal again, unranked: your first result stands."),
    "challenge": N_("The challenge's deal: your game is compared with theirs, move for move."),
}


def pile_word(kind: str) -> str:
    return gettext(PILE_WORDS[kind])


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
    src = pile_short(move.from_pile) + str(move.from_column + 1)
    dst = pile_short(move.to_pile) + str(move.to_column + 1)
    return f"{label} {src}\u2192{dst}"


def _pile_where(move: Move) -> str:
    if move.from_pile == "column":
        return gettext("column {n}").format(n=move.from_column + 1)
    return gettext("{pile} {n}").format(pile=pile_word(move.from_pile), n=move.from_column + 1)


def describe_move(view: PublicView, move: Move) -> str:
    """A hint in words, e.g. "seven of hearts (column 2) onto the eight of hearts (column 5)"."""
    code = moved_code(view, move)
    what = card_name(code) if code else gettext("card")
    to = move.to_column + 1
    if move.from_pile != "column" or move.to_pile != "column":
        if move.to_pile == "cell":
            return gettext("the {card} from {where} into free cell {n}").format(
                card=what, where=_pile_where(move), n=to
            )
        dst = view.columns[move.to_column]
        if dst and dst[-1]:
            where = gettext("onto the {card} in column {n}").format(card=card_name(dst[-1]), n=to)
        else:
            where = gettext("into the empty column {n}").format(n=to)
        return gettext("the {card} from {where} {to}").format(
            card=what, where=_pile_where(move), to=where
        )
    rest = with_rest(len(view.columns[move.from_column]) - move.from_index)
    dst = view.columns[move.to_column]
    if dst:
        top = dst[-1]
        if top:
            where = gettext("onto the {card} in column {n}").format(card=card_name(top), n=to)
        else:
            where = gettext("onto the card in column {n}").format(n=to)
    else:
        where = gettext("into the empty column {n}").format(n=to)
    return gettext("the {card}{rest} from column {n} {to}").format(
        card=what, rest=rest, n=move.from_column + 1, to=where
    )


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
        parts.append(gettext("Moved {move}.").format(move=describe_move(before, move)))
    elif action == "move" and before is not None and move is not None:
        code = before.columns[move.from_column][move.from_index]
        rest = with_rest(len(before.columns[move.from_column]) - move.from_index)
        parts.append(
            gettext("Moved the {card}{rest} from column {n} to column {to}.").format(
                card=card_name(code or ""),
                rest=rest,
                n=move.from_column + 1,
                to=move.to_column + 1,
            )
        )
    elif action == "deal":
        n = before.stock if before is not None else 3
        dealt = [c[-1] for c in after.columns[:n] if c and c[-1]]
        names = gettext(", ").join(card_name(x) for x in dealt)
        cols = gettext("{first} and {last}").format(
            first=gettext(", ").join(str(k + 1) for k in range(n - 1)), last=n
        )
        if names:
            parts.append(
                gettext("Dealt the stock onto columns {columns}: {cards}.").format(
                    columns=cols, cards=names
                )
            )
        else:
            parts.append(gettext("Dealt the stock onto columns {columns}.").format(columns=cols))
    elif action == "undo":
        parts.append(
            ngettext("Undone. %(n)d move taken.", "Undone. %(n)d moves taken.", after.moves)
            % {"n": after.moves}
        )
    elif action == "redo":
        parts.append(
            ngettext("Redone. %(n)d move taken.", "Redone. %(n)d moves taken.", after.moves)
            % {"n": after.moves}
        )
    if before is not None:
        if action != "undo":
            for c, (old, new) in enumerate(zip(before.columns, after.columns, strict=True)):
                if old == new:
                    continue
                old_down, new_down = old.count(None), new.count(None)
                if new_down < old_down and len(new) > new_down and new[new_down]:
                    turned = card_name(new[new_down] or "")
                    parts.append(
                        gettext("Turned up the {card} in column {n}.").format(card=turned, n=c + 1)
                    )
        for s in after.completed[len(before.completed) :]:
            parts.append(gettext("The {suit} are complete and removed.").format(suit=suit_name(s)))
    if after.status == "won":
        if after.runs_needed == 4:
            parts.append(gettext("All four suits are complete: you won!"))
        else:
            parts.append(gettext("All {n} runs are complete: you won!").format(n=after.runs_needed))
    return " ".join(p for p in parts if p)


def _label(code: str) -> str:
    """A card's short label, "7♥" (a hint's short form)."""
    return rank_label(code[0]) + SUIT_SYMBOLS.get(code[1], "")


def short_change(
    before: PublicView | None, after: PublicView, action: str, move: Move | None = None
) -> str:
    """What an action did in one short line for the eye (issue 41: every answer is seen and
    the board never jumps), e.g. "6♠ 1→5 · turned up A♠"; ``describe_change`` says it in
    full words for screen readers."""
    parts: list[str] = []
    if action == "move" and before is not None and move is not None:
        parts.append(short_move(before, move))
    elif action == "deal":
        n = before.stock if before is not None else 3
        dealt = [_label(c[-1]) for c in after.columns[:n] if c and c[-1]]
        parts.append(gettext("Dealt: {cards}").format(cards=" ".join(dealt)) if dealt else "")
    elif action == "undo":
        parts.append(gettext("Undone"))
    elif action == "redo":
        parts.append(gettext("Redone"))
    if before is not None:
        if action != "undo":
            for old, new in zip(before.columns, after.columns, strict=True):
                old_down, new_down = old.count(None), new.count(None)
                if old != new and new_down < old_down and len(new) > new_down and new[new_down]:
                    parts.append(
                        gettext("turned up {card}").format(card=_label(new[new_down] or ""))
                    )
        for suit in after.completed[len(before.completed) :]:
            parts.append(gettext("{suit} complete").format(suit=SUIT_SYMBOLS.get(suit, suit)))
    if after.status == "won":
        parts.append(gettext("You won!"))
    return " · ".join(p for p in parts if p)
