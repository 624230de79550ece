"""The live race panel of a shared deal (a daily deal or a challenge): which race a game plays,
who is shown (the leaders and the viewer, not a whole daily crowd), and the race ids the event
streams listen to.

Nothing here carries a card: rows hold names, moves, suits completed and a status.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import Race, RaceEntry
from app.db.session import get_sessionmaker
from app.engine import ALL_VARIANTS, get_variant

from . import challenges, daily
from .common import read_tx
from .race import standings
from .race_progress import Progress, one_progress_per_player

PANEL_ROWS = 12  # the live panel shows the leaders and the viewer, not a whole daily crowd


@dataclass(frozen=True, slots=True)
class RacePanel:
    kind: str  # daily | challenge
    title: str
    page_url: str
    events_url: str
    rows: list[Progress]  # the rows shown (``panel_rows``)
    more: int  # players on the deal not shown
    mine: frozenset[int]


def panel_rows(rows: list[Progress], mine: frozenset[int]) -> tuple[list[Progress], int]:
    """The rows the live panel shows, each player once (``one_progress_per_player``: their
    first game, or their newest once the first is given up), winners by fewest moves, then by
    suits completed, the viewer always; and how many other players are not shown."""
    players = one_progress_per_player(rows)
    ordered = sorted(
        players,
        key=lambda p: (p.status != "won", p.moves if p.status == "won" else 0, -p.suits, p.entry),
    )
    shown = ordered[:PANEL_ROWS]
    shown += [p for p in ordered[PANEL_ROWS:] if p.entry in mine]
    return shown, len(players) - len(shown)


def race_title(race: Race) -> str:
    title = get_variant(race.variant).title if race.variant in ALL_VARIANTS else race.variant
    if race.kind == "daily":
        return f"{title} daily deal of {race.day.isoformat() if race.day else ''}"
    return f"{title} challenge"


def race_urls(race: Race) -> tuple[str, str]:
    """(page, page's event stream) of the race."""
    if race.kind == "daily":
        return f"/daily/{race.variant}", f"/daily/{race.variant}/events"
    return f"/challenge/{race.token}", f"/challenge/{race.token}/events"


def my_entries(db: Session, race_id: str, player: str) -> frozenset[int]:
    """The player's entries (games) in the race."""
    with read_tx(db):
        return frozenset(
            db.execute(
                select(RaceEntry.id).where(
                    RaceEntry.race_id == race_id, RaceEntry.player_id == player
                )
            ).scalars()
        )


def race_panel(db: Session, race_id: str, player: str) -> RacePanel:
    """The live panel of the race ``race_id`` as ``player`` sees it."""
    with read_tx(db):
        race = db.get(Race, race_id)
    assert race is not None
    page_url, events_url = race_urls(race)
    mine = my_entries(db, race.id, player)
    rows, more = panel_rows(standings(db, race.id), mine)
    return RacePanel(
        kind=race.kind,
        title=race_title(race),
        page_url=page_url,
        events_url=events_url,
        rows=rows,
        more=more,
        mine=mine,
    )


def race_panel_for_game(db: Session, player: str, game_id: str) -> RacePanel | None:
    """The live race panel of the play page, if the player's game plays a shared deal
    (the newest race it is in: a challenge made from a daily game shows the challenge)."""
    with read_tx(db):
        race = db.execute(
            select(Race)
            .join(RaceEntry, RaceEntry.race_id == Race.id)
            .where(RaceEntry.game_id == game_id, RaceEntry.player_id == player)
            .order_by(Race.created_at.desc())
            .limit(1)
        ).scalar_one_or_none()
    if race is None or (race.kind == "daily" and race.day != daily.today()):
        return None
    return race_panel(db, race.id, player)


# -- for the event streams: each opens and closes its own short session ----------------------


def snapshot(race_id: str, player: str) -> tuple[list[Progress], frozenset[int]]:
    """Everyone's standings in the race and the player's entries."""
    with get_sessionmaker()() as db:
        return standings(db, race_id), my_entries(db, race_id, player)


def daily_race_id(variant: str) -> str:
    """The race id of today's daily deal of ``variant`` (known before anyone plays it: the
    stream waits for it; nothing is written)."""
    return daily.daily_race_key(variant, daily.today())


def challenge_race_id(token: str) -> str:
    """The race of the challenge ``token``; ``NotFound`` if there is none."""
    with get_sessionmaker()() as db:
        return challenges.get_challenge(db, token).race_id
