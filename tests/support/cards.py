"""Build positions for rule tests without playing up to them."""

from __future__ import annotations

import json

from app.engine import Game, parse_card
from app.engine.cards import DECK
from app.engine.game import SNAPSHOT_VERSION


def make_game(
    columns: dict[int, str],
    *,
    hidden: dict[int, int] | None = None,
    stock: str = "",
    completed: str = "",
    variant: str = "scorpion",
    filler_column: int = 6,
) -> Game:
    """A game whose columns hold the given cards (codes, deepest first).

    Every card not named anywhere is laid face down at the bottom of ``filler_column``
    (under the cards named for it), so it changes nothing at the open end; when nothing is
    named for that column, its top filler card is face up, as an exposed card always is. ``hidden``
    gives how many of a column's named cards (deepest first) are face down.
    ``completed`` lists suit letters of runs already removed.
    """
    cols: list[list[int]] = [[] for _ in range(7)]
    hid = [0] * 7
    for c, text in columns.items():
        cols[c] = [parse_card(t) for t in text.split()]
    for c, n in (hidden or {}).items():
        hid[c] = n
    stock_cards = [parse_card(t) for t in stock.split()]
    done = ["SHDC".index(s) for s in completed.split()]
    used = {card for col in cols for card in col} | set(stock_cards)
    used |= {s * 13 + r for s in done for r in range(13)}
    rest = [card for card in DECK if card not in used]
    cols[filler_column] = rest + cols[filler_column]
    hid[filler_column] += len(rest)
    if len(cols[filler_column]) == hid[filler_column]:
        hid[filler_column] -= 1  # an exposed card is always face up in a real game
    snap = {
        "v": SNAPSHOT_VERSION,
        "variant": variant,
        "cols": cols,
        "hidden": hid,
        "stock": stock_cards,
        "done": done,
        "hist": [],
        "fut": [],
    }
    return Game.from_snapshot(json.dumps(snap))


def codes(game: Game, column: int) -> list[str | None]:
    return game.public_view().columns[column]


def make_family_game(
    variant: str,
    columns: dict[int, str],
    *,
    hidden: dict[int, int] | None = None,
    stock: str = "",
    reserves: list[str | None] | None = None,
    cells: list[str | None] | None = None,
    filler_column: int | None = None,
) -> Game:
    """``make_game`` for any variant of the family: columns, reserves and cells by card code.

    With two or three decks a code named twice is two copies of the card. Every card not named
    lies face down at the bottom of ``filler_column`` (by default the last column).
    """
    from app.engine import get_variant

    v = get_variant(variant)
    copies = [0] * 52

    def take(text: str) -> int:
        card = parse_card(text)
        physical = card + 52 * copies[card]
        copies[card] += 1
        assert copies[card] <= v.decks, f"{text} named more often than there are decks"
        return physical

    cols: list[list[int]] = [[] for _ in range(v.columns)]
    hid = [0] * v.columns
    for c, text in columns.items():
        cols[c] = [take(t) for t in text.split()]
    for c, n in (hidden or {}).items():
        hid[c] = n
    stock_cards = [take(t) for t in stock.split()]
    res = [-1 if t is None else take(t) for t in (reserves or [None] * v.reserves)]
    cel = [-1 if t is None else take(t) for t in (cells or [None] * v.cells)]
    rest = [card + 52 * d for card in range(52) for d in range(copies[card], v.decks)]
    f = v.columns - 1 if filler_column is None else filler_column
    cols[f] = rest + cols[f]
    hid[f] += len(rest)
    if cols[f] and len(cols[f]) == hid[f]:
        hid[f] -= 1
    snap: dict[str, object] = {
        "v": SNAPSHOT_VERSION,
        "variant": variant,
        "cols": cols,
        "hidden": hid,
        "stock": stock_cards,
        "done": [],
        "hist": [],
        "fut": [],
    }
    if v.reserves:
        snap["res"] = res
    if v.cells:
        snap["cells"] = cel
    if v.decks > 1 or v.alternate:
        snap["runs"] = []
    return Game.from_snapshot(json.dumps(snap))
