"""Per-player rate limits kept in the database: counted atomically, shared by every worker
and server, 429 with Retry-After and JSON ``detail`` past the limit, nothing changed by a
refused request, and switched off entirely by ``RATE_LIMITS=off`` (that exact value only)."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, func, select, text
from sqlalchemy.orm import Session, sessionmaker

from app.config import Settings
from app.db.models import RateLimitCounter
from app.db.session import make_engine
from app.services import delete_player
from app.services.common import write_tx
from app.services.ratelimit import RateLimited, consume, count
from tests.support.live import LivePlayer, at_once
from tests.support.server import ServerFactory

PLAYER = "p" * 32


@pytest.fixture()
def session(fresh_db_url: str) -> Iterator[Session]:
    engine = make_engine(fresh_db_url)
    db = sessionmaker(bind=engine, expire_on_commit=False)()
    try:
        yield db
    finally:
        db.close()
        engine.dispose()


def _settings(**kw: object) -> Settings:
    base: dict[str, object] = {
        "rate_limits": "on",
        "rate_limit_games": 3,
        "rate_limit_actions": 5,
        "rate_limit_window_seconds": 60,
    }
    base.update(kw)
    return Settings(**base)  # type: ignore[arg-type]


def _rows(db: Session) -> int:
    count = db.execute(select(func.count()).select_from(RateLimitCounter)).scalar_one()
    db.rollback()
    return int(count)


def test_settings_only_exact_off_switches_limits_off() -> None:
    assert not _settings(rate_limits="off").rate_limits_enabled
    for value in ("on", "OFF", "Off", "false", "0", "no", "", " off"):
        assert _settings(rate_limits=value).rate_limits_enabled, value
    defaults = Settings()
    assert defaults.rate_limit_games == 300 and defaults.rate_limit_actions == 3000
    assert defaults.rate_limit_window_seconds == 60


def test_fixed_window_counter(session: Session) -> None:
    s = _settings()
    t0 = 1_000_020.0  # window [1_000_020, 1_000_080) with 60 s windows
    # An unknown player's action is not counted (it can only be a 404).
    assert consume(session, PLAYER, "actions", settings=s, now=t0) is None
    assert _rows(session) == 0
    # Game creation counts (and creates the player row, as creating the game would).
    assert [consume(session, PLAYER, "games", settings=s, now=t0 + i) for i in range(3)] == [
        1,
        2,
        3,
    ]
    with pytest.raises(RateLimited) as info:
        consume(session, PLAYER, "games", settings=s, now=t0 + 15.5)
    assert info.value.retry_after == 45  # ceil(1_000_080 - 1_000_035.5)
    assert "3" in info.value.message and "60 seconds" in info.value.message
    # Scopes are separate; actions of a known player now count.
    assert consume(session, PLAYER, "actions", settings=s, now=t0) == 1
    # The next window starts from one again; a clock a little behind does not reopen it.
    assert consume(session, PLAYER, "games", settings=s, now=t0 + 60) == 1
    assert consume(session, PLAYER, "games", settings=s, now=t0 + 59) == 2
    # Off: nothing is counted, nothing written.
    other = "q" * 32
    assert consume(session, other, "games", settings=_settings(rate_limits="off")) is None
    assert _rows(session) == 2
    # Deleting the player deletes its counters (ON DELETE CASCADE).
    delete_player(session, PLAYER)
    assert _rows(session) == 0


def test_an_actions_count_inside_its_transaction_keeps_the_same_window(session: Session) -> None:
    """``count`` (an action's, inside its own transaction: the row's UPDATE, its first count
    the UPSERT) opens, adds to and restarts windows exactly as ``consume`` does."""
    s = _settings()
    t0 = 1_000_020.0

    def counted(now: float) -> int | None:
        with write_tx(session):
            return count(session, PLAYER, "actions", settings=s, now=now)

    assert counted(t0) is None  # no player row: nothing counted, nothing written
    assert _rows(session) == 0
    consume(session, PLAYER, "games", settings=s, now=t0)  # (makes the player row)
    assert [counted(t0 + i) for i in range(5)] == [1, 2, 3, 4, 5]
    with pytest.raises(RateLimited) as info:
        counted(t0 + 30)
    assert info.value.retry_after == 30
    assert counted(t0 + 60) == 1  # the next window
    assert counted(t0 + 59) == 2  # a clock a little behind adds to it, never reopens one
    assert counted(t0 + 125) == 1
    row = session.execute(
        text("SELECT count, window_start FROM rate_limits WHERE scope = 'actions'")
    ).one()
    session.rollback()
    assert tuple(row) == (1, 1_000_140)


def test_counter_is_atomic_under_concurrency(fresh_db_url: str) -> None:
    """Many threads, each with its own connection, bump one counter: no update is lost."""
    engine = make_engine(fresh_db_url)
    make = sessionmaker(bind=engine, expire_on_commit=False)
    s = _settings(rate_limit_games=1000)
    try:
        counts: list[int | None] = []

        def bump() -> None:
            with make() as db:
                for _ in range(10):
                    counts.append(consume(db, PLAYER, "games", settings=s, now=2_000_000.0))

        threads = [threading.Thread(target=bump) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        assert sorted(c for c in counts if c is not None) == list(range(1, 81))
        with engine.connect() as conn:
            stored = conn.execute(
                text("SELECT count FROM rate_limits WHERE player_id = :p AND scope = 'games'"),
                {"p": PLAYER},
            ).scalar_one()
        assert stored == 80
    finally:
        engine.dispose()


def test_limits_are_shared_by_servers_and_refusals_change_nothing(
    fresh_db_url: str, start_server: ServerFactory
) -> None:
    """Two separate servers (separate processes, like two app containers) on one database:
    one count per player. The window is ten years long (the current one runs from December
    2019 to December 2029), so it cannot roll over mid-test and reopen the limits (a 60 s
    window did, now and then)."""
    window = 10 * 365 * 86400
    limits = {
        "RATE_LIMIT_GAMES": "3",
        "RATE_LIMIT_ACTIONS": "6",
        "RATE_LIMIT_WINDOW_SECONDS": str(window),
    }
    a = start_server(fresh_db_url, workers=1, **limits)
    b = start_server(fresh_db_url, workers=2, **limits)
    player = LivePlayer(a.url)
    servers = [a.url, b.url]

    created = [
        player.post(
            "/api/games", {"variant": "scorpion", "deal_number": 99 + i}, base_url=servers[i % 2]
        )
        for i in range(5)
    ]
    assert [r.status_code for r in created] == [201, 201, 201, 429, 429]
    for r in created[3:]:
        assert r.headers["content-type"].startswith("application/json")
        assert "Too many new games" in r.json()["detail"]
        assert 60 < int(r.headers["retry-after"]) <= window
    gid = created[2].json()["id"]

    # Actions: 6 per window, hints included, across both servers.
    statuses = []
    version = created[2].json()["version"]
    for i in range(4):
        hints = player.get(f"/api/games/{gid}/hints", base_url=servers[i % 2])
        statuses.append(hints.status_code)
        if hints.status_code != 200:
            break
        moves = hints.json()["moves"]
        r = player.post(
            f"/api/games/{gid}/moves", moves[0] if moves else {}, base_url=servers[(i + 1) % 2]
        )
        statuses.append(r.status_code)
        if r.status_code == 200:
            version = r.json()["version"]
    assert statuses[:6] == [200] * 6 and statuses[6:] == [429], statuses
    refused = player.post(f"/api/games/{gid}/undo", {"version": version}, base_url=b.url)
    assert refused.status_code == 429 and "Too many actions" in refused.json()["detail"]
    assert 60 < int(refused.headers["retry-after"]) <= window
    # The refused requests changed nothing. Reading a game is not limited.
    state = player.get(f"/api/games/{gid}", base_url=a.url)
    assert state.status_code == 200 and state.json()["version"] == version

    # Simultaneous requests past the limit: still one shared count, never more than allowed.
    other = LivePlayer(b.url)
    burst = at_once(
        [
            lambda i=i: other.post("/api/games", {"variant": "scorpion"}, base_url=servers[i % 2])
            for i in range(8)
        ]
    )
    assert sorted(r.status_code for r in burst) == [201] * 3 + [429] * 5
    # Another player is not affected by this one's limit.
    assert LivePlayer(a.url).new_game(5)["version"] >= 1

    # The published schema lists the 429 (with Retry-After) where it can happen.
    paths = player.get("/openapi.json").json()["paths"]
    for path, method in [
        ("/api/games", "post"),
        ("/api/games/{id}/moves", "post"),
        ("/api/games/{id}/undo", "post"),
        ("/api/games/{id}/restart", "post"),
        ("/api/games/{id}/hints", "get"),
    ]:
        documented = paths[path][method]["responses"]["429"]
        assert "Retry-After" in documented["headers"], path
        body = documented["content"]["application/json"]["schema"]
        assert body == {"$ref": "#/components/schemas/ErrorOut"}, body
    assert set(created[3].json()) == {"detail"}


def test_rate_limits_off_counts_nothing(fresh_db_url: str, start_server: ServerFactory) -> None:
    server = start_server(
        fresh_db_url, workers=2, RATE_LIMITS="off", RATE_LIMIT_GAMES="1", RATE_LIMIT_ACTIONS="1"
    )
    player = LivePlayer(server.url)
    games = [player.new_game(10 + i) for i in range(4)]
    for _ in range(3):
        assert player.get(f"/api/games/{games[0]['id']}/hints").status_code == 200
    engine = create_engine(fresh_db_url)
    try:
        with engine.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM rate_limits")).scalar_one() == 0
    finally:
        engine.dispose()
