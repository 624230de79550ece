"""Devices and link codes at the service level, on SQLite and PostgreSQL: a code works once,
for ten minutes (the clock is injected), is kept only as a hash, and entering codes is
throttled per client address; a removed device no longer stands; deleting the player takes
every device and code with it."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.orm import Session, sessionmaker

from app import services
from app.config import Settings, get_settings
from app.services import InvalidRequest, NotFound, devices
from app.services.clients import current_address
from app.services.common import current_device
from tests.support.api_client import count_rows
from tests.support.deals import WIN_DEAL, WIN_LINE

T0 = datetime(2036, 3, 1, 12, 0, tzinfo=UTC)


def new_player() -> str:
    return f"dev-{uuid.uuid4().hex}"


def limited(**limits: int) -> Settings:
    """The test settings with the rate limits on (they are off for the other tests)."""
    return get_settings().model_copy(update={"rate_limits": "on", **limits})


@pytest.fixture()
def address() -> Iterator[str]:
    """A client address of its own for the test (its keyed hash, as the web layer sets it)."""
    key = uuid.uuid4().hex
    token = current_address.set(key)
    try:
        yield key
    finally:
        current_address.reset(token)


def player_with_game(db: Session, device: str = "first") -> str:
    player = new_player()
    token = current_device.set((device, "Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0 Safari/537"))
    try:
        game = services.create_game(db, player, "scorpion", deal=WIN_DEAL)
        services.act(db, player, game.id, WIN_LINE[0])  # (a game starts at its first move)
    finally:
        current_device.reset(token)
    return player


def stands(engine: Engine, player: str, device: str) -> bool:
    devices.forget(player, device)
    with engine.connect() as conn:
        return devices.standing(conn, player, device, "Mozilla/5.0 (X11; Linux) Firefox/140.0")


def test_a_code_links_once(db: Session, engine: Engine) -> None:
    owner = player_with_game(db, "phone")
    joiner, joiner_device = new_player(), "laptop"
    issued = devices.make_link_code(db, owner, now=T0)
    assert len(issued.code) == 8 and set(issued.code) <= set(devices.ALPHABET)
    assert issued.grouped == f"{issued.code[:4]}-{issued.code[4:]}"
    assert issued.expires_at == T0 + timedelta(minutes=10)
    # Only a keyed hash is kept, never the code.
    with engine.connect() as conn:
        kept = conn.execute(
            text("SELECT code_hash FROM link_codes WHERE player_id = :p"), {"p": owner}
        ).scalar_one()
    assert issued.code not in kept and kept == devices.code_hash(issued.code)

    linked = devices.link_device(
        db,
        joiner,
        joiner_device,
        issued.grouped.lower(),
        user_agent="Firefox/140 (Android)",
        now=T0 + timedelta(minutes=1),
    )
    assert linked.player_id == owner and linked.device_id != joiner_device
    names = {d.id: d.name for d in devices.list_devices(db, owner, linked.device_id)}
    assert names == {"phone": "Chrome on Linux", linked.device_id: "Firefox on Android"}
    assert stands(engine, owner, linked.device_id)
    assert count_rows(engine, "link_codes", "player_id = :p", p=owner) == 0

    with pytest.raises(InvalidRequest) as refused:
        devices.link_device(db, new_player(), "x", issued.code, now=T0 + timedelta(minutes=2))
    assert "wrong, already used or expired" in refused.value.message


def test_a_code_expires_after_ten_minutes(db: Session) -> None:
    owner = player_with_game(db)
    late = devices.make_link_code(db, owner, now=T0)
    with pytest.raises(InvalidRequest, match="expired"):
        devices.link_device(db, new_player(), "d", late.code, now=T0 + timedelta(minutes=10))
    just_in_time = devices.make_link_code(db, owner, now=T0)
    linked = devices.link_device(
        db, new_player(), "d", just_in_time.code, now=T0 + timedelta(minutes=9, seconds=59)
    )
    assert linked.player_id == owner


def test_a_new_code_replaces_the_previous_one(db: Session) -> None:
    owner = player_with_game(db)
    first = devices.make_link_code(db, owner, now=T0)
    second = devices.make_link_code(db, owner, now=T0)
    with pytest.raises(InvalidRequest):
        devices.link_device(db, new_player(), "d", first.code, now=T0)
    assert devices.link_device(db, new_player(), "d", second.code, now=T0).player_id == owner


def test_malformed_codes_are_refused_clearly(db: Session) -> None:
    for typed in ("", "ABC", "ABCD-EFG!", "x" * 41, None, 12345678):
        with pytest.raises(InvalidRequest, match="8 letters and digits"):
            devices.link_device(db, new_player(), "d", typed, now=T0)
    # Crockford's reading: O is 0, I and L are 1, spaces and dashes are ignored.
    assert devices.normalise_code(" o1il-2345 ") == "0111" + "2345"


def test_wrong_codes_are_throttled_per_address(db: Session, address: str) -> None:
    owner = player_with_game(db)
    settings = limited(link_tries_per_window=3)
    start = T0 - timedelta(minutes=5)  # in the window of 11:50 to 12:00
    assert start.timestamp() % devices.LINK_WINDOW_SECONDS == 300
    issued = devices.make_link_code(db, owner, now=start, settings=settings)
    guesser = new_player()
    wrong = "ZZZZZZZZ" if issued.code != "ZZZZZZZZ" else "YYYYYYYY"
    for _ in range(3):
        with pytest.raises(InvalidRequest):
            devices.link_device(db, guesser, "d", wrong, now=start, settings=settings)
    # The fourth try is refused before the code is even looked at: the right code too.
    with pytest.raises(devices.TooManyLinkTries) as throttled:
        devices.link_device(db, guesser, "d", issued.code, now=start, settings=settings)
    assert "Too many link codes tried" in throttled.value.message
    assert throttled.value.retry_after == 300
    # Another player id from the same address is throttled just the same.
    with pytest.raises(devices.TooManyLinkTries):
        devices.link_device(db, new_player(), "d", issued.code, now=start, settings=settings)
    # The next window: the code (still valid, nothing changed) works.
    linked = devices.link_device(db, guesser, "d", issued.code, now=T0, settings=settings)
    assert linked.player_id == owner


def test_making_codes_is_rate_limited(db: Session, engine: Engine) -> None:
    owner = player_with_game(db)
    settings = limited(link_codes_per_window=2)
    devices.make_link_code(db, owner, now=T0, settings=settings)
    kept = devices.make_link_code(db, owner, now=T0, settings=settings)
    with pytest.raises(devices.TooManyLinkTries, match="Too many link codes"):
        devices.make_link_code(db, owner, now=T0, settings=settings)
    # The refused request changed nothing: the last code still works.
    assert devices.link_device(db, new_player(), "d", kept.code, now=T0).player_id == owner


def test_a_device_with_data_must_confirm_leaving_it(db: Session) -> None:
    owner = player_with_game(db)
    joiner = player_with_game(db, "tablet")
    issued = devices.make_link_code(db, owner, now=T0)
    with pytest.raises(InvalidRequest, match="Tick the box"):
        devices.link_device(db, joiner, "tablet", issued.code, now=T0)
    linked = devices.link_device(db, joiner, "tablet", issued.code, leave_data=True, now=T0)
    assert linked.player_id == owner
    # The joiner's old player keeps its data, without this device.
    assert services.get_stats(db, joiner).variants["scorpion"].started == 1
    assert devices.list_devices(db, joiner, "tablet") == []


def test_linking_to_yourself_is_refused(db: Session) -> None:
    owner = player_with_game(db, "phone")
    issued = devices.make_link_code(db, owner, now=T0)
    with pytest.raises(InvalidRequest, match="already linked"):
        devices.link_device(db, owner, "phone", issued.code, now=T0)


def test_standing_of_new_known_and_removed_devices(db: Session, engine: Engine) -> None:
    visitor = new_player()
    assert stands(engine, visitor, "anything")  # no rows yet: a new visitor stands
    owner = player_with_game(db, "phone")
    assert stands(engine, owner, "phone")
    assert not stands(engine, owner, "never-linked")
    # A cookie holding the player id alone is the device "first": this player's first
    # browser was the device "phone", so it has no such device.
    assert not stands(engine, owner, "first")
    devices.remove_device(db, owner, "phone")
    assert not stands(engine, owner, "phone")
    with pytest.raises(NotFound):
        devices.remove_device(db, owner, "phone")


def test_a_device_name_is_filled_in_and_seen_to_the_hour(db: Session, engine: Engine) -> None:
    owner = player_with_game(db)  # outside a request: the device "first", no name yet
    two_hours_ago = datetime.now(UTC) - timedelta(hours=2)
    recently = datetime.now(UTC) - timedelta(minutes=20)

    def set_device(name: str | None, seen: datetime) -> None:
        with engine.begin() as conn:
            conn.execute(
                text("UPDATE devices SET name = :n, last_seen_at = :t WHERE player_id = :p"),
                {"p": owner, "t": seen, "n": name},
            )

    set_device(None, recently)
    assert stands(engine, owner, "first")
    (device,) = devices.list_devices(db, owner, "first")
    assert device.name == "Firefox on Linux" and device.this_device
    set_device("Firefox on Linux", recently)
    assert stands(engine, owner, "first")
    assert devices.list_devices(db, owner, "first")[0].last_seen == recently  # to the hour
    set_device("Firefox on Linux", two_hours_ago)
    assert stands(engine, owner, "first")
    assert devices.list_devices(db, owner, "first")[0].last_seen > recently


def test_deleting_the_player_removes_devices_and_codes(db: Session, engine: Engine) -> None:
    owner = player_with_game(db, "phone")
    linked = devices.link_device(
        db, new_player(), "d", devices.make_link_code(db, owner, now=T0).code, now=T0
    )
    devices.make_link_code(db, owner, now=T0)
    services.delete_player(db, owner)
    assert count_rows(engine, "devices", "player_id = :p", p=owner) == 0
    assert count_rows(engine, "link_codes", "player_id = :p", p=owner) == 0
    assert devices.list_devices(db, owner, linked.device_id) == []


@pytest.mark.parametrize(
    ("agent", "name"),
    [
        (
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 HeadlessChrome/140.0 Safari/537.36",
            "Chromium on Linux",
        ),
        (
            "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 "
            "Version/18.0 Mobile/15E148 Safari/604.1",
            "Safari on iOS",
        ),
        (
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/140.0 "
            "Safari/537.36 Edg/140.0",
            "Edge on Windows",
        ),
        (
            "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.0; rv:140.0) Gecko/20100101 Firefox/140.0",
            "Firefox on macOS",
        ),
        (
            "Mozilla/5.0 (Linux; Android 15) AppleWebKit/537.36 Chrome/140.0 Mobile Safari/537.36",
            "Chrome on Android",
        ),
        ("", "Unknown browser"),
    ],
)
def test_device_names(agent: str, name: str) -> None:
    assert devices.device_name(agent) == name


def test_two_devices_racing_for_one_code_link_once(db: Session, engine: Engine) -> None:
    owner = player_with_game(db)
    issued = devices.make_link_code(db, owner, now=T0)
    barrier = threading.Barrier(4)
    outcomes: list[str] = []

    def attempt() -> None:
        session = sessionmaker(bind=engine, expire_on_commit=False)()
        try:
            barrier.wait()
            devices.link_device(session, new_player(), "d", issued.code, now=T0)
            outcomes.append("linked")
        except InvalidRequest as refusal:
            outcomes.append(refusal.message)
        finally:
            session.close()

    threads = [threading.Thread(target=attempt) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sorted(outcomes) == sorted(["linked"] + [devices.WRONG_CODE] * 3)
    assert count_rows(engine, "devices", "player_id = :p", p=owner) == 2
