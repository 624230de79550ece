"""Leaderboards of a shared deal (a daily deal or a challenge).

Only ranked attempts count (each player's first game of the race). Unassisted wins are ranked
by fewest moves made (every move and deal performed, undone ones included), then shortest time
(start to win, by the server's clock); equal moves and time share a rank. Assisted wins (the
solver was asked) and games not won are listed apart.
Players who chose to stay off leaderboards do not appear.

No score is taken on trust: before a win is ranked the server replays the game's move log
from the deal and keeps the result only if the log really wins, counting the moves itself.
The check is stored with the game version it was made for and made again if the game row
changed; a log that does not replay to a win is rejected (``verified = "forged"``).
Reading a board never writes: a check not stored yet is made again on each read.

A win is ranked only if it is humanly plausible and in time: one faster than
``RANKED_MIN_SECONDS_PER_MOVE`` seconds per move (``too-fast``), or a daily deal's win
finished after its UTC day ended (``after-the-day``), is listed apart as ``unverified``.

Every list is paged (``PAGE_SIZE`` rows a page, the same page of each list); ``total`` counts
the entries of every list, ``pages`` the pages of the longest.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from sqlalchemy.orm import Session

from app.config import get_settings
from app.db.models import GameRow, Race, RaceEntry
from app.engine import get_variant

from .common import read_tx
from .entries import entry_rows
from .errors import InvalidRequest
from .profiles import default_name
from .race import replay_log_counted, status_of

PAGE_SIZE = 50
MAX_PAGE = 100_000


@dataclass(frozen=True, slots=True)
class BoardEntry:
    rank: int | None  # unassisted wins only
    name: str
    you: bool
    moves: int
    seconds: int | None
    suits: int
    status: str  # won | playing | stuck | gave-up | unfinished
    assisted: bool
    reason: str | None = None  # an unverified win: too-fast | after-the-day


@dataclass(frozen=True, slots=True)
class Board:
    wins: list[BoardEntry] = field(default_factory=list)  # ranked
    assisted: list[BoardEntry] = field(default_factory=list)
    unverified: list[BoardEntry] = field(default_factory=list)  # too fast or too late
    others: list[BoardEntry] = field(default_factory=list)  # not won (yet)
    rejected: int = 0  # wins whose move log does not replay to a win
    page: int = 1
    pages: int = 1
    total: int = 0
    page_size: int = PAGE_SIZE


def check_page(value: object) -> int:
    """A page number (1, 2, ...); ``InvalidRequest`` otherwise."""
    try:
        page = int(str(value))
    except ValueError:
        raise InvalidRequest("A page is a whole number from 1, e.g. page=2.") from None
    if not 1 <= page <= MAX_PAGE:
        raise InvalidRequest(f"A page is a whole number from 1 to {MAX_PAGE}.")
    return page


def _verify(db: Session, game_id: str, variant: str, deal: str) -> tuple[str, int | None]:
    """Replay the game's log: ("ok", moves made) for a real win, ("forged", None) otherwise."""
    replayed = replay_log_counted(db, game_id, variant, deal)
    if replayed is None or not replayed[0].won:
        return "forged", None
    return "ok", replayed[1]


def leaderboard(
    db: Session, race_id: str, viewer: str | None = None, *, over: bool = False, page: int = 1
) -> Board:
    """The race's board as ``viewer`` sees it, page ``page``. ``over``: the race has ended (a
    past day's daily deal), so a game still playing is listed as unfinished. Reads only."""
    from .daily import day_end

    min_per_move = get_settings().ranked_min_seconds_per_move
    with read_tx(db):
        race = db.get(Race, race_id)
        deadline = None
        if race is not None and race.kind == "daily" and race.day is not None:
            deadline = day_end(race.day)
        rows = db.execute(
            entry_rows(
                race_id,
                RaceEntry.assisted.label("entry_assisted"),
                RaceEntry.verified,
                RaceEntry.verified_version,
                RaceEntry.verified_moves,
                GameRow.variant,
                GameRow.deal,
                GameRow.status.label("game_status"),
                GameRow.assisted.label("game_assisted"),
                GameRow.started_at,
                GameRow.finished_at,
                GameRow.updated_at,
            ).where(RaceEntry.ranked.is_(True))
        ).all()
        wins: list[tuple[int, int, float, BoardEntry]] = []
        assisted: list[BoardEntry] = []
        unverified: list[BoardEntry] = []
        others: list[BoardEntry] = []
        rejected = 0
        for r in rows:
            if r.on_leaderboards is False:
                continue
            # (a default name is an HMAC: made only for the rows of the page, below)
            name = r.display_name or _UNNAMED + r.player_id
            you = viewer is not None and r.player_id == viewer
            if r.game_id is not None and r.game_status == "won":
                verdict, moves = r.verified, r.verified_moves
                if verdict is None or r.verified_version != r.version:
                    verdict, moves = _verify(db, r.game_id, r.variant, r.deal)
                if verdict != "ok" or moves is None:
                    rejected += 1
                    continue
                finished = r.finished_at or r.updated_at
                # (the game's clock: from its first move or solver question)
                taken = (finished - r.started_at).total_seconds() if r.started_at else 0.0
                seconds = max(0, int(taken))
                runs = get_variant(r.variant).runs_needed  # every run left: 4, 8 or 12
                be = BoardEntry(None, name, you, moves, seconds, runs, "won", r.game_assisted)
                if r.game_assisted:
                    assisted.append(be)
                elif deadline is not None and finished >= deadline:
                    unverified.append(_with_reason(be, "after-the-day"))
                elif taken < moves * min_per_move:
                    unverified.append(_with_reason(be, "too-fast"))
                else:
                    wins.append((moves, seconds, finished.timestamp(), be))
                continue
            shown = "playing" if r.status == "won" else r.status
            status = status_of(shown, r.game_id is not None, r.abandoned_at)
            if over and status in ("playing", "stuck"):
                status = "unfinished"
            others.append(
                BoardEntry(None, name, you, r.moves, None, r.suits, status, r.entry_assisted)
            )
        wins.sort(key=lambda w: (w[0], w[1], w[2]))
        ranked: list[BoardEntry] = []
        for k, (moves, seconds, _, be) in enumerate(wins):
            if k and (moves, seconds) == (wins[k - 1][0], wins[k - 1][1]):
                rank = ranked[-1].rank
            else:
                rank = k + 1
            ranked.append(BoardEntry(rank, be.name, be.you, moves, seconds, be.suits, "won", False))
        assisted.sort(key=lambda e: (e.moves, e.seconds or 0))
        unverified.sort(key=lambda e: (e.moves, e.seconds or 0))
        others.sort(key=lambda e: (-e.suits, e.moves))
    lists = (ranked, assisted, unverified, others)
    longest = max(len(x) for x in lists)
    lo, hi = (page - 1) * PAGE_SIZE, page * PAGE_SIZE
    return Board(
        wins=_named(ranked[lo:hi]),
        assisted=_named(assisted[lo:hi]),
        unverified=_named(unverified[lo:hi]),
        others=_named(others[lo:hi]),
        rejected=rejected,
        page=page,
        pages=max(1, math.ceil(longest / PAGE_SIZE)),
        total=sum(len(x) for x in lists),
    )


_UNNAMED = "\x00"  # a name still to be made from the player id that follows it


def _named(entries: list[BoardEntry]) -> list[BoardEntry]:
    return [
        replace(e, name=default_name(e.name[1:])) if e.name.startswith(_UNNAMED) else e
        for e in entries
    ]


def _with_reason(be: BoardEntry, reason: str) -> BoardEntry:
    return BoardEntry(
        None, be.name, be.you, be.moves, be.seconds, be.suits, be.status, be.assisted, reason
    )
