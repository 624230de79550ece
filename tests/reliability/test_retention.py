"""Retention: ``python -m app.retention --days N`` removes the unfinished games (and their move
logs) of players unseen for N days, and nothing else; it prints what it removed."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from datetime import timedelta

import pytest
from sqlalchemy import Engine, func, select, update
from sqlalchemy.orm import Session, sessionmaker

from app.db.models import (
    Device,
    GameRow,
    LinkCode,
    MoveLog,
    Player,
    PlayerSettings,
    StatEvent,
    utcnow,
)
from app.db.session import make_engine
from app.services import act, create_game, devices
from app.services.retention import find_stale_games, purge_stale_games
from tests.support.server import REPO, server_env

OLD, RECENT, LURKER = "old-player-" + "a" * 20, "recent-player-" + "b" * 20, "lurker-" + "c" * 25


@pytest.fixture()
def engine(fresh_db_url: str) -> Iterator[Engine]:
    engine = make_engine(fresh_db_url)
    yield engine
    engine.dispose()


def _age_player(db: Session, player_id: str, days: int) -> None:
    """Make every trace of the player ``days`` days old."""
    then = utcnow() - timedelta(days=days)
    db.execute(update(Player).where(Player.id == player_id).values(created_at=then))
    db.execute(
        update(PlayerSettings).where(PlayerSettings.player_id == player_id).values(updated_at=then)
    )
    db.execute(
        update(GameRow)
        .where(GameRow.player_id == player_id)
        .values(updated_at=then, created_at=then)
    )
    db.execute(update(StatEvent).where(StatEvent.player_id == player_id).values(at=then))
    db.execute(
        update(Device)
        .where(Device.player_id == player_id)
        .values(created_at=then, last_seen_at=then)
    )
    db.commit()


def _play_one(db: Session, player: str, game_id: str) -> None:
    from app.services import hints

    move = hints(db, player, game_id).moves[0]
    act(db, player, game_id, ("move", move.from_column, move.from_index, move.to_column))


def _arrange(db: Session) -> dict[str, list[str]]:
    ids: dict[str, list[str]] = {}
    # OLD: unseen for 100 days: an unfinished game with moves, a superseded unfinished game,
    # another variant's unfinished game and a won game.
    a1 = create_game(db, OLD, "scorpion", deal_number=11).id
    _play_one(db, OLD, a1)
    a2 = create_game(db, OLD, "scorpion", deal_number=12).id  # supersedes a1 (abandoned)
    a3 = create_game(db, OLD, "wasp", deal_number=13).id
    _play_one(db, OLD, a3)  # (started: a layout nobody touched counts nothing)
    won = create_game(db, OLD, "scorpion-ii", deal_number=14).id
    db.execute(update(GameRow).where(GameRow.id == won).values(status="won"))
    db.commit()
    _age_player(db, OLD, 100)
    ids["old_unfinished"] = [a1, a2, a3]
    ids["old_won"] = [won]
    # RECENT: playing today.
    ids["recent"] = [create_game(db, RECENT, "scorpion", deal_number=21).id]
    # LURKER: old traces, but one game touched yesterday: still seen, nothing removed.
    l1 = create_game(db, LURKER, "scorpion", deal_number=31).id
    l2 = create_game(db, LURKER, "wasp", deal_number=32).id
    _age_player(db, LURKER, 100)
    db.execute(
        update(GameRow).where(GameRow.id == l2).values(updated_at=utcnow() - timedelta(days=1))
    )
    db.commit()
    ids["lurker"] = [l1, l2]
    return ids


def _game_ids(db: Session) -> set[str]:
    found = set(db.execute(select(GameRow.id)).scalars())
    db.rollback()
    return found


def _retention(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.retention", *args],
        cwd=REPO,
        env=server_env(url),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_retention_command_removes_only_stale_unfinished_games(
    fresh_db_url: str, engine: Engine
) -> None:
    db = sessionmaker(bind=engine, expire_on_commit=False)()
    try:
        ids = _arrange(db)
        everything = _game_ids(db)
        assert (
            db.execute(
                select(func.count())
                .select_from(MoveLog)
                .where(MoveLog.game_id == ids["old_unfinished"][0])
            ).scalar_one()
            == 1
        )
        db.rollback()

        dry = _retention(fresh_db_url, "--days", "30", "--dry-run")
        assert dry.returncode == 0, dry.stderr
        for gid in ids["old_unfinished"]:
            assert f"would remove game {gid}" in dry.stdout
        assert "would remove 3 unfinished game(s) of 1 player(s) unseen for 30 days" in dry.stdout
        assert _game_ids(db) == everything  # a dry run changes nothing

        # Players unseen for 120 days: none yet.
        none = _retention(fresh_db_url, "--days", "120")
        assert none.returncode == 0 and "removed 0 unfinished game(s)" in none.stdout

        run = _retention(fresh_db_url, "--days", "30", "--batch-size", "2")
        assert run.returncode == 0, run.stderr
        for gid in ids["old_unfinished"]:
            assert f"removed game {gid} (" in run.stdout
        assert "removed 3 unfinished game(s) of 1 player(s)" in run.stdout
        for other in ids["old_won"] + ids["recent"] + ids["lurker"]:
            assert other not in run.stdout

        assert _game_ids(db) == everything - set(ids["old_unfinished"])
        # Their move logs went with them; the player, its settings and results stay.
        assert (
            db.execute(
                select(func.count())
                .select_from(MoveLog)
                .where(MoveLog.game_id.in_(ids["old_unfinished"]))
            ).scalar_one()
            == 0
        )
        assert db.get(Player, OLD) is not None and db.get(PlayerSettings, OLD) is not None
        assert (
            db.execute(
                select(func.count()).select_from(StatEvent).where(StatEvent.player_id == OLD)
            ).scalar_one()
            >= 3
        )
        db.rollback()

        again = _retention(fresh_db_url, "--days", "30")
        assert again.returncode == 0 and "removed 0 unfinished game(s)" in again.stdout
    finally:
        db.close()


def test_retention_service_rechecks_and_validates(fresh_db_url: str, engine: Engine) -> None:
    db = sessionmaker(bind=engine, expire_on_commit=False)()
    try:
        gid = create_game(db, OLD, "scorpion", deal_number=41).id
        _age_player(db, OLD, 50)
        assert [g.id for g in find_stale_games(db, 40)] == [gid]
        db.rollback()
        assert find_stale_games(db, 60) == []
        db.rollback()
        # The player comes back and plays: nothing of theirs is stale any more.
        _play_one(db, OLD, gid)
        assert purge_stale_games(db, 40) == []
        assert gid in _game_ids(db)
        with pytest.raises(ValueError):
            purge_stale_games(db, 0)
        bad = _retention(fresh_db_url, "--days", "0")
        assert bad.returncode == 2 and "at least 1 day" in bad.stderr
    finally:
        db.close()


def test_a_device_seen_lately_keeps_the_games(fresh_db_url: str, engine: Engine) -> None:
    """A player who only looks at their games (a device's last sighting, kept to the hour by
    the identity check) is not unseen: their saved games stay."""
    db = sessionmaker(bind=engine, expire_on_commit=False)()
    try:
        gid = create_game(db, OLD, "scorpion", deal_number=41).id
        _age_player(db, OLD, 50)
        assert [g.id for g in find_stale_games(db, 40)] == [gid]
        db.rollback()
        with engine.connect() as conn:
            assert devices.standing(conn, OLD, "first", "Firefox/140 (X11; Linux)")
        assert find_stale_games(db, 40) == []
    finally:
        db.close()


def test_retention_command_reports_an_unreachable_database() -> None:
    from tests.support.server import free_port

    url = f"postgresql+psycopg://postgres@127.0.0.1:{free_port()}/nowhere"
    result = _retention(url, "--days", "30")
    assert result.returncode == 1
    assert "could not be used" in result.stderr and "Traceback" not in result.stderr


def test_retention_command_removes_expired_link_codes_only(
    fresh_db_url: str, engine: Engine
) -> None:
    """An expired link code links nothing: the command removes its row; a live code stays
    and still links a device."""
    db = sessionmaker(bind=engine, expire_on_commit=False)()
    try:
        devices.make_link_code(db, OLD, now=utcnow() - timedelta(hours=1))  # expired
        live = devices.make_link_code(db, RECENT)
        run = _retention(fresh_db_url, "--days", "30")
        assert run.returncode == 0, run.stderr
        assert "removed 1 expired link code(s)" in run.stdout
        with engine.connect() as conn:
            left = conn.execute(select(LinkCode.player_id)).scalars().all()
        assert left == [RECENT]
        linked = devices.link_device(db, LURKER, "tablet", live.code)
        assert linked.player_id == RECENT
    finally:
        db.close()
