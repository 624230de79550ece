"""Your data: the signed export and its import, on SQLite and PostgreSQL. An export imported
on a fresh database gives the same statistics, results and saved games; a forged, truncated,
malformed or inconsistent file is refused with a clear message and nothing is written."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import threading
import uuid
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, delete, func, select
from sqlalchemy.orm import Session, sessionmaker

from app import services
from app.config import get_settings
from app.db.models import GameRow, RaceEntry
from app.db.session import make_engine
from app.engine import Game, parse_deal
from app.services import analysis, challenges, daily, days, players, profiles
from app.services.common import write_tx
from app.services.leaderboard import leaderboard
from app.services.portability import (
    FORMAT,
    ImportRefused,
    export_player_data,
    import_player_data,
    restore,
    seal,
    signature,
)
from app.services.portability.file import decode_log
from tests.support.api_client import player_rows
from tests.support.deals import WIN_DEAL, WIN_LINE, set_daily_deal
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
    assert document["format"] == FORMAT and document["version"] == 2
    assert "exported_at" in document and len(document["signature"]) == 64
    # The deals and positions (face-down cards) are sealed: no deal text in the file.
    assert WIN_DEAL not in raw.decode() and '"hidden"' not in raw.decode()
    assert {g["status"] for g in document["games"]} == {"won", "playing"}
    assert len(document["games"]) == 4

    engine, target_db = fresh
    target = new_player()
    summary = import_player_data(target_db, target, raw, confirmed=True)
    assert summary.games == 4 and summary.results == len(document["results"])

    same_statistics(
        services.get_stats(db, source), services.get_stats(target_db, target), same_ids=False
    )
    saved_there = services.saved_games(target_db, target)
    saved_here = services.saved_games(db, source)
    assert [(g.variant, g.moves, g.view) for g in saved_there] == [
        (g.variant, g.moves, g.view) for g in saved_here
    ]
    # Every imported game has a fresh id (issue 39: two imports of one file never collide).
    assert not {g.id for g in saved_there} & {g["id"] for g in document["games"]}
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
    assert len(again["games"]) == len(document["games"])
    assert len(again["results"]) == len(document["results"])


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
    newer["version"] = 3
    assert "format version 3" in refused(db, engine, resign(newer))

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
    game = won_game(cut_log)
    game["log"] = game["log"].rsplit(" ", 1)[0]  # the last move, which won the game
    assert "does not lead to its saved position" in refused(db, engine, resign(cut_log))

    illegal = json.loads(raw)
    words = won_game(illegal)["log"].split()
    won_game(illegal)["log"] = " ".join([words[0], "6.0.0+5", *words[1:]])
    assert "does not replay" in refused(db, engine, resign(illegal))
    garbled = json.loads(raw)
    won_game(garbled)["log"] += " x+1"
    assert "does not replay" in refused(db, engine, resign(garbled))

    other_seal = json.loads(raw)
    games = other_seal["games"]
    games[0]["sealed"], games[3]["sealed"] = games[3]["sealed"], games[0]["sealed"]
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


# -- issue 39: a data file never rewrites a ranked result ---------------------------------------


@pytest.fixture()
def day(monkeypatch: pytest.MonkeyPatch) -> Iterator[date]:
    """A day of its own (the test database is shared by the tests of a run), its daily
    Scorpion deal ``WIN_DEAL``; ``days.clock`` at its noon (``next_day`` moves it on)."""
    when = date(2040, 1, 1) + timedelta(days=uuid.uuid4().int % 20000)
    noon = datetime(when.year, when.month, when.day, 12, tzinfo=UTC)
    monkeypatch.setattr(days, "clock", lambda: noon)
    set_daily_deal("scorpion", when, WIN_DEAL)
    yield when


def next_day(monkeypatch: pytest.MonkeyPatch, when: date) -> None:
    later = datetime(when.year, when.month, when.day, 12, tzinfo=UTC) + timedelta(days=1)
    monkeypatch.setattr(days, "clock", lambda: later)


def entries(engine: Engine, race_id: str) -> list[tuple[str, bool, str | None]]:
    with engine.connect() as conn:
        rows = conn.execute(
            select(RaceEntry.player_id, RaceEntry.ranked, RaceEntry.game_id)
            .where(RaceEntry.race_id == race_id)
            .order_by(RaceEntry.id)
        ).all()
    return [(p, bool(r), g) for p, r, g in rows]


def game_row(engine: Engine, game_id: str) -> tuple[int, int, bool, int]:
    with engine.connect() as conn:
        row = conn.execute(
            select(GameRow.version, GameRow.moves_made, GameRow.assisted, GameRow.moves).where(
                GameRow.id == game_id
            )
        ).one()
    return int(row[0]), int(row[1]), bool(row[2]), int(row[3])


def test_an_import_never_brings_a_ranked_daily_game_back(
    db: Session, engine: Engine, day: date
) -> None:
    """The red team's finding: export, explore with the solver, import, replay the line
    unassisted. The game here stays as it is (assisted, its moves made), ranked as it was."""
    player = new_player()
    game, _ = daily.play_daily(db, player, "scorpion")
    raw = export_player_data(db, player)  # version 1, unassisted, no move made
    services.act(db, player, game.id, WIN_LINE[0])
    analysis.mark_assisted(db, player, game.id)
    services.act(db, player, game.id, WIN_LINE[1])
    before = game_row(engine, game.id)
    assert before[1:3] == (2, True)

    summary = import_player_data(db, player, raw, confirmed=True)
    assert game_row(engine, game.id) == before
    assert entries(engine, game.race_id or "") == [(player, True, game.id)]
    assert summary.race_entries == 0 and summary.left_out_race_entries == 1
    assert services.action_log(db, player, game.id) == list(WIN_LINE[:2])
    # The file's copy did not come back under another id either: one daily game.
    assert [g.id for g in services.saved_games(db, player) if g.race_id] in ([], [game.id])
    with engine.connect() as conn:
        daily_games = conn.execute(
            select(func.count()).where(GameRow.player_id == player, GameRow.deal == WIN_DEAL)
        ).scalar_one()
    assert daily_games == 1


def test_a_game_still_here_is_not_rewound_by_an_earlier_file(db: Session, engine: Engine) -> None:
    """Any game, not only a race's: the file's older copy of a game the player still has does
    not bring it back to an earlier version, unassisted (docs/api.md, "Devices and your data")."""
    player = new_player()
    game = services.create_game(db, player, "scorpion", deal=WIN_DEAL)
    raw = export_player_data(db, player)  # version 1, unassisted, no move made
    services.act(db, player, game.id, WIN_LINE[0])
    analysis.mark_assisted(db, player, game.id)
    before = game_row(engine, game.id)
    assert before[1:3] == (1, True)

    summary = import_player_data(db, player, raw, confirmed=True)
    assert game_row(engine, game.id) == before
    assert summary.kept_games == 1 and summary.games == 0
    assert services.action_log(db, player, game.id) == list(WIN_LINE[:1])
    assert [g.id for g in services.saved_games(db, player)] == [game.id]


def test_one_file_in_a_dozen_cookies_gives_no_ranked_entry(
    db: Session, engine: Engine, day: date, monkeypatch: pytest.MonkeyPatch
) -> None:
    player = new_player()
    game, _ = daily.play_daily(db, player, "scorpion")
    for action in WIN_LINE:
        services.act(db, player, game.id, action)
    raw = export_player_data(db, player)
    race_id = game.race_id or ""
    for _ in range(12):
        other = new_player()
        summary = import_player_data(db, other, raw, confirmed=True)
        assert summary.race_entries == 0 and summary.left_out_games == 1
        assert daily.daily_info(db, other, "scorpion").my_ranked_game_id is None
    assert entries(engine, race_id) == [(player, True, game.id)]
    # Once the day is over: still nothing for another player (the file is not theirs).
    next_day(monkeypatch, day)
    late = new_player()
    summary = import_player_data(db, late, raw, confirmed=True)
    assert summary.race_entries == 0 and summary.left_out_race_entries == 1
    assert entries(engine, race_id) == [(player, True, game.id)]
    board = leaderboard(db, race_id, over=True)
    assert board.total == 1


def test_own_entries_of_a_past_day_come_back_as_history(
    db: Session, engine: Engine, day: date, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The player's own entry of a day that is over comes back unranked (shown, never
    ranked), its game detached from the race; a race still open brings back nothing."""
    player = new_player()
    game, _ = daily.play_daily(db, player, "scorpion")
    for action in WIN_LINE:
        services.act(db, player, game.id, action)
    raw = export_player_data(db, player)
    race_id = game.race_id or ""
    with write_tx(db):
        db.execute(delete(RaceEntry).where(RaceEntry.player_id == player))
        db.execute(delete(GameRow).where(GameRow.player_id == player))
    summary = import_player_data(db, player, raw, confirmed=True)  # the day is still open
    assert summary.race_entries == 0 and summary.games == 0 and entries(engine, race_id) == []

    next_day(monkeypatch, day)
    summary = import_player_data(db, player, raw, confirmed=True)
    assert summary.race_entries == 1 and summary.games == 1
    [(who, ranked, game_id)] = entries(engine, race_id)
    assert who == player and ranked is False and game_id not in (None, game.id)
    restored = services.get_game(db, player, game_id or "")
    assert restored.status == "won" and restored.race_id is None


def test_an_import_cannot_move_the_challenger_mark(db: Session, engine: Engine) -> None:
    challenger, friend = new_player(), new_player()
    mine = services.create_game(db, challenger, "scorpion", deal=WIN_DEAL)
    challenge = challenges.create_challenge(db, challenger, mine.id)
    challenges.play_challenge(db, friend, challenge.token)
    raw = export_player_data(db, challenger)

    def marked() -> list[tuple[bool, bool]]:
        sides = challenges.comparison(db, challenge.token, challenger)
        return [(s.you, s.challenger) for s in sides]

    assert marked() == [(True, True), (False, False)]
    import_player_data(db, challenger, raw, confirmed=True)
    assert marked() == [(True, True), (False, False)]
    # The friend importing the challenger's file does not become (or unmake) the challenger.
    import_player_data(db, friend, raw, confirmed=True)
    assert marked() == [(True, True), (False, False)]
    assert [p for p, _, _ in entries(engine, challenge.race_id)] == [challenger, friend]


# -- issue 39: hostile bytes, a BOM, two imports at once, the older format ------------------------


def test_deeply_nested_json_is_refused(db: Session, engine: Engine) -> None:
    assert "nested too deeply" in refused(db, engine, b"[" * 60_000)
    assert "nested too deeply" in refused(db, engine, b'{"format": ' + b"[" * 60_000)


def test_a_byte_order_mark_is_accepted(db: Session) -> None:
    source = played(db)
    raw = export_player_data(db, source)
    target = new_player()
    summary = import_player_data(db, target, b"\xef\xbb\xbf" + raw, confirmed=True)
    assert summary.games == 4


def test_two_players_import_one_file_at_once(
    db: Session, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two players import one file whose game ids nobody holds here any more (its player
    deleted everything), their transactions overlapping: each gets games of its own under
    fresh ids, and neither import fails on a taken id (PostgreSQL: a unique violation)."""
    source = played(db)
    raw = export_player_data(db, source)
    file_ids = {g["id"] for g in json.loads(raw)["games"]}
    players.delete_player(db, source)
    factory = sessionmaker(bind=engine, expire_on_commit=False)
    importers = [new_player(), new_player()]
    # Each import waits, after writing and before committing, for the other to write too
    # (at most 2 s: on SQLite the second waits for the first's write lock instead).
    written = threading.Barrier(len(importers))
    write = restore._write

    def write_then_wait(*args: Any, **kw: Any) -> Any:
        summary = write(*args, **kw)
        with contextlib.suppress(threading.BrokenBarrierError):
            written.wait(timeout=2)
        return summary

    monkeypatch.setattr(restore, "_write", write_then_wait)
    failures: list[BaseException] = []

    def run(player: str) -> None:
        with factory() as session:
            try:
                import_player_data(session, player, raw, confirmed=True)
            except BaseException as exc:  # noqa: BLE001 (reported below)
                failures.append(exc)

    threads = [threading.Thread(target=run, args=(p,)) for p in importers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    ids = [{g.id for g in services.saved_games(db, p)} for p in importers]
    assert all(len(i) == 2 for i in ids)
    assert not ids[0] & ids[1] and not (ids[0] | ids[1]) & file_ids


def version_1(db: Session, raw: bytes) -> bytes:
    """``raw`` (an export) as the version 1 format wrote it: indented, each game's deal and
    position sealed, its move log a list of rows; no ``player``."""
    settings = get_settings()
    document = json.loads(raw)
    document["version"] = 1
    del document["player"]
    for g in document["games"]:
        row = db.get(GameRow, g["id"])
        assert row is not None
        g["sealed"] = seal(
            json.dumps({"deal": row.deal, "snapshot": row.snapshot}).encode(), settings
        )
        start = datetime.fromisoformat(g["created_at"])
        g["actions"] = [
            [kind, fc, fi, tc, fp, tp, at.isoformat()]
            for kind, fc, fi, tc, fp, tp, at in decode_log(start, g.pop("log"))
        ]
    document["signature"] = signature(document, settings)
    return json.dumps(document, indent=1).encode()


def test_a_version_1_file_still_imports(db: Session) -> None:
    source = played(db)
    raw = version_1(db, export_player_data(db, source))
    target = new_player()
    summary = import_player_data(db, target, raw, confirmed=True)
    assert summary.games == 4
    same_statistics(services.get_stats(db, source), services.get_stats(db, target), same_ids=False)
    saved = {g.variant: g for g in services.saved_games(db, target)}
    assert services.action_log(db, target, saved["scorpion"].id) == [
        ("deal",),
        ("move", 0, 3, 4),
        ("undo",),
    ]


def test_the_file_is_compact(db: Session) -> None:
    """No indentation, one string per move log: a won game of ~90 actions takes well under
    2 KB, so an export of 1,000 such games fits in ``MAX_IMPORT_BYTES`` (issue 39)."""
    source = played(db)
    raw = export_player_data(db, source)
    assert b"\n " not in raw and b", " not in raw
    document = json.loads(raw)
    won = next(g for g in document["games"] if g["status"] == "won")
    assert won["log"].startswith("d+") and len(won["log"].split()) == len(WIN_LINE)
    per_action = len(won["log"]) / len(WIN_LINE)
    per_game = len(json.dumps(won, separators=(",", ":"))) - len(won["log"])
    assert 1000 * (per_game + 90 * per_action) < get_settings().max_import_bytes
