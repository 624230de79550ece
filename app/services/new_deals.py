"""Choosing the deal of a new game: the variant's name checked, a deal number or a deal
string read (``resolve_deal``), a random deal number, or a deal from the catalog of deals the
solver proved winnable, of a difficulty (``winnable_deal``). Bad input is ``InvalidRequest``."""

from __future__ import annotations

import secrets
from typing import Any

from app.engine import (
    MAX_DEAL_NUMBER,
    MIN_DEAL_NUMBER,
    DealError,
    check_deal_number,
    deal_from_number,
    format_deal,
    get_variant,
    parse_deal,
)
from app.engine.solver import DIFFICULTIES, random_winnable_deal
from app.engine.variants import ALL_VARIANTS

from .errors import InvalidRequest


def random_deal_number() -> int:
    return MIN_DEAL_NUMBER + secrets.randbelow(MAX_DEAL_NUMBER - MIN_DEAL_NUMBER + 1)


def check_variant(variant: Any) -> str:
    if not isinstance(variant, str) or variant not in ALL_VARIANTS:
        names = ", ".join(ALL_VARIANTS)
        raise InvalidRequest(f"There is no variant called {variant!r}: choose one of {names}.")
    return variant


def resolve_deal(variant: str, deal_number: Any, deal: Any) -> tuple[int | None, str]:
    """(deal_number or None, deal string) of ``variant`` for a new game; ``InvalidRequest``
    if bad."""
    if deal_number is not None and deal is not None:
        raise InvalidRequest("Give either a deal number or a deal string, not both.")
    try:
        if deal is not None:
            return None, format_deal(parse_deal(deal, variant))
        if deal_number is None:
            deal_number = random_deal_number()
        check_deal_number(deal_number)
        return deal_number, format_deal(deal_from_number(deal_number, variant))
    except DealError as exc:
        raise InvalidRequest(exc.message) from None


def winnable_deal(variant: str, difficulty: Any) -> tuple[int, str | None]:
    """(deal number, its grade) of a random deal from ``variant``'s catalog of deals the solver
    proved winnable, of the asked ``difficulty`` (any grade when None)."""
    if difficulty is not None and difficulty not in DIFFICULTIES:
        raise InvalidRequest(
            f"There is no difficulty called {difficulty!r}: choose easy, medium or hard."
        )
    try:
        number = random_winnable_deal(variant, difficulty=difficulty)
    except LookupError:
        grade = f"{difficulty} " if difficulty else ""
        title = get_variant(variant).title
        raise InvalidRequest(
            f"There is no list of proved winnable {grade}deals for {title} yet: start a random "
            "deal, or choose a deal number."
        ) from None
    return number, difficulty
