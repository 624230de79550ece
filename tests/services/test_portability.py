"""Your data: the signed export and its import, on SQLite and PostgreSQL. An export imported
on a fresh database gives the same statistics, results and saved games; a forged, truncated,
malformed or inconsistent file is refused with a clear message and nothing is written."""

from __future__ import annotations

import dataclasses
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from app import services
from app.config import get_settings
from app.db.session import make_engine
from app.engine import Game, parse_deal
from app.services import profiles
from app.services.portability import (
    FORMAT,
    ImportRefused,
    export_player_data,
    import_player_data,
    signature,
)
from tests.support.api_client import player_rows
from tests.support.deals import WIN_DEAL, WIN_LINE
from tests.support.postgres import empty_database, migrate_in_process


def new_player() -> str:
    return f"port-{uuid.uuid4().hex}"


@pytest.fixture()
def fresh(db_url: str, tmp_path: Path) -> Iterator[tuple[Engine, Session]]:
    """A second, brand-new database of the same backend (``alembic upgrade head``)."""
    backend = "postgresql" if db_url.startswith("postgresql") else "sqlite"
    with empty_database(backend, tmp_path) as url:
        migrate_in_process(url)
        engine = make_engine(url)
        session = sessionmaker(bind=engine, expire_on_commit=False)()
        try:
            yield engine, session
        finally:
            session.close()
            engine.dispose()


def played(db: Session) -> str:
    """A player with a won game, an abandoned one, a saved one (with an undo in its log),
    a saved Scorpion II game, changed settings and a display name."""
    player = new_player()
    won = services.create_game(db, player, "scorpion", deal=WIN_DEAL)
    for k, action in enumerate(WIN_LINE, start=1):
        services.act(db, player, won.id, action, k)
    services.create_game(db, player, "scorpion", deal=WIN_DEAL)  # superseded below
    current = services.create_game(db, player, "scorpion", deal=WIN_DEAL)
    services.act(db, player, current.id, ("deal",), 1)
    services.act(db, player, current.id, ("move", 0, 3, 4), 2)
    services.act(db, player, current.id, ("undo",), 3)
    services.create_game(db, player, "scorpion-ii", deal_number=7)
    services.update_settings(db, player, record_stats=True, save_games=True)
    profiles.update_profile(db, player, display_name="Ada L", on_leaderboards=False)
    return player


def same_statistics(a: Any, b: Any, *, same_ids: bool = True) -> None:
    assert a.variants == b.variants
    if same_ids:
        assert a.recent == b.recent
    else:
        assert [dataclasses.replace(r, game_id=None) for r in a.recent] == [
            dataclasses.replace(r, game_id=None) for r in b.recent
        ]
    assert a.per_day == b.per_day


def resign(document: dict[str, Any]) -> bytes:
    document["signature"] = signature(document, get_settings())
    return json.dumps(document).encode()


def test_export_then_import_on_a_fresh_database(db: Session, fresh: tuple[Engine, Session]) -> None:
    source = played(db)
    raw = export_player_data(db, source)
    document = json.loads(raw)
    assert document["format"] == FORMAT and document["version"] == 1
    assert "exported_at" in document and len(document["signature"]) == 64
    # The deals and positions (face-down cards) are sealed: no deal text in the file.
    assert WIN_DEAL not in raw.decode() and '"hidden"' not in raw.decode()
    assert {g["status"] for g in document["games"]} == {"won", "playing"}
    assert len(document["games"]) == 4

    engine, target_db = fresh
    target = new_player()
    summary = import_player_data(target_db, target, raw, confirmed=True)
    assert summary.games == 4 and summary.results == len(document["results"])

    same_statistics(services.get_stats(db, source), services.get_stats(target_db, target))
    saved_there = services.saved_games(target_db, target)
    saved_here = services.saved_games(db, source)
    assert [(g.id, g.variant, g.moves, g.view) for g in saved_there] == [
        (g.id, g.variant, g.moves, g.view) for g in saved_here
    ]
    assert profiles.get_profile(target_db, target).display_name == "Ada L"
    assert profiles.get_profile(target_db, target).on_leaderboards is False
    # The imported game plays on: its log and position are the engine's.
    game_id = next(g.id for g in saved_there if g.variant == "scorpion")
    assert services.action_log(target_db, target, game_id) == [
        ("deal",),
        ("move", 0, 3, 4),
        ("undo",),
    ]
    after = services.act(target_db, target, game_id, ("redo",), 4)
    expected = Game.replay("scorpion", parse_deal(WIN_DEAL), [("deal",), ("move", 0, 3, 4)])
    assert after.view == expected.public_view()
    # A second export of the imported player carries the same games and results.
    again = json.loads(export_player_data(target_db, target))
    assert [g["id"] for g in again["games"]] == [g["id"] for g in document["games"]]


def test_import_into_the_same_site_gives_taken_game_ids_new_ones(db: Session) -> None:
    source = played(db)
    raw = export_player_data(db, source)
    copy = new_player()
    import_player_data(db, copy, raw, confirmed=True)
    same_statistics(services.get_stats(db, source), services.get_stats(db, copy), same_ids=False)
    mine = {g.id for g in services.saved_games(db, source)}
    theirs = {g.id for g in services.saved_games(db, copy)}
    assert mine and theirs and not mine & theirs
    # The source player's games are untouched.
    assert len(services.saved_games(db, source)) == 2


def test_import_replaces_what_the_player_had(db: Session) -> None:
    source = played(db)
    raw = export_player_data(db, source)
    target = new_player()
    services.create_game(db, target, "wasp", deal_number=11)
    import_player_data(db, target, raw, confirmed=True)
    variants = {g.variant for g in services.saved_games(db, target)}
    assert variants == {"scorpion", "scorpion-ii"}
    assert services.get_stats(db, target).variants["wasp"].started == 0


def refused(db: Session, engine: Engine, raw: bytes, confirmed: bool = True) -> str:
    """Import ``raw`` into a player with data of its own: refused, and nothing changed."""
    target = new_player()
    services.create_game(db, target, "wasp", deal_number=11)
    before = player_rows(engine, target)
    stats = services.get_stats(db, target)
    with pytest.raises(ImportRefused) as refusal:
        import_player_data(db, target, raw, confirmed=confirmed)
    assert player_rows(engine, target) == before
    same_statistics(services.get_stats(db, target), stats)
    assert refusal.value.message.endswith("Nothing was changed.")
    return refusal.value.message


def test_forged_truncated_and_malformed_files_are_refused(db: Session, engine: Engine) -> None:
    source = played(db)
    raw = export_player_data(db, source)
    document = json.loads(raw)

    forged = json.loads(raw)
    forged["statistics"][0]["won"] += 5
    assert "signature does not match" in refused(db, engine, json.dumps(forged).encode())
    unsigned = {k: v for k, v in document.items() if k != "signature"}
    assert "signature does not match" in refused(db, engine, json.dumps(unsigned).encode())

    assert "not valid JSON" in refused(db, engine, raw[: len(raw) // 2])
    assert "empty" in refused(db, engine, b"")
    assert "not a Scorpion data file" in refused(db, engine, b'{"hello": "world"}')
    assert "not a Scorpion data file" in refused(db, engine, b"[1, 2, 3]")

    newer = json.loads(raw)
    newer["version"] = 2
    assert "format version 2" in refused(db, engine, resign(newer))

    wrong_type = json.loads(raw)
    wrong_type["games"][0]["moves"] = "many"
    assert "not valid: games.0.moves" in refused(db, engine, resign(wrong_type))
    extra = json.loads(raw)
    extra["games"][0]["owner"] = "someone else"
    assert "not valid" in refused(db, engine, resign(extra))

    assert "tick the box" in refused(db, engine, raw, confirmed=False)
    too_large = raw + b" " * (get_settings().max_import_bytes + 1 - len(raw))
    assert "too large" in refused(db, engine, too_large)


def test_inconsistent_files_are_refused(db: Session, engine: Engine) -> None:
    source = played(db)
    raw = export_player_data(db, source)

    def won_game(document: dict[str, Any]) -> dict[str, Any]:
        game: dict[str, Any] = next(g for g in document["games"] if g["status"] == "won")
        return game

    cut_log = json.loads(raw)
    won_game(cut_log)["actions"].pop()  # the last move, which won the game
    assert "does not lead to its saved position" in refused(db, engine, resign(cut_log))

    illegal = json.loads(raw)
    won_game(illegal)["actions"].insert(1, ["move", 6, 0, 0, None, None, "2026-01-01T00:00:00"])
    assert "does not replay" in refused(db, engine, resign(illegal))

    other_seal = json.loads(raw)
    games = other_seal["games"]
    games[0]["sealed"], games[1]["sealed"] = games[1]["sealed"], games[0]["sealed"]
    assert "not consistent" in refused(db, engine, resign(other_seal))

    broken_seal = json.loads(raw)
    broken_seal["games"][0]["sealed"] = "AAAA"
    assert "unreadable" in refused(db, engine, resign(broken_seal))

    orphan = json.loads(raw)
    orphan["results"][0]["game"] = "no-such-game"
    assert "names a missing game" in refused(db, engine, resign(orphan))

    twice = json.loads(raw)
    twice["games"].append(dict(twice["games"][0]))
    assert "appears twice" in refused(db, engine, resign(twice))


def test_another_secret_key_cannot_read_or_sign(db: Session, engine: Engine) -> None:
    source = played(db)
    other = get_settings().model_copy(update={"secret_key": "another-secret-key-0123456789"})
    raw = export_player_data(db, source, settings=other)
    assert "signature does not match" in refused(db, engine, raw)
