"""The variants the engine plays, described as data (RULES.md, "The Scorpion family").

One engine serves them all: a variant says how many decks, how the tableau is dealt (column
heights and face-down counts), the stock, the reserves and free cells, how cards build
(same suit or alternate colours) and what an empty column accepts.

``ALL_VARIANTS`` holds the whole family in the order of RULES.md's table (the order of
``GET /api/variants``); the application serves every one of them (games, statistics, the
daily deal, challenges). ``variant_metadata()`` gives each one's public description and
``get_variant`` finds one by name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Variant:
    name: str
    title: str
    # Face-down cards at the bottom of each column in the opening layout (one per column).
    face_down: tuple[int, ...]
    # True: an empty column accepts any card or group. False: only a King or King-led group.
    empty_accepts_any: bool
    summary: str
    decks: int = 1
    # Cards dealt to each column (one entry per column).
    heights: tuple[int, ...] = (7, 7, 7, 7, 7, 7, 7)
    # Stock cards; the deal puts one on each of the first ``stock`` columns, in order.
    stock: int = 3
    # Face-up reserve cards (played to columns, never built on).
    reserves: int = 0
    # Free cells (one card each).
    cells: int = 0
    # True: the cells start full, holding the deal's reserve cards (How They Run).
    cells_start_full: bool = False
    # True: build in alternate colours; a run is K..A in alternate colours (suits may mix).
    alternate: bool = False
    # One line for a variant picker.
    description: str = ""

    @property
    def id(self) -> str:
        return self.name

    @property
    def columns(self) -> int:
        return len(self.heights)

    @property
    def runs_needed(self) -> int:
        """Removed runs that win the game: every card leaves in runs of thirteen."""
        return 4 * self.decks

    @property
    def cards(self) -> int:
        return 52 * self.decks

    @property
    def dealt_reserves(self) -> int:
        """Cards the deal string lists after the columns: reserves, or the cells that start full."""
        return self.reserves + (self.cells if self.cells_start_full else 0)

    @property
    def plain(self) -> bool:
        """Seven columns, one deck, same-suit building, no reserve or cell (the first three)."""
        return (
            self.decks == 1
            and self.columns == 7
            and not self.reserves
            and not self.cells
            and not self.alternate
            and self.stock == 3
        )

    def metadata(self) -> dict[str, Any]:
        """The public description (``GET /api/variants`` plus a picker's one-liner)."""
        return {
            "id": self.name,
            "name": self.title,
            "decks": self.decks,
            "columns": self.columns,
            "stock": self.stock,
            "reserves": self.reserves,
            "cells": self.cells,
            "runs_needed": self.runs_needed,
            "description": self.description,
        }


# Parts of the opening layouts that several variants share: face-down counts by column,
# and the ten columns of five of the Three Blind Mice family.
_FIRST_FOUR_OF_SEVEN = (3, 3, 3, 3, 0, 0, 0)
_FIRST_THREE_OF_SEVEN = (3, 3, 3, 0, 0, 0, 0)
_LAST_THREE_OF_TEN = (0, 0, 0, 0, 0, 0, 0, 3, 3, 3)
_TEN_FIVE = (5,) * 10

# Each variant's summary (the rules page) and one line for a variant picker, by name.
_SUMMARIES = {
    "scorpion": "The classic game. The three deepest cards of the first four columns are dealt "
    "face down; an empty column accepts only a King or a group led by a King.",
    "scorpion-ii": "As Scorpion, but only the first three columns hold face-down cards (three "
    "each), so more of the layout is known from the start.",
    "wasp": "As Scorpion, but an empty column accepts any card or group, not only a King: an "
    "easier game.",
    "wasp-ii": "As Wasp (an empty column accepts any card or group), with face-down cards only "
    "in the first three columns.",
    "scorpion-tail": "As Scorpion, but cards build in alternate colours: a card lands on the "
    "next higher card of the other colour, and a run is King down to Ace in alternate colours.",
    "scorpion-head": "Columns 1-3 hold eight cards, columns 4-7 seven with the four deepest "
    "face down; there is no stock, but four free cells each hold one card.",
    "three-blind-mice": "Ten columns of five cards, the three deepest of columns 8-10 face "
    "down, and two face-up reserve cards that may be played onto the tableau.",
    "farmers-wife": "Three Blind Mice built in alternate colours: a card lands on the next "
    "higher card of the other colour, and a run is King down to Ace in alternate colours.",
    "how-they-run": "Three Blind Mice whose two reserve cards are free cells that start full: "
    "once played out, each cell may hold any exposed card.",
    "double-scorpion": "Two decks in ten columns of ten, the four deepest cards of columns 1-5 "
    "face down; the four stock cards go to columns 1-4. Eight runs win.",
    "triple-scorpion": "Three decks in thirteen columns of twelve, the five deepest cards of "
    "columns 1-5 face down, no stock. Twelve runs win.",
}
_DESCRIPTIONS = {
    "scorpion": "The classic: build down in suit, free the face-down cards, four runs win.",
    "scorpion-ii": "Scorpion with face-down cards only in the first three columns.",
    "wasp": "Scorpion where an empty column takes any card or group: easier.",
    "wasp-ii": "Wasp with face-down cards only in the first three columns: the easiest.",
    "scorpion-tail": "Scorpion built in alternate colours: runs are K to A, red and black.",
    "scorpion-head": "No stock, four free cells; the last four columns hide four cards each.",
    "three-blind-mice": "Ten columns of five and two reserve cards to play out; no stock.",
    "farmers-wife": "Three Blind Mice built in alternate colours.",
    "how-they-run": "Three Blind Mice whose two reserve cards become free cells.",
    "double-scorpion": "Two decks, ten columns, a four-card stock; eight runs win.",
    "triple-scorpion": "Three decks, thirteen columns, no stock; twelve runs win.",
}


def _variant(
    name: str, title: str, face_down: tuple[int, ...], empty_accepts_any: bool = False, **rules: Any
) -> Variant:
    """A variant whose text is in the tables above; ``rules``: the ``Variant`` fields that
    differ from the classic game's defaults."""
    summary, description = _SUMMARIES[name], _DESCRIPTIONS[name]
    return Variant(
        name, title, face_down, empty_accepts_any, summary, description=description, **rules
    )


SCORPION = _variant("scorpion", "Scorpion", _FIRST_FOUR_OF_SEVEN)
SCORPION_II = _variant("scorpion-ii", "Scorpion II", _FIRST_THREE_OF_SEVEN)
WASP = _variant("wasp", "Wasp", _FIRST_FOUR_OF_SEVEN, empty_accepts_any=True)
WASP_II = _variant("wasp-ii", "Wasp II", _FIRST_THREE_OF_SEVEN, empty_accepts_any=True)
SCORPION_TAIL = _variant("scorpion-tail", "Scorpion Tail", _FIRST_FOUR_OF_SEVEN, alternate=True)
SCORPION_HEAD = _variant(
    "scorpion-head",
    "Scorpion Head",
    (0, 0, 0, 4, 4, 4, 4),
    heights=(8, 8, 8, 7, 7, 7, 7),
    stock=0,
    cells=4,
)
THREE_BLIND_MICE = _variant(
    "three-blind-mice",
    "Three Blind Mice",
    _LAST_THREE_OF_TEN,
    heights=_TEN_FIVE,
    stock=0,
    reserves=2,
)
FARMERS_WIFE = _variant(
    "farmers-wife",
    "Farmer's Wife",
    _LAST_THREE_OF_TEN,
    heights=_TEN_FIVE,
    stock=0,
    reserves=2,
    alternate=True,
)
HOW_THEY_RUN = _variant(
    "how-they-run",
    "How They Run",
    _LAST_THREE_OF_TEN,
    heights=_TEN_FIVE,
    stock=0,
    cells=2,
    cells_start_full=True,
)
DOUBLE_SCORPION = _variant(
    "double-scorpion", "Double Scorpion", (4,) * 5 + (0,) * 5, decks=2, heights=(10,) * 10, stock=4
)
TRIPLE_SCORPION = _variant(
    "triple-scorpion", "Triple Scorpion", (5,) * 5 + (0,) * 8, decks=3, heights=(12,) * 13, stock=0
)

# The whole family, in the order of RULES.md's table.
ALL_VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        SCORPION,
        SCORPION_II,
        WASP,
        WASP_II,
        SCORPION_TAIL,
        SCORPION_HEAD,
        THREE_BLIND_MICE,
        FARMERS_WIFE,
        HOW_THEY_RUN,
        DOUBLE_SCORPION,
        TRIPLE_SCORPION,
    )
}
DEFAULT_VARIANT = SCORPION.name


def get_variant(name: str) -> Variant:
    """The variant called ``name`` (any of the family); ``KeyError`` for an unknown name."""
    return ALL_VARIANTS[name]


def variant_metadata() -> list[dict[str, Any]]:
    """Every variant's public description, in RULES.md table order (``GET /api/variants``)."""
    return [v.metadata() for v in ALL_VARIANTS.values()]
