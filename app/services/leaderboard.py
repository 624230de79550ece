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
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from app.db.models import GameRow, PlayerProfile, RaceEntry

from .common import read_tx, write_tx
from .profiles import default_name
from .race import entry_status, replay_log_counted


@dataclass(frozen=True, slots=True)
class BoardEntry:
    rank: int | None  # unassisted wins only
    name: str
    you: bool
    moves: int
    seconds: int | None
    suits: int
    status: str  # won | playing | stuck | gave-up
    assisted: bool


@dataclass(frozen=True, slots=True)
class Board:
    wins: list[BoardEntry] = field(default_factory=list)  # ranked
    assisted: list[BoardEntry] = field(default_factory=list)
    others: list[BoardEntry] = field(default_factory=list)  # not won (yet)
    rejected: int = 0  # wins whose move log does not replay to a win


def _verify(db: Session, entry: RaceEntry, game: GameRow) -> tuple[str, int | None]:
    """Replay the game's log: ("ok", moves made) for a real win, ("forged", None) otherwise."""
    replayed = replay_log_counted(db, game.id, game.variant, game.deal)
    if replayed is None or not replayed[0].won:
        return "forged", None
    return "ok", replayed[1]


def leaderboard(
    db: Session, race_id: str, viewer: str | None = None, *, over: bool = False
) -> Board:
    """The race's board as ``viewer`` sees it. ``over``: the race has ended (a past day's
    daily deal), so a game still playing is listed as unfinished."""
    checks: dict[int, tuple[str, int | None, int]] = {}
    with read_tx(db):
        rows = db.execute(
            select(RaceEntry, GameRow, PlayerProfile)
            .outerjoin(GameRow, GameRow.id == RaceEntry.game_id)
            .outerjoin(PlayerProfile, PlayerProfile.player_id == RaceEntry.player_id)
            .where(RaceEntry.race_id == race_id, RaceEntry.ranked.is_(True))
            .order_by(RaceEntry.id)
        ).all()
        wins: list[tuple[int, int, float, BoardEntry]] = []
        assisted: list[BoardEntry] = []
        others: list[BoardEntry] = []
        rejected = 0
        for entry, game, profile in rows:
            if profile is not None and not profile.on_leaderboards:
                continue
            name = (profile.display_name if profile else None) or default_name(entry.player_id)
            you = viewer is not None and entry.player_id == viewer
            if game is not None and game.status == "won":
                verdict, moves = entry.verified, entry.verified_moves
                if verdict is None or entry.verified_version != game.version:
                    verdict, moves = _verify(db, entry, game)
                    checks[entry.id] = (verdict, moves, game.version)
                if verdict != "ok" or moves is None:
                    rejected += 1
                    continue
                finished = game.finished_at or game.updated_at
                seconds = max(0, int((finished - game.created_at).total_seconds()))
                be = BoardEntry(None, name, you, moves, seconds, 4, "won", game.assisted)
                if game.assisted:
                    assisted.append(be)
                else:
                    wins.append((moves, seconds, finished.timestamp(), be))
                continue
            status = entry_status("playing" if entry.status == "won" else entry.status, game)
            if over and status in ("playing", "stuck"):
                status = "unfinished"
            others.append(
                BoardEntry(None, name, you, entry.moves, None, entry.suits, status, entry.assisted)
            )
        wins.sort(key=lambda w: (w[0], w[1], w[2]))
        ranked: list[BoardEntry] = []
        for k, (moves, seconds, _, be) in enumerate(wins):
            if k and (moves, seconds) == (wins[k - 1][0], wins[k - 1][1]):
                rank = ranked[-1].rank
            else:
                rank = k + 1
            ranked.append(BoardEntry(rank, be.name, be.you, moves, seconds, 4, "won", False))
        assisted.sort(key=lambda e: (e.moves, e.seconds or 0))
        others.sort(key=lambda e: (-e.suits, e.moves))
    if checks:
        _store_checks(db, checks)
    return Board(wins=ranked, assisted=assisted, others=others, rejected=rejected)


def _store_checks(db: Session, checks: dict[int, tuple[str, int | None, int]]) -> None:
    with write_tx(db):
        for entry_id, (verdict, moves, version) in checks.items():
            db.execute(
                update(RaceEntry)
                .where(RaceEntry.id == entry_id)
                .values(verified=verdict, verified_moves=moves, verified_version=version)
            )
