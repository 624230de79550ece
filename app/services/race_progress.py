"""One player's progress in a race (``Progress``), how it is published to every worker, and who
a race shows once per player.

A player may have several games (entries) on one shared deal: their first (ranked) attempt,
then replays, each a ``RaceEntry``. The live panels and the challenge page list each *player*
once (``one_per_player``): by their first game, or, once that one is given up, by their newest.
Every report carries the player's ``seat`` (the id of their first entry in the race: no player
id) so that an event stream, which only sees reports, groups them the same way.

Kept apart from ``race.py`` so that ``game_core`` (starting a game gives up the player's
running one) can report a race game given up without an import circle.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy import delete, func, select, text
from sqlalchemy.orm import Session

from app.db.models import PlayerProfile, RaceEntry, RaceEvent, utcnow

from .profiles import default_name

CHANNEL = "race_progress"
_PRUNE_EVERY = 200  # SQLite: every so many events, drop those older than _KEEP_EVENTS
_KEEP_EVENTS = 5000
GAVE_UP = "gave-up"


@dataclass(frozen=True, slots=True)
class Progress:
    """One player's progress in a race, as everyone may see it (no card, no player id)."""

    entry: int
    name: str
    moves: int
    suits: int
    status: str  # playing | won | stuck | gave-up
    ranked: bool
    version: int  # the game's version: a report older than the one shown is ignored
    seat: int = 0  # the player's first entry in the race (0: this entry is their first)

    @property
    def player_key(self) -> int:
        """Groups one player's entries (``one_per_player``)."""
        return self.seat or self.entry

    def to_json(self, race_id: str) -> str:
        return json.dumps(
            {
                "race": race_id,
                "entry": self.entry,
                "name": self.name,
                "moves": self.moves,
                "suits": self.suits,
                "status": self.status,
                "ranked": self.ranked,
                "version": self.version,
                "seat": self.player_key,
            },
            separators=(",", ":"),
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Progress:
        return cls(
            entry=int(data["entry"]),
            name=str(data["name"]),
            moves=int(data["moves"]),
            suits=int(data["suits"]),
            status=str(data["status"]),
            ranked=bool(data["ranked"]),
            version=int(data["version"]),
            seat=int(data.get("seat") or 0),
        )


T = TypeVar("T")


def one_per_player(
    items: Iterable[T],
    player: Callable[[T], object],
    entry: Callable[[T], int],
    status: Callable[[T], str],
) -> list[T]:
    """Each player's one row: their first entry, or their newest once the first is given up.
    The result keeps the order of the rows chosen by entry (joining order)."""
    games: dict[object, list[T]] = {}
    for item in items:
        games.setdefault(player(item), []).append(item)
    chosen: list[T] = []
    for theirs in games.values():
        theirs.sort(key=entry)
        first = theirs[0]
        chosen.append(first if status(first) != GAVE_UP else theirs[-1])
    return sorted(chosen, key=entry)


def one_progress_per_player(rows: Iterable[Progress]) -> list[Progress]:
    return one_per_player(rows, lambda p: p.player_key, lambda p: p.entry, lambda p: p.status)


def publish(db: Session, race_id: str, progress: Progress) -> None:
    """Send ``progress`` to every worker when the caller's transaction commits."""
    payload = progress.to_json(race_id)
    if db.get_bind().dialect.name == "postgresql":
        db.execute(
            text("SELECT pg_notify(:channel, :payload)"), {"channel": CHANNEL, "payload": payload}
        )
        return
    event = RaceEvent(race_id=race_id, payload=payload, created_at=utcnow())
    db.add(event)
    db.flush()
    new_id = event.id
    if isinstance(new_id, int) and new_id % _PRUNE_EVERY == 0:
        db.execute(delete(RaceEvent).where(RaceEvent.id <= new_id - _KEEP_EVENTS))


def shown_name(db: Session, player_id: str) -> tuple[str, bool]:
    """(the name others see, whether the player appears to others at all)."""
    profile = db.get(PlayerProfile, player_id)
    if profile is None:
        return default_name(player_id), True
    return profile.display_name or default_name(player_id), profile.on_leaderboards


def seat_of(db: Session, entry: RaceEntry) -> int:
    """The id of the entry's player's first entry in the race (their ``Progress.seat``). A
    ranked entry is its player's first (only a first entry is ranked): no query then."""
    if entry.ranked:
        return int(entry.id)
    race_id, player_id = entry.race_id, entry.player_id
    return int(
        db.execute(
            select(func.min(RaceEntry.id)).where(
                RaceEntry.race_id == race_id, RaceEntry.player_id == player_id
            )
        ).scalar_one()
        or 0
    )


def report_given_up(db: Session, versions: dict[str, int]) -> None:
    """Tell the races of these games that they were given up (a new game of the variant was
    started: ``game_core.supersede``), inside the caller's transaction, before the games are
    marked abandoned or deleted. ``versions``: each game's id and version. Does nothing for
    games outside any race."""
    if not versions:
        return
    entries = list(
        db.execute(select(RaceEntry).where(RaceEntry.game_id.in_(list(versions)))).scalars()
    )
    for entry in entries:
        if entry.status == "won":
            continue
        name, visible = shown_name(db, entry.player_id)
        if not visible:
            continue
        report = Progress(
            entry.id,
            name,
            entry.moves,
            entry.suits,
            GAVE_UP,
            entry.ranked,
            versions.get(entry.game_id or "", 0),
            seat_of(db, entry),
        )
        publish(db, entry.race_id, report)
