"""Catalogs of deals proved winnable, shipped with the app, and the compact line format.

A catalog is a JSON file ``catalog/<variant>.json`` beside this module::

    {"variant": "scorpion", "format": 1, "scanned": [[1, 2001]],
     "deals": {"12": "<line>", ...}}

``scanned`` lists the half-open ranges of deal numbers already examined (so a build can be
resumed); ``deals`` maps every deal number proved winnable to its winning line, verified
through the engine when it was stored.

Optional keys, written by ``python -m app.engine.solver grade`` (``grading.py``,
docs/difficulty.md) and ignored by readers that do not know them (the format stays 1)::

    "grades": {"12": "easy", ...},          # "easy" | "medium" | "hard" per graded deal
    "measures": {"12": [0.75, 0.5, 1.0], ...},  # greedy, random win rates; opening share
    "grading": {"method": ..., "thresholds": [low, high], "evidence": {...}, ...}

A deal added to ``deals`` after the last grading has no grade until ``grade`` runs again.

A line is written compactly: a move ``("move", a, i, b)`` is three characters: column ``a``,
index ``i`` and column ``b``, each one of ``0-9a-zA-Z`` (an index of 62 or more, possible with
three decks, is ``~`` and two such base-62 digits) (columns 10-12 of the thirteen-column
game are ``a``-``c``); the deal is ``-``. A move of the family's piles (``PileMove``,
six-element actions) is a mark then three such characters: ``*kb`` reserve ``k`` onto column
``b``, ``+kb`` cell ``k`` onto column ``b``, ``>aik`` the card at index ``i`` (the exposed one)
of column ``a`` into cell ``k``. Lines of the plain variants are unchanged.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..game import Action
from ..variants import get_variant

CATALOG_DIR = Path(__file__).with_name("catalog")
CATALOG_FORMAT = 1
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


_PILE_MARKS = {("reserve", "column"): "*", ("cell", "column"): "+", ("column", "cell"): ">"}
_MARK_PILES = {mark: piles for piles, mark in _PILE_MARKS.items()}


def _index(i: int) -> str:
    """An index in a column: one character below 62, else ``~`` and two base-62 digits."""
    if i < len(_DIGITS):
        return _DIGITS[i]
    return f"~{_DIGITS[i // len(_DIGITS)]}{_DIGITS[i % len(_DIGITS)]}"


def encode_line(line: Iterable[Action]) -> str:
    """The compact text of a line of actions (see the module docstring)."""
    out: list[str] = []
    for action in line:
        if action[0] == "deal":
            out.append("-")
        elif action[0] == "move" and len(action) == 4:
            _, a, i, b = action[:4]
            out.append(f"{_DIGITS[int(a)]}{_index(int(i))}{_DIGITS[int(b)]}")
        elif action[0] == "move" and len(action) == 6 and (action[4], action[5]) in _PILE_MARKS:
            _, a, i, b, fp, tp = action
            mark = _PILE_MARKS[(str(fp), str(tp))]
            middle = _index(int(i)) if mark == ">" else ""
            out.append(f"{mark}{_DIGITS[int(a)]}{middle}{_DIGITS[int(b)]}")
        else:
            raise ValueError(
                f"a solver line holds moves and the deal, not {action[0]!r} {action[1:]}"
            )
    return "".join(out)


def decode_line(text: str) -> list[Action]:
    """The actions of a compact line (inverse of ``encode_line``)."""
    line: list[Action] = []
    k = 0
    while k < len(text):
        if text[k] == "-":
            line.append(("deal",))
            k += 1
            continue
        mark = text[k] if text[k] in _MARK_PILES else ""
        # a column move: three characters; "*kb" and "+kb": three; ">aik": four (an index of
        # 62 or more takes three characters, "~" and two digits, instead of one)
        size = 4 if mark == ">" else 3
        wide = mark != "*" and mark != "+" and text[k + 1 + bool(mark) : k + 2 + bool(mark)] == "~"
        if wide:
            size += 2
        chunk = text[k + 1 : k + size] if mark else text[k : k + size]
        if len(chunk) != size - (1 if mark else 0) or any(
            ch not in _DIGITS for ch in chunk.replace("~", "", 1 if wide else 0)
        ):
            raise ValueError(f"bad line text at character {k}: {text[k : k + size]!r}")
        if wide:
            t = chunk.index("~")
            index = _DIGITS.index(chunk[t + 1]) * len(_DIGITS) + _DIGITS.index(chunk[t + 2])
            chunk = chunk[:t] + "0" + chunk[t + 3 :]
        nums = [_DIGITS.index(ch) for ch in chunk]
        if wide:
            nums[1] = index
        if not mark:
            line.append(("move", nums[0], nums[1], nums[2]))
        elif mark == ">":
            line.append(("move", nums[0], nums[1], nums[2], "column", "cell"))
        else:
            fp, tp = _MARK_PILES[mark]
            line.append(("move", nums[0], 0, nums[1], fp, tp))
        k += size
    return line


def catalog_path(variant: str) -> Path:
    return CATALOG_DIR / f"{variant}.json"


def empty_catalog(variant: str) -> dict[str, Any]:
    return {"variant": variant, "format": CATALOG_FORMAT, "scanned": [], "deals": {}}


def load_catalog_file(path: Path, variant: str) -> dict[str, Any]:
    """The catalog stored at ``path`` (an empty one if there is no file)."""
    if not path.exists():
        return empty_catalog(variant)
    data: dict[str, Any] = json.loads(path.read_text())
    if data.get("variant") != variant or data.get("format") != CATALOG_FORMAT:
        raise ValueError(f"{path} is not a format-{CATALOG_FORMAT} catalog of {variant}")
    return data


def save_catalog_file(path: Path, data: dict[str, Any]) -> None:
    """Write atomically (a temporary file renamed over the old one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    deals = {str(k): data["deals"][k] for k in sorted(data["deals"], key=int)}
    body = {**data, "scanned": merge_ranges(data["scanned"]), "deals": deals}
    for key in ("grades", "measures"):
        if key in data:
            body[key] = {str(k): data[key][k] for k in sorted(data[key], key=int)}
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(body, indent=0, separators=(",", ":")) + "\n")
    os.replace(tmp, path)


def merge_ranges(ranges: Iterable[list[int]]) -> list[list[int]]:
    """Merge half-open ``[lo, hi)`` ranges."""
    out: list[list[int]] = []
    for lo, hi in sorted((int(r[0]), int(r[1])) for r in ranges):
        if out and lo <= out[-1][1]:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return out


def is_scanned(ranges: list[list[int]], number: int) -> bool:
    return any(lo <= number < hi for lo, hi in ranges)


DIFFICULTIES = ("easy", "medium", "hard")


@lru_cache(maxsize=32)
def winnable_deals(variant: str, difficulty: str | None = None) -> tuple[int, ...]:
    """The deal numbers the shipped catalog of ``variant`` holds, in increasing order.

    With ``difficulty`` (``"easy"``, ``"medium"`` or ``"hard"``) only the deals of that grade
    (docs/difficulty.md); ``ValueError`` for another difficulty, ``KeyError`` for an unknown
    variant.
    """
    get_variant(variant)  # KeyError for an unknown variant
    if difficulty is not None and difficulty not in DIFFICULTIES:
        raise ValueError(f"difficulty is one of {', '.join(DIFFICULTIES)}, not {difficulty!r}")
    path = catalog_path(variant)
    if not path.exists():
        return ()
    data = load_catalog_file(path, variant)
    if difficulty is None:
        return tuple(sorted(int(k) for k in data["deals"]))
    grades = data.get("grades", {})
    return tuple(sorted(int(k) for k in data["deals"] if grades.get(k) == difficulty))


def deal_difficulty(variant: str, number: int) -> str | None:
    """The grade of a catalogued deal (``None`` if it is not catalogued or not graded)."""
    for difficulty in DIFFICULTIES:
        if number in winnable_deals(variant, difficulty):
            return difficulty
    return None


def winning_line(variant: str, number: int) -> list[Action] | None:
    """The stored winning line of a catalogued deal (``None`` if it is not catalogued)."""
    path = catalog_path(variant)
    if not path.exists():
        return None
    text = load_catalog_file(path, variant)["deals"].get(str(number))
    return decode_line(text) if text is not None else None


def random_winnable_deal(
    variant: str, rng: random.Random | None = None, difficulty: str | None = None
) -> int:
    """A deal number of ``variant`` proved winnable, picked at random from the catalog.

    With ``difficulty``, a deal of that grade. Raises ``LookupError`` if the variant has no
    catalog (or no deal of that grade), ``KeyError`` for an unknown variant and
    ``ValueError`` for an unknown difficulty.
    """
    deals = winnable_deals(variant, difficulty)
    if not deals:
        what = f"{difficulty} " if difficulty else ""
        raise LookupError(f"there is no catalog of {what}winnable {variant} deals")
    return (rng or random.SystemRandom()).choice(deals)
