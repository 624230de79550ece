"""One player on several devices, without accounts (issue 33).

A player is anonymous; each browser that reaches it is a *device*, named by its signed
cookie (``app.web.site.deps``). A player's first browser is the device ``first``, whose cookie
holds the player id alone (as every cookie did before devices: migration 0012 made that row
for every existing player); a linked browser's cookie holds the player id and its own device
id.

- ``standing``: whether a cookie's device still reaches its player, on every request that is
  not in the in-process cache (``confirmed``): one statement of two primary-key lookups. A
  device whose row is gone while its player's row exists was removed: the web layer treats
  the browser as a new anonymous player. A player without a row yet (a new visitor who has
  not written anything, or a player retention removed) has no device rows either: its cookie
  stands, unless the device was removed from that player before (a keyed hash of the removed
  (player, device) is kept in ``deleted_players``, ``removal_key``: a cookie kept from before
  cannot become that player again). The cache keeps a confirmation ``CONFIRM_SECONDS``;
  removing a device clears it in this process at once, in another worker process within
  that time. The writes that matter most (devices, link codes, the data file, deletion) do
  not trust the cache: they ask again inside their own transaction (``require_standing``;
  a removed device gets ``DeviceRemoved``, a 410 that clears its cookie).
- Who may remove whom (``remove_device``): a device may remove itself and the devices linked
  after it, never an older one; so the player's oldest device can remove every other, and a
  device linked with a leaked code cannot remove the original and keep the player. Removing
  a device also voids the player's link code (whichever device made it).
- ``make_link_code``: a one-time code (8 characters of Crockford's base32, shown
  ``ABCD-EFGH``), valid ``LINK_CODE_MINUTES``, kept only as a keyed hash; a new code replaces
  the player's previous one. ``link_device``: the code's player gains this browser as a new
  device (single use); the browser's previous player is left as it is (its data stays with
  it, unreachable from this browser unless another of its devices remains).
- Both are rate limited with the counters of ``app.services.windows`` (off with
  ``RATE_LIMITS=off``): codes made per player, and codes entered per client address (right or
  wrong: a guess costs a try) per client address (an IPv6 client by its /64,
  ``app.services.clients``) and per player, ``LINK_WINDOW_SECONDS`` windows.
- ``list_devices``, ``remove_device``.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Connection, String, and_, bindparam, delete, select, update
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from app.config import Settings, get_settings
from app.db.models import (
    DeletedPlayer,
    Device,
    GameRow,
    LinkCode,
    Player,
    PlayerProfile,
    StatEvent,
    utcnow,
)
from app.db.session import begin_write

from .clients import current_address
from .common import (
    FIRST_DEVICE,
    current_device,
    ensure_player,
    insert_ignore,
    keyed_hash,
    write_tx,
)
from .device_names import UNKNOWN, device_name
from .errors import DeviceRemoved, InvalidRequest, NotFound, RateLimited, ServiceError
from .ratelimit import count as count_request
from .ratelimit import counted_tx
from .windows import retry_after, window_start, window_upsert

# Crockford's base32: no I, L, O or U (read as 1, 1, 0; U left out).
ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
CODE_LENGTH = 8
LINK_CODE_MINUTES = 10
LINK_WINDOW_SECONDS = 600
CONFIRM_SECONDS = 10.0
LAST_SEEN_STEP = timedelta(hours=1)
_READ_AS = str.maketrans({"O": "0", "I": "1", "L": "1"})


def new_device_id() -> str:
    """A fresh random device id (72 bits)."""
    return secrets.token_urlsafe(9)


# -- the identity check ------------------------------------------------------------------------

_CONFIRMED: OrderedDict[tuple[str, str], float] = OrderedDict()
_CONFIRMED_KEPT = 20_000
_CONFIRMED_LOCK = threading.Lock()

_P, _D = bindparam("p", type_=String()), bindparam("d", type_=String())
# One statement, two primary-key lookups: no row, a new visitor; a row without the device,
# a removed one.
_STANDING = (
    select(Player.id, Device.last_seen_at, Device.name)
    .select_from(Player)
    .outerjoin(Device, and_(Device.player_id == Player.id, Device.id == _D))
    .where(Player.id == _P)
)


def confirmed(player_id: str, device_id: str, now: float | None = None) -> bool:
    """Whether this process confirmed the device less than ``CONFIRM_SECONDS`` ago."""
    key = (player_id, device_id)
    with _CONFIRMED_LOCK:
        until = _CONFIRMED.get(key)
    return until is not None and until > (time.monotonic() if now is None else now)


def confirm_new(player_id: str, device_id: str) -> None:
    """A cookie just made (a new player: no rows yet) stands: nothing to look up."""
    _confirm(player_id, device_id)


def _confirm(player_id: str, device_id: str) -> None:
    key = (player_id, device_id)
    with _CONFIRMED_LOCK:
        _CONFIRMED[key] = time.monotonic() + CONFIRM_SECONDS
        _CONFIRMED.move_to_end(key)
        if len(_CONFIRMED) > _CONFIRMED_KEPT:
            _CONFIRMED.popitem(last=False)


def forget(player_id: str, device_id: str | None = None) -> None:
    """Drop this process's confirmation of a device (every device of the player: None)."""
    with _CONFIRMED_LOCK:
        if device_id is not None:
            _CONFIRMED.pop((player_id, device_id), None)
            return
        for key in [k for k in _CONFIRMED if k[0] == player_id]:
            del _CONFIRMED[key]


def removal_key(player_id: str, device_id: str, settings: Settings | None = None) -> str:
    """The keyed hash (HMAC-SHA256 with ``SECRET_KEY``) kept of a removed device, in
    ``deleted_players`` beside the deleted players' (another message: never the same hash)."""
    return keyed_hash("removed-device", f"{player_id}:{device_id}", settings)


def _was_removed(conn: Connection | Session, player_id: str, device_id: str) -> bool:
    """Whether the device was removed from the player before (its ``removal_key`` kept)."""
    found = conn.execute(
        select(DeletedPlayer.id_hash).where(
            DeletedPlayer.id_hash == removal_key(player_id, device_id)
        )
    ).first()
    return found is not None


def _stands_in(conn: Connection | Session, player_id: str, device_id: str) -> bool:
    """``standing`` without its side effects, in the caller's transaction."""
    row = conn.execute(_STANDING, {"p": player_id, "d": device_id}).first()
    if row is None:  # no player row: a new visitor, or a player retention removed
        return not _was_removed(conn, player_id, device_id)
    return row[1] is not None


def require_standing(db: Session, player_id: str, device_id: str | None = None) -> None:
    """Inside a write (or read) transaction of the request's player: ``DeviceRemoved`` if
    ``device_id`` (default: the request's device, ``current_device``) no longer reaches the
    player, whatever this process's cache says (another worker removed it a moment ago).
    Outside a request (scripts, tests of services) and without ``device_id``: nothing to
    check."""
    if device_id is None:
        device = current_device.get()
        if device is None:
            return
        device_id = device[0]
    if not _stands_in(db, player_id, device_id):
        forget(player_id, device_id)
        raise DeviceRemoved()


def standing(conn: Connection, player_id: str, device_id: str, user_agent: str = "") -> bool:
    """Whether the cookie's device still reaches its player (see the module notes). Keeps
    the device's last sighting (to the hour) and fills in a name not known yet; commits."""
    row = conn.execute(_STANDING, {"p": player_id, "d": device_id}).first()
    if row is None:
        removed = _was_removed(conn, player_id, device_id)
        conn.rollback()
        if removed:
            return False  # removed before retention removed its player: not that player again
        _confirm(player_id, device_id)
        return True  # a new visitor: no rows yet
    last_seen, name = row[1], row[2]
    if last_seen is None:
        conn.rollback()
        return False  # removed
    conn.rollback()
    now = utcnow()
    if name is None or now - last_seen >= LAST_SEEN_STEP:
        values: dict[str, object] = {"last_seen_at": now}
        if name is None:
            values["name"] = device_name(user_agent)
        try:  # (a transaction of its own; a sighting is worth no error: busy, it waits)
            conn.execute(
                update(Device)
                .where(Device.player_id == player_id, Device.id == device_id)
                .values(**values)
            )
            conn.commit()
        except OperationalError:
            conn.rollback()
    _confirm(player_id, device_id)
    return True


# -- listing and removing ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DeviceInfo:
    id: str
    name: str
    linked_at: datetime
    last_seen: datetime
    this_device: bool
    removable: bool  # by ``this_device`` (itself, or linked after it: module notes)


def list_devices(db: Session, player_id: str, this_device: str) -> list[DeviceInfo]:
    """The player's devices, the oldest first (``this_device`` marked, and which of them it
    may remove)."""
    try:
        require_standing(db, player_id)
        rows = list(
            db.execute(
                select(Device)
                .where(Device.player_id == player_id)
                .order_by(Device.created_at, Device.id)
            ).scalars()
        )
        mine = next((n for n, r in enumerate(rows) if r.id == this_device), None)
        return [
            DeviceInfo(
                id=r.id,
                name=r.name or UNKNOWN,
                linked_at=r.created_at,
                last_seen=r.last_seen_at,
                this_device=r.id == this_device,
                removable=mine is not None and n >= mine,
            )
            for n, r in enumerate(rows)
        ]
    finally:
        db.rollback()


NOT_YOURS_TO_REMOVE = (
    "A device can remove itself and the devices linked after it, not one linked before it: "
    "remove this one from an older device."
)


def remove_device(db: Session, player_id: str, device_id: str, *, by: str | None = None) -> None:
    """Remove one of the player's devices: its cookie no longer reaches the player (a new
    anonymous player on its next request, never that player again), and the player's link
    code is voided. ``by``: the requesting device, which may remove itself and the devices
    linked after it (module notes); ``InvalidRequest`` for an older one, ``NotFound`` for a
    device not the player's, ``DeviceRemoved`` when ``by`` itself was removed meanwhile.
    Without ``by`` (outside a request): any device."""
    with counted_tx(db, player_id, "actions"):  # (a refusal commits the count alone)
        if by is not None:
            require_standing(db, player_id, by)
        wanted = [device_id] if by is None else [device_id, by]
        linked = {
            str(r[0]): (r[1], str(r[0]))
            for r in db.execute(
                select(Device.id, Device.created_at).where(
                    Device.player_id == player_id, Device.id.in_(wanted)
                )
            )
        }
        if device_id not in linked:
            raise NotFound("There is no such device.")
        if by is not None and linked[device_id] < linked[by]:
            raise InvalidRequest(NOT_YOURS_TO_REMOVE)
        db.execute(delete(Device).where(Device.player_id == player_id, Device.id == device_id))
        db.execute(delete(LinkCode).where(LinkCode.player_id == player_id))
        _keep_removal(db, player_id, device_id)
    forget(player_id, device_id)


def _keep_removal(db: Session, player_id: str, device_id: str) -> None:
    insert_ignore(db, DeletedPlayer, id_hash=removal_key(player_id, device_id), deleted_at=utcnow())


# -- link codes --------------------------------------------------------------------------------


class TooManyLinkTries(RateLimited):
    """Too many link codes made, or entered, in a window (HTTP 429 with Retry-After)."""

    def __init__(self, message: str, limit: int, retry_after: int) -> None:
        super().__init__("actions", limit, LINK_WINDOW_SECONDS, retry_after)
        self.message = message
        self.args = (message,)


@dataclass(frozen=True, slots=True)
class IssuedCode:
    code: str  # 8 characters, as typed
    expires_at: datetime

    @property
    def grouped(self) -> str:
        return f"{self.code[:4]}-{self.code[4:]}"


@dataclass(frozen=True, slots=True)
class Linked:
    player_id: str
    device_id: str


def normalise_code(value: object) -> str | None:
    """A typed code as stored (upper case, no spaces or dashes, O/I/L read as 0/1/1), or
    None when it cannot be a code."""
    if not isinstance(value, str) or len(value) > 40:
        return None
    code = "".join(value.split()).replace("-", "").upper().translate(_READ_AS)
    if len(code) != CODE_LENGTH or any(c not in ALPHABET for c in code):
        return None
    return code


def code_hash(code: str, settings: Settings | None = None) -> str:
    return keyed_hash("link-code", code, settings)


_PLAYER_COUNT = window_upsert("rate_limits", "player_id", "VALUES (:key, :scope, :window_start, 1)")
_ADDRESS_COUNT = window_upsert(
    "address_counters", "address_key", "VALUES (:key, :scope, :window_start, 1)"
)


def _tries_key(player_id: str, settings: Settings) -> str:
    """The key a player's link tries are counted under in ``address_counters`` (a keyed
    hash: the browser trying may have no player row, which ``rate_limits`` needs)."""
    return keyed_hash("link-tries", player_id, settings)


# The refusals past a limit, formatted with the limit, the window's minutes and the wait.
_TOO_MANY_MADE = (
    "Too many link codes: at most {limit} every {minutes} minutes. Please wait {wait} seconds."
)
_TOO_MANY_TRIED = (
    "Too many link codes tried: at most {limit} every {minutes} minutes. Please wait {wait} "
    "seconds and try again."
)


def _count_try(
    db: Session, statement: object, key: str, scope: str, limit: int, now: float, refusal: str
) -> None:
    """Count one try of ``key`` in its window; past ``limit``: ``TooManyLinkTries``."""
    params = {"key": key, "scope": scope, "window_start": window_start(now, LINK_WINDOW_SECONDS)}
    row = db.connection().execute(statement, params).one()  # type: ignore[call-overload]
    counted, started = int(row[0]), int(row[1])
    if counted > limit:
        wait = retry_after(started, LINK_WINDOW_SECONDS, now)
        message = refusal.format(limit=limit, minutes=LINK_WINDOW_SECONDS // 60, wait=wait)
        raise TooManyLinkTries(message, limit, wait)


def make_link_code(
    db: Session,
    player_id: str,
    *,
    now: datetime | None = None,
    settings: Settings | None = None,
) -> IssuedCode:
    """A new one-time code for linking another device to the player (replacing the player's
    previous code). ``TooManyLinkTries`` past ``LINK_CODES_PER_WINDOW``: nothing changes."""
    settings = settings or get_settings()
    now = now or utcnow()
    with write_tx(db):
        ensure_player(db, player_id)
        require_standing(db, player_id)  # (not this process's cache: another worker's removal)
        count_request(db, player_id, "actions")  # (every writing request counts)
        if settings.rate_limits_enabled:
            limit = settings.link_codes_per_window
            _count_try(
                db, _PLAYER_COUNT, player_id, "link-make", limit, now.timestamp(), _TOO_MANY_MADE
            )
        db.execute(delete(LinkCode).where(LinkCode.player_id == player_id))
        code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
        expires = now + timedelta(minutes=LINK_CODE_MINUTES)
        db.add(
            LinkCode(
                code_hash=code_hash(code, settings),
                player_id=player_id,
                created_at=now,
                expires_at=expires,
            )
        )
    return IssuedCode(code=code, expires_at=expires)


WRONG_CODE = (
    "That code is wrong, already used or expired (a code works once, for "
    f"{LINK_CODE_MINUTES} minutes). Check it, or make a new one on the other device."
)


def has_data(db: Session, player_id: str) -> bool:
    """Whether the player has anything kept: a game, a result or a display name."""
    try:
        return _has_data_in_tx(db, player_id)
    finally:
        db.rollback()


def link_device(
    db: Session,
    player_id: str,
    device_id: str,
    code: object,
    *,
    user_agent: str = "",
    leave_data: bool = False,
    now: datetime | None = None,
    settings: Settings | None = None,
) -> Linked:
    """Join this browser (``player_id``/``device_id`` of its cookie) to the player whose
    link ``code`` it is: a new device of that player (the code is used up). Refusals
    (``InvalidRequest``) change nothing but the count of tries; ``TooManyLinkTries`` past
    ``LINK_TRIES_PER_WINDOW`` tries per client address, or per player. A browser whose
    current player has data must confirm leaving it (``leave_data``). The browser's device
    leaves its previous player for good (``removal_key``)."""
    settings = settings or get_settings()
    now = now or utcnow()
    begin_write(db)
    try:
        address = current_address.get()
        if settings.rate_limits_enabled:
            limit = settings.link_tries_per_window
            tried = [(_tries_key(player_id, settings), "link-try-player")]
            if address is not None:
                tried.insert(0, (address, "link-try"))
            for key, scope in tried:
                _count_try(db, _ADDRESS_COUNT, key, scope, limit, now.timestamp(), _TOO_MANY_TRIED)
        count_request(db, player_id, "actions")  # (a player with a row: every write counts)
        normalised = normalise_code(code)
        if normalised is None:
            raise InvalidRequest(
                f"A link code has {CODE_LENGTH} letters and digits, like ABCD-EFGH."
            )
        hashed = code_hash(normalised, settings)
        row = db.execute(
            select(LinkCode.player_id, LinkCode.expires_at)
            .where(LinkCode.code_hash == hashed)
            .with_for_update()  # (PostgreSQL: a second use of the code waits, then finds none)
        ).first()
        if row is None or row.expires_at <= now:
            if row is not None:
                db.execute(delete(LinkCode).where(LinkCode.code_hash == hashed))
            raise InvalidRequest(WRONG_CODE)
        if row.player_id == player_id:
            raise InvalidRequest("This device is already linked to that player.")
        if not leave_data and _has_data_in_tx(db, player_id):
            raise InvalidRequest(
                "This device has games or results of its own. Tick the box to confirm that "
                "you leave them behind."
            )
        target = str(row.player_id)
        used = db.execute(delete(LinkCode).where(LinkCode.code_hash == hashed))  # single use
        if int(getattr(used, "rowcount", 0) or 0) != 1:
            raise InvalidRequest(WRONG_CODE)
        new_id = new_device_id()
        insert_ignore(
            db,
            Device,
            player_id=target,
            id=new_id,
            name=device_name(user_agent),
            created_at=now,
            last_seen_at=now,
        )
        left = db.execute(
            delete(Device).where(Device.player_id == player_id, Device.id == device_id)
        )
        if int(getattr(left, "rowcount", 0) or 0):
            _keep_removal(db, player_id, device_id)
    except ServiceError:
        db.commit()  # the count of tries alone
        raise
    except BaseException:
        db.rollback()
        raise
    db.commit()
    forget(player_id, device_id)
    return Linked(player_id=target, device_id=new_id)


def _has_data_in_tx(db: Session, player_id: str) -> bool:
    for model in (GameRow, StatEvent, PlayerProfile):
        found = db.execute(
            select(model.player_id).where(model.player_id == player_id).limit(1)
        ).first()
        if found is not None:
            return True
    return False


def link_url(base: str, code: str) -> str:
    """The URL a link code's QR code holds: this site's link page with the code filled in."""
    return f"{base}/link?code={code}"


def qr_svg(data: str) -> str:
    """``data`` as a QR code, inline SVG (``segno``)."""
    import segno

    qr = segno.make(data, error="m")
    svg: str = qr.svg_inline(scale=4, dark="#000", light="#fff", title="QR code", omitsize=True)
    return svg


__all__ = [
    "ALPHABET",
    "FIRST_DEVICE",
    "DeviceInfo",
    "IssuedCode",
    "Linked",
    "TooManyLinkTries",
    "confirmed",
    "device_name",
    "forget",
    "has_data",
    "link_device",
    "list_devices",
    "make_link_code",
    "new_device_id",
    "normalise_code",
    "removal_key",
    "remove_device",
    "require_standing",
    "standing",
]
