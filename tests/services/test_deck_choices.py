"""Issue 41 item 7: the card back, the table felt and the sounds are kept with the player's
other deck settings (both databases), refused when unknown, and travel in the data file;
a data file made before them still imports (today's deck)."""

from __future__ import annotations

import json
import uuid

import pytest
from sqlalchemy.orm import Session

from app import services
from app.config import get_settings
from app.services import BACKS, FELTS, InvalidRequest
from app.services.portability import export_player_data, import_player_data, signature


def new_player() -> str:
    return uuid.uuid4().hex


def test_back_felt_and_sounds_round_trip(db: Session) -> None:
    player = new_player()
    assert services.get_settings(db, player).display == services.Display()
    services.update_settings(db, player, four_colour=True)
    for back in BACKS:
        for felt in FELTS:
            services.update_settings(db, player, card_back=back, felt=felt, sounds=True)
            shown = services.get_display(db, player)
            assert (shown.card_back, shown.felt, shown.sounds) == (back, felt, True)
            assert shown.four_colour is True  # the other deck settings stay
    services.update_settings(db, player, sounds=False)
    prefs = services.get_settings(db, player)
    assert (prefs.card_back, prefs.felt, prefs.sounds) == (BACKS[-1], FELTS[-1], False)
    assert prefs.display == services.get_display(db, player)


@pytest.mark.parametrize(
    "change", [{"card_back": "purple"}, {"card_back": ""}, {"felt": "Blue"}, {"felt": "x" * 40}]
)
def test_an_unknown_back_or_felt_is_refused_and_nothing_changes(
    db: Session, change: dict[str, str]
) -> None:
    player = new_player()
    services.update_settings(db, player, card_back="red", felt="grey", sounds=True)
    with pytest.raises(InvalidRequest, match="Nothing changed"):
        services.update_settings(db, player, theme="dark", **change)  # type: ignore[arg-type]
    prefs = services.get_settings(db, player)
    assert (prefs.card_back, prefs.felt, prefs.sounds, prefs.theme) == ("red", "grey", True, "auto")


def test_the_data_file_carries_them_and_an_older_file_gives_todays_deck(db: Session) -> None:
    source = new_player()
    services.update_settings(db, source, card_back="green", felt="blue", sounds=True)
    raw = export_player_data(db, source)
    document = json.loads(raw)
    assert {k: document["settings"][k] for k in ("card_back", "felt", "sounds")} == {
        "card_back": "green",
        "felt": "blue",
        "sounds": True,
    }
    target = new_player()
    import_player_data(db, target, raw, confirmed=True)
    got = services.get_display(db, target)
    assert (got.card_back, got.felt, got.sounds) == ("green", "blue", True)

    # A file of the release before (no such fields), signed: today's deck, silent.
    for name in ("card_back", "felt", "sounds"):
        del document["settings"][name]
    document["signature"] = signature(document, get_settings())
    import_player_data(db, target, json.dumps(document).encode(), confirmed=True)
    got = services.get_display(db, target)
    assert (got.card_back, got.felt, got.sounds) == ("blue", "green", False)
