"""The deck's settings in the services (issue 33): ``update_settings`` keeps the four-colour
deck, the theme and larger cards, refuses an unknown theme before writing anything, and
``get_display`` reads them (the defaults for a player with no settings)."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from app import services
from app.db.models import Player
from app.services import Display, InvalidRequest


def new_player() -> str:
    return uuid.uuid4().hex


def test_the_deck_is_kept_with_the_other_settings(db: Session) -> None:
    player = new_player()
    assert services.get_display(db, player) == Display()
    prefs = services.update_settings(db, player, four_colour=True, theme="dark")
    assert (prefs.four_colour, prefs.theme, prefs.large_cards) == (True, "dark", False)
    assert prefs.save_games and prefs.record_stats  # untouched
    assert services.get_display(db, player) == Display(four_colour=True, theme="dark")
    services.update_settings(db, player, record_stats=False)  # the deck stays
    assert services.get_display(db, player) == Display(four_colour=True, theme="dark")
    services.update_settings(db, player, large_cards=True, theme="light", four_colour=False)
    assert services.get_display(db, player) == Display(theme="light", large_cards=True)
    assert services.get_settings(db, player).display == Display(theme="light", large_cards=True)
    assert services.get_settings(db, player).record_stats is False


@pytest.mark.parametrize("theme", ["purple", "", "Dark", "auto " * 3])
def test_an_unknown_theme_is_refused_and_nothing_is_written(db: Session, theme: str) -> None:
    player = new_player()
    with pytest.raises(InvalidRequest, match="Unknown theme.*Nothing changed"):
        services.update_settings(db, player, theme=theme, four_colour=True)
    assert db.execute(select(Player.id).where(Player.id == player)).first() is None
    db.rollback()
    services.update_settings(db, player, theme="dark")
    with pytest.raises(InvalidRequest):
        services.update_settings(db, player, theme=theme, four_colour=True)
    assert services.get_display(db, player) == Display(theme="dark")
