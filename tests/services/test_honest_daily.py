"""The honest daily deal at the service level, on SQLite and PostgreSQL (real databases): a
private pool of random deals (never a deal number, never a shipped catalog's deal), one
ranked attempt that survives a results delete, no ranking after the day or for inhumanly fast
wins, per-address caps, paged leaderboards."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine, select, text
from sqlalchemy.orm import Session, sessionmaker

from app import services
from app.config import Settings, get_settings
from app.db.models import DailyPoolEntry, GameRow, Race
from app.engine import ALL_VARIANTS, Game, deal_from_number, parse_deal
from app.engine.solver import decode_line, winnable_deals
from app.services import clients, daily, daily_pool, days, players
from app.services.common import read_tx, write_tx
from app.services.leaderboard import PAGE_SIZE, leaderboard
from tests.support.deals import WIN_DEAL, WIN_LINE, set_daily_deal

ROOT = Path(__file__).resolve().parents[2]


def new_player() -> str:
    return f"hon-{uuid.uuid4().hex}"


def fresh_day() -> date:
    """A day of its own (the test database is shared by the tests of a run)."""
    return date(2040, 1, 1) + timedelta(days=uuid.uuid4().int % 20000)


@pytest.fixture()
def day(monkeypatch: pytest.MonkeyPatch) -> Iterator[date]:
    when = fresh_day()
    noon = datetime(when.year, when.month, when.day, 12, tzinfo=UTC)
    monkeypatch.setattr(days, "clock", lambda: noon)
    yield when


def win(db: Session, player: str, game_id: str) -> None:
    for action in WIN_LINE:
        services.act(db, player, game_id, action)


def visible_opening(variant: str, deal: str | tuple[int, ...]) -> list[tuple[int, ...]]:
    """The face-up cards of a deal's opening layout, column by column."""
    cards = parse_deal(deal, variant) if isinstance(deal, str) else deal
    g = Game.new(variant, cards)
    return [tuple(col[g.hidden[c] :]) for c, col in enumerate(g.cols)]


# -- the deal ---------------------------------------------------------------------------------


def test_the_daily_deal_is_a_random_deal_in_no_shipped_file_or_catalog(
    db: Session, day: date
) -> None:
    game, _ = daily.play_daily(db, new_player(), "scorpion")
    assert game.deal_number is None
    with read_tx(db):
        race = db.get(Race, daily.daily_race_key("scorpion", day))
        assert race is not None
        deal, number = race.deal, race.deal_number
    assert number is None  # never a deal number
    parse_deal(deal, "scorpion")  # a whole, valid deal
    # No file of the package holds the deal string.
    for top in ("app", "static", "templates"):
        for path in (ROOT / top).rglob("*"):
            if path.is_file() and path.suffix not in (".pyc",):
                assert deal not in path.read_text(errors="ignore"), path
    # No catalog deal shows the same opening cards (nothing to look it up by).
    opening = visible_opening("scorpion", deal)
    for n in winnable_deals("scorpion"):
        assert visible_opening("scorpion", deal_from_number(n, "scorpion")) != opening, n


def test_the_pool_gives_each_day_one_deal_that_stays_fixed(db: Session) -> None:
    variant = "scorpion-ii"
    entries = [
        daily_pool.PoolDeal(daily_pool.format_deal(daily_pool.random_deal(variant)), None, False)
        for _ in range(2)
    ]
    with write_tx(db):
        for e in entries:
            daily_pool.add(db, variant, e)
    first, second = fresh_day(), fresh_day() + timedelta(days=20001)
    taken = []
    for d in (first, second):
        race = daily.daily_race(db, variant, d)
        assert daily.daily_race(db, variant, d).deal == race.deal  # fixed once made
        taken.append(race.deal)
        with read_tx(db):
            used = db.execute(
                select(DailyPoolEntry).where(
                    DailyPoolEntry.variant == variant, DailyPoolEntry.used_for_day == d
                )
            ).scalar_one()
            assert used.deal == race.deal
    assert taken[0] != taken[1]
    assert set(taken) <= {e.deal for e in entries} | set(taken)  # (older leftovers first)


def test_an_empty_pool_gives_a_deal_proved_winnable_by_the_solver_processes() -> None:
    settings = Settings(daily_proof_tries=8, daily_proof_budget_seconds=2.0)
    asked: list[str] = []
    real = daily_pool.prover

    def counting(variant: str, deal: str, budget: float) -> tuple[str, str | None]:
        asked.append(deal)
        return real(variant, deal, budget)

    daily_pool.prover = counting
    try:
        fresh = daily_pool.fresh_deal("wasp", fresh_day(), settings)
    finally:
        daily_pool.prover = real
    assert asked and fresh.deal in asked  # proved in the solver pool, not in this process
    assert fresh.verified and fresh.line is not None
    assert daily_pool.line_wins("wasp", fresh.deal, fresh.line)
    # Nothing proved (no tries allowed): an unverified random deal, never a catalog number.
    unproved = daily_pool.fresh_deal("wasp", fresh_day(), Settings(daily_proof_tries=0))
    assert not unproved.verified and unproved.line is None
    parse_deal(unproved.deal, "wasp")


def test_the_fill_command_stores_proved_deals(configured: str) -> None:
    from app.daily_pool import fill
    from app.db.session import get_sessionmaker

    with get_sessionmaker()() as db, read_tx(db):
        before = daily_pool.unused(db, "wasp")
    assert fill(["wasp"], before + 2, 2.0, 200) == 2
    with get_sessionmaker()() as db, write_tx(db):
        rows = list(
            db.execute(
                select(DailyPoolEntry)
                .where(DailyPoolEntry.variant == "wasp", DailyPoolEntry.used_for_day.is_(None))
                .order_by(DailyPoolEntry.id.desc())
                .limit(2)
            ).scalars()
        )
        assert len(rows) == 2
        for r in rows:
            assert r.verified and r.line and daily_pool.line_wins("wasp", r.deal, r.line)
            # (use them up, so that other tests' days keep taking their own entries)
            r.used_for_day = date(1990, 1, 1) + timedelta(days=r.id)


@pytest.mark.parametrize("variant", list(ALL_VARIANTS))
def test_each_variant_takes_its_day_from_the_filled_pool(
    db: Session, day: date, variant: str
) -> None:
    from app.daily_pool import fill

    with write_tx(db):  # use up what other tests left unused: the day takes the oldest first
        for left in db.execute(
            select(DailyPoolEntry).where(
                DailyPoolEntry.variant == variant, DailyPoolEntry.used_for_day.is_(None)
            )
        ).scalars():
            left.used_for_day = date(1980, 1, 1) + timedelta(days=left.id)
    assert fill([variant], 1, 2.0, 500) == 1
    game, new = daily.play_daily(db, new_player(), variant)
    assert new and game.deal_number is None
    with read_tx(db):
        entry = db.execute(
            select(DailyPoolEntry).where(
                DailyPoolEntry.variant == variant, DailyPoolEntry.used_for_day == day
            )
        ).scalar_one()
        race = db.get(Race, daily.daily_race_key(variant, day))
        assert race is not None and race.deal == entry.deal and race.winnable is True
    assert entry.verified and entry.line is not None
    line = decode_line(entry.line)
    assert Game.replay(variant, parse_deal(entry.deal, variant), line).won
    assert daily.daily_info(db, new_player(), variant).winnable is True


# -- ranking ----------------------------------------------------------------------------------


def test_deleting_results_does_not_give_a_second_ranked_attempt(db: Session, day: date) -> None:
    set_daily_deal("scorpion", day, WIN_DEAL)
    p = new_player()
    game, _ = daily.play_daily(db, p, "scorpion")
    win(db, p, game.id)
    race_id = daily.daily_race_key("scorpion", day)
    assert [e.moves for e in leaderboard(db, race_id).wins] == [len(WIN_LINE)]
    players.delete_results(db, p)
    assert leaderboard(db, race_id).wins == []
    again, new = daily.play_daily(db, p, "scorpion")
    assert new
    win(db, p, again.id)
    assert leaderboard(db, race_id).wins == []  # the replay after the delete is not ranked
    assert daily.daily_info(db, p, "scorpion").my_ranked_game_id is None


def test_a_win_finished_after_the_day_is_not_ranked(
    db: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    the_day = date(2020, 1, 1) + timedelta(days=uuid.uuid4().int % 1500)  # before the real now
    monkeypatch.setattr(
        days,
        "clock",
        lambda: datetime.combine(the_day, datetime.min.time(), UTC) + timedelta(hours=23),
    )
    set_daily_deal("scorpion", the_day, WIN_DEAL)
    p = new_player()
    game, _ = daily.play_daily(db, p, "scorpion")
    win(db, p, game.id)  # the server's clock says: years later
    board = leaderboard(db, daily.daily_race_key("scorpion", the_day))
    assert board.wins == []
    assert [(e.reason, e.moves) for e in board.unverified] == [("after-the-day", len(WIN_LINE))]


def test_a_too_fast_win_is_unverified_not_ranked(
    db: Session, day: date, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(get_settings(), "ranked_min_seconds_per_move", 0.75)
    set_daily_deal("scorpion", day, WIN_DEAL)
    fast, human = new_player(), new_player()
    g_fast, _ = daily.play_daily(db, fast, "scorpion")
    g_human, _ = daily.play_daily(db, human, "scorpion")
    win(db, fast, g_fast.id)
    win(db, human, g_human.id)
    with write_tx(db):  # the human took a minute (the game's clock: from its first move)
        row = db.get(GameRow, g_human.id)
        assert row is not None and row.started_at is not None
        row.started_at = row.started_at - timedelta(seconds=60)
    board = leaderboard(db, daily.daily_race_key("scorpion", day), fast)
    assert [(e.rank, e.you) for e in board.wins] == [(1, False)]
    assert [(e.reason, e.you) for e in board.unverified] == [("too-fast", True)]


def test_ranked_entries_per_address_are_capped(
    db: Session, day: date, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = get_settings()
    monkeypatch.setattr(settings, "rate_limits", "on")
    monkeypatch.setattr(settings, "ranked_entries_per_address", 2)
    monkeypatch.setattr(settings, "new_players_per_minute", 1000)
    token = clients.current_address.set(clients.address_key(f"198.51.100.{day.toordinal() % 250}"))
    try:
        ranked = []
        for _ in range(3):
            p = new_player()
            daily.play_daily(db, p, "scorpion")
            ranked.append(daily.daily_info(db, p, "scorpion").my_ranked_game_id is not None)
    finally:
        clients.current_address.reset(token)
    assert ranked == [True, True, False]
    # Another address still gets its ranked attempt.
    token = clients.current_address.set(clients.address_key(f"203.0.113.{day.toordinal() % 250}"))
    try:
        p = new_player()
        daily.play_daily(db, p, "scorpion")
        assert daily.daily_info(db, p, "scorpion").my_ranked_game_id is not None
    finally:
        clients.current_address.reset(token)
    with read_tx(db):
        stored = db.execute(text("SELECT address_key FROM address_counters")).scalars().all()
    assert all("198.51.100" not in k and "203.0.113" not in k for k in stored)  # hashes only


def test_every_list_is_paged(db: Session, day: date) -> None:
    race = daily.daily_race(db, "scorpion", day)
    total = PAGE_SIZE + 7
    for _ in range(total):
        daily.play_daily(db, new_player(), "scorpion")
    first = leaderboard(db, race.id, page=1)
    second = leaderboard(db, race.id, page=2)
    assert (first.total, first.pages, len(first.others)) == (total, 2, PAGE_SIZE)
    assert (second.page, len(second.others)) == (2, 7)
    assert leaderboard(db, race.id, page=3).others == []


def test_two_workers_making_the_day_agree_on_one_pool_deal(engine: Engine) -> None:
    variant = "scorpion-ii"
    maker = sessionmaker(bind=engine, expire_on_commit=False)
    with maker() as db, write_tx(db):
        for _ in range(2):
            deal = daily_pool.format_deal(daily_pool.random_deal(variant))
            daily_pool.add(db, variant, daily_pool.PoolDeal(deal, None, False))
    the_day = fresh_day()
    barrier = threading.Barrier(2)
    found: list[str] = []

    def worker() -> None:
        with maker() as db:
            barrier.wait()
            found.append(daily.daily_race(db, variant, the_day).deal)

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(found) == 2 and found[0] == found[1]
    with maker() as db, read_tx(db):
        used = (
            db.execute(
                select(DailyPoolEntry.deal).where(
                    DailyPoolEntry.variant == variant, DailyPoolEntry.used_for_day == the_day
                )
            )
            .scalars()
            .all()
        )
    assert used == [found[0]]  # one entry used; the loser's is left for another day


def test_a_fresh_database_day_is_proved_winnable_through_the_solver_processes(
    db: Session, day: date, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = get_settings()
    monkeypatch.setattr(settings, "daily_proof_tries", 8)
    monkeypatch.setattr(settings, "daily_proof_budget_seconds", 2.0)
    with read_tx(db):
        assert daily_pool.unused(db, "wasp") == 0  # the pool is empty: the fallback runs
    daily.play_daily(db, new_player(), "wasp")
    info = daily.daily_info(db, new_player(), "wasp")
    assert info.started and info.winnable is True and info.deal is None


def test_address_counters_of_past_days_are_pruned(db: Session, day: date) -> None:
    old, recent = f"old-{uuid.uuid4().hex}", f"new-{uuid.uuid4().hex}"
    now = int(datetime.now(UTC).timestamp())
    with write_tx(db):
        for key, start in ((old, now - 3 * 24 * 3600), (recent, now - 60)):
            db.execute(
                text(
                    "INSERT INTO address_counters (address_key, scope, window_start, count) "
                    "VALUES (:k, 'players', :w, 5)"
                ),
                {"k": key, "w": start},
            )
    daily.daily_race(db, "scorpion", day)  # the first play of a day prunes
    with read_tx(db):
        left = set(db.execute(text("SELECT address_key FROM address_counters")).scalars())
    assert old not in left and recent in left
