"""The variants the engine plays, described as data.

One engine serves them all: a variant only says where the face-down cards lie and what
an empty column accepts.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Variant:
    name: str
    title: str
    # Face-down cards at the bottom of each of the seven columns in the opening layout.
    face_down: tuple[int, int, int, int, int, int, int]
    # True: an empty column accepts any card or group. False: only a King-led group.
    empty_accepts_any: bool
    summary: str


SCORPION = Variant(
    name="scorpion",
    title="Scorpion",
    face_down=(3, 3, 3, 3, 0, 0, 0),
    empty_accepts_any=False,
    summary=(
        "The classic game. The three deepest cards of the first four columns are dealt face "
        "down; an empty column accepts only a King or a group led by a King."
    ),
)

SCORPION_II = Variant(
    name="scorpion-ii",
    title="Scorpion II",
    face_down=(3, 3, 3, 0, 0, 0, 0),
    empty_accepts_any=False,
    summary=(
        "As Scorpion, but only the first three columns hold face-down cards (three each), "
        "so more of the layout is known from the start."
    ),
)

WASP = Variant(
    name="wasp",
    title="Wasp",
    face_down=(3, 3, 3, 3, 0, 0, 0),
    empty_accepts_any=True,
    summary=(
        "As Scorpion, but an empty column accepts any card or group, not only a King: "
        "an easier game."
    ),
)

VARIANTS: dict[str, Variant] = {v.name: v for v in (SCORPION, SCORPION_II, WASP)}
DEFAULT_VARIANT = SCORPION.name


def get_variant(name: str) -> Variant:
    """The variant called ``name``; ``KeyError`` for an unknown name."""
    return VARIANTS[name]
